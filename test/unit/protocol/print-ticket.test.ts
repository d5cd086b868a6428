import { describe, expect, it } from 'vitest';
import { defaultTicket } from '../../../src/protocol/print-ticket.js';

describe('defaultTicket', () => {
  it('asks for one copy and leaves every other option to the printer', () => {
    expect(defaultTicket).toStrictEqual({ copies: 1 });
  });
});
