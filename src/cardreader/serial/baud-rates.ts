/**
 * The baud rates a serial card reader may be opened at, shared by the serial:// URI parser and
 * the reader profiles (which must not import the reader itself).
 */

/** The baud rate when neither the URI nor the profile names one. */
export const DEFAULT_BAUD_RATE = 9600;

/** The rule a baud rate breaks, for error messages. */
export const BAUD_RATE_RULE = 'must be an integer from 300 to 921600';

/** Whether a value is a baud rate a serial reader accepts (an integer from 300 to 921600). */
export function isBaudRate(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 300 && value <= 921600;
}
