import { describe, expect, it } from 'vitest';
import { parseAgentMessage } from '../../../../src/emulator/connectors/connector-channel-routes.js';

describe('parseAgentMessage', () => {
  // Found by fuzzing the channel: `null` (valid JSON) threw inside the socket handler and would
  // have ended the emulator's process.
  it.each([
    'null',
    '0',
    '"pong"',
    '[]',
    'true',
    '{}',
    '{"type":"hello"}',
    '{"type":"status"}',
    'not json',
    '',
  ])('ignores %j', (text) => {
    expect(parseAgentMessage(text)).toBeUndefined();
  });

  it('reads a pong, with t 0 when it is not a number', () => {
    expect(parseAgentMessage('{"type":"pong","t":42}')).toEqual({ type: 'pong', t: 42 });
    expect(parseAgentMessage('{"type":"pong","t":"x"}')).toEqual({ type: 'pong', t: 0 });
  });

  it('reads a status, dropping entries that are not objects', () => {
    expect(
      parseAgentMessage('{"type":"status","printers":[null,1,"x",{"printer_id":"p1","status":"Online"}]}'),
    ).toEqual({ type: 'status', printers: [{ printer_id: 'p1', status: 'Online' }] });
  });

  it('reads a claim, with its events when it carries them (protocol 4; checked when applied)', () => {
    expect(parseAgentMessage('{"type":"claim","claim_id":"c1","job_id":"j1"}')).toEqual({
      type: 'claim',
      claim_id: 'c1',
      job_id: 'j1',
    });
    expect(parseAgentMessage('{"type":"claim","claim_id":"c1","job_id":"j1","events":[{"seq":1}]}')).toEqual({
      type: 'claim',
      claim_id: 'c1',
      job_id: 'j1',
      events: [{ seq: 1 }],
    });
  });
});
