/**
 * Counts the requests the emulator served, read from its own "request completed" log lines
 * (method, path, status): give `logger` to createEmulator, then read `requests()` and
 * `writes()`. Nothing to clean up; reset() forgets what was counted.
 */
import { Writable } from 'node:stream';
import { createLogger, type Logger } from '../../src/log/logger.js';

/** One completed request as the emulator logged it. */
export interface ServedRequest {
  method: string;
  path: string;
  status: number;
}

/** A logger for the emulator and the requests it logged. */
export interface RequestCounter {
  logger: Logger;
  requests(): ServedRequest[];
  /** POST, PUT, PATCH and DELETE requests, excluding the token endpoint and job traffic. */
  writes(): ServedRequest[];
  reset(): void;
}

const WRITE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

/** Makes a counter; the logger writes nothing anywhere else. */
export function emulatorRequestCounter(): RequestCounter {
  let served: ServedRequest[] = [];
  const destination = new Writable({
    write(chunk, _encoding, done) {
      for (const line of chunk.toString().split('\n')) {
        if (!line.includes('"request completed"')) continue;
        const parsed = JSON.parse(line) as { method: string; path: string; status: number };
        served.push({ method: parsed.method, path: parsed.path, status: parsed.status });
      }
      done();
    },
  });
  const logger = createLogger({ destination, level: 'info' });
  return {
    logger,
    requests: () => [...served],
    writes: () =>
      served.filter(
        (r) => WRITE_METHODS.has(r.method) && !r.path.startsWith('/oauth/') && !r.path.includes('/jobs'),
      ),
    reset: () => {
      served = [];
    },
  };
}
