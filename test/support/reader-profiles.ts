/**
 * A serial card-reader profile for tests of how profiles apply: 19200 baud (no shipped profile
 * uses anything but 9600) and 10-byte fixed-length records, validated as a profile file would be.
 */
import { parseReaderProfile } from '../../src/cardreader/reader-profiles.js';

export const FAST_FIXED_PROFILE_ID = 'test-fixed-19200';

export const fastFixedProfile = parseReaderProfile(
  {
    id: FAST_FIXED_PROFILE_ID,
    name: 'Test reader at 19200 baud sending 10-byte records',
    vendor: 'test',
    usb: [],
    connection: 'serial',
    serial: { baudRate: 19200 },
    framing: { type: 'fixed', length: 10 },
    transforms: [],
  },
  `${FAST_FIXED_PROFILE_ID}.json`,
);
