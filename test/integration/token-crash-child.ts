/**
 * Child process of token-crash.test.ts: a TokenStore on TOKENS_FILE refreshing against the
 * emulator at AUTH_URL with what is on disk, as the agent does.
 *   MODE=loop              refresh forever, printing `refreshed <n>` after each (killed by the test)
 *   MODE=once              one refresh; prints `ok <scope>` and exits 0, or `error <code>: <message>`, exit 2
 *   MODE=die-after-rotate  one refresh that SIGKILLs itself after the server answered, before the
 *                          rotated tokens are written (the window a random kill can hit)
 */
import { refreshToken } from '../../src/client/oauth-client.js';
import { TokenStore, writeFileAtomic } from '../../src/client/token-store.js';
import { systemClock } from '../../src/lib/clock.js';
import { PrintRelayError } from '../../src/lib/errors.js';
import { silentLogger } from '../../src/log/logger.js';

const env = (name: string): string => {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is required`);
  return value;
};

const settings = { authUrl: env('AUTH_URL'), clientId: env('CLIENT_ID'), clientSecret: env('CLIENT_SECRET') };
const mode = env('MODE');
let answered = false;
const store = new TokenStore({
  path: env('TOKENS_FILE'),
  clock: systemClock,
  logger: silentLogger(),
  grants: {
    refresh: async (token, retryKey) => {
      const response = await refreshToken(settings, token, 'printing printing.connectors', retryKey);
      answered = true;
      return response;
    },
  },
  persist: (path, data) => {
    if (mode === 'die-after-rotate' && answered) process.kill(process.pid, 'SIGKILL');
    writeFileAtomic(path, data);
  },
});

async function refreshOnce(): Promise<string> {
  const current = store.current();
  if (current) store.invalidate(current.access_token);
  return store.token();
}

try {
  if (mode === 'loop') {
    for (let n = 1; ; n++) {
      await refreshOnce();
      process.stdout.write(`refreshed ${n}\n`);
    }
  }
  await refreshOnce();
  process.stdout.write(`ok ${store.current()?.scope ?? ''}\n`);
} catch (error) {
  const code = error instanceof PrintRelayError ? error.code : 'error';
  process.stdout.write(`error ${code}: ${error instanceof Error ? error.message : String(error)}\n`);
  process.exitCode = 2;
}
