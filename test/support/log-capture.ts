/**
 * A log destination for tests that read what the agent or the emulator logged: it keeps every
 * chunk written to it, as written (each a JSON line, already redacted by the logger).
 */
import { Writable } from 'node:stream';

export function logCapture(): { lines: string[]; destination: Writable } {
  const lines: string[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { lines, destination };
}
