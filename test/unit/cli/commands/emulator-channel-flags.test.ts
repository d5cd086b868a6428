import { describe, expect, it } from 'vitest';
import { channelSettings } from '../../../../src/cli/commands/emulator.js';

describe('emulator --connector-protocol and --inline-document-max', () => {
  it('give the channel settings', () => {
    expect(channelSettings({ connectorProtocol: '2', inlineDocumentMax: '0' })).toEqual({
      maxProtocol: 2,
      inlineDocumentBytes: 0,
    });
    expect(channelSettings({ connectorProtocol: '3', inlineDocumentMax: '262144' })).toEqual({
      maxProtocol: 3,
      inlineDocumentBytes: 262144,
    });
    expect(channelSettings({ connectorProtocol: '4', inlineDocumentMax: '262144' })).toEqual({
      maxProtocol: 4,
      inlineDocumentBytes: 262144,
    });
  });

  it.each([
    [
      { connectorProtocol: '5', inlineDocumentMax: '1' },
      /^--connector-protocol: expected a whole number from 1 to 4/,
    ],
    [{ connectorProtocol: 'x', inlineDocumentMax: '1' }, /^--connector-protocol:/],
    [
      { connectorProtocol: '3', inlineDocumentMax: '-1' },
      /^--inline-document-max: expected a whole number from 0 to 16777216/,
    ],
  ])('refuses %o naming the flag and its range', (flags, message) => {
    expect(() => channelSettings(flags)).toThrow(message);
  });
});
