/**
 * How `printrelay demo` knows its printer is ready for apps: the cloud id the agent registered
 * for the demo printer, then GetPrinter asked as the demo user until it lists that printer.
 */
import type { RegisteredPrinter } from '../agent/connector/registration.js';
import { DEMO } from '../config/load-config.js';
import { sleep, throwIfAborted } from '../lib/abort.js';
import type { Clock } from '../lib/clock.js';
import { errorMessage } from '../lib/errors.js';
import { CliError } from './cli-runtime.js';

/**
 * The cloud id of the demo printer the agent registered and serves; a CliError saying what
 * went wrong and how to fix it when the agent could not register it.
 */
export function servedDemoPrinter(
  printers: RegisteredPrinter[],
  problems: string[],
  dataDir: string,
): string {
  const served = printers.find((p) => p.config.name === DEMO.printer.name);
  if (served) return served.cloudId;
  const why = problems.length > 0 ? problems.join('; ') : 'the printer sync registered no printer';
  throw new CliError(
    `the agent could not register "${DEMO.printer.name}": ${why}. ` +
      `Fix: start the demo with a fresh --data-dir (this one is ${dataDir}), ` +
      'or see "Printer identity" in docs/configuration.md',
  );
}

/**
 * Polls GetPrinter as the demo user until the printer the agent serves (`cloudId`) is listed
 * under the demo name; returns its cloud id.
 */
export async function waitForPrinter(
  url: string,
  cloudId: string,
  wait: { timeoutMs: number; clock: Clock; signal?: AbortSignal | undefined; ca?: string | undefined },
): Promise<string> {
  const { timeoutMs, clock, signal } = wait;
  const deadline = clock.now() + timeoutMs;
  let lastProblem = 'not listed yet';
  while (clock.now() < deadline) {
    throwIfAborted(signal);
    try {
      const id = await findDemoPrinter(url, wait.ca);
      if (id === cloudId) return id;
      lastProblem = id
        ? `GetPrinter lists "${DEMO.printer.name}" as ${id}, but the agent serves ${cloudId}`
        : `"${DEMO.printer.name}" not listed by GetPrinter yet`;
    } catch (error) {
      lastProblem = errorMessage(error);
    }
    await sleep(200, signal);
  }
  throw new CliError(
    `the demo printer did not become available within ${timeoutMs / 1000} s: ${lastProblem}`,
  );
}

/** The cloud id GetPrinter lists for the demo printer, asked as the demo user an app would. */
async function findDemoPrinter(url: string, ca: string | undefined): Promise<string | undefined> {
  const { passwordSession } = await import('../client/oauth-client.js');
  const { SfapiClient } = await import('../client/sfapi-client.js');
  const settings = { authUrl: url, clientId: DEMO.client.id, clientSecret: DEMO.client.secret, ca };
  const { http } = await passwordSession(settings, DEMO.user.email, DEMO.user.password, 'printing', 10_000);
  try {
    const list = await new SfapiClient(http).getPrinters();
    return list.find((p) => p.name === DEMO.printer.name)?.id;
  } finally {
    await http.close();
  }
}
