import { describe, expect, it } from 'vitest';
import { statusNotes } from '../../../src/cli/print-flow.js';

describe('statusNotes', () => {
  it('keeps what follows the flags of a status string, one note per element', () => {
    expect(
      statusNotes('PRINTED|COMPLETE|tray: "Tray 9" is not a tray of this printer; the default tray is used|'),
    ).toEqual(['tray: "Tray 9" is not a tray of this printer; the default tray is used']);
    expect(statusNotes('PRINTED|COMPLETE|')).toEqual([]);
    expect(statusNotes('ERROR|RESTART|')).toEqual([]);
    expect(statusNotes('')).toEqual([]);
  });
});
