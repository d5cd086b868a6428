/**
 * Helpers of the pull-printing e2e tests and the release benchmark: signing in as a demo user,
 * holding a document in the "Pull Printing" queue through /sfapi (exactly as an app prints),
 * pairing a printer as a pull printer, claiming a registration code, finding a document at the
 * printer by its bytes, and a socat pseudo-terminal pair for a serial card reader.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HttpClient } from '../../src/client/http-base.js';
import { fetchPasswordToken } from '../../src/client/oauth-client.js';
import { SfapiClient } from '../../src/client/sfapi-client.js';
import { DEMO } from '../../src/config/demo-seed.js';
import { sleep } from '../../src/lib/abort.js';

/** The queue printer every organization has. */
export const QUEUE_PRINTER = 'Pull Printing';

/** An app signed in with the password grant (scope printing). */
export interface AppSession {
  sfapi: SfapiClient;
  token: string;
  close(): Promise<void>;
}

/** Signs a demo account in as the demo app would; the caller closes the session. */
export async function signIn(url: string, email: string, password: string): Promise<AppSession> {
  const answer = await fetchPasswordToken(
    { authUrl: url, clientId: DEMO.client.id, clientSecret: DEMO.client.secret },
    email,
    password,
    'printing',
  );
  const http = new HttpClient({
    baseUrl: url,
    timeoutMs: 120_000,
    tokens: { token: async () => answer.access_token, invalidate: () => {} },
  });
  return { sfapi: new SfapiClient(http), token: answer.access_token, close: () => http.close() };
}

/** The id GetPrinter lists for a printer name (throws when it is not listed). */
export async function printerIdOf(sfapi: SfapiClient, name: string): Promise<string> {
  const printer = (await sfapi.getPrinters()).find((p) => p.name === name);
  if (!printer) throw new Error(`printer "${name}" is not listed by GetPrinter`);
  return printer.id;
}

/** Prints a PDF to the queue printer (PrepareUpload, upload, Print); returns the held job id. */
export async function holdDocument(sfapi: SfapiClient, file: string, alias: string): Promise<string> {
  const queueId = await printerIdOf(sfapi, QUEUE_PRINTER);
  const { fileid, sasUri } = await sfapi.prepareUpload();
  await sfapi.upload(sasUri, file, () => {});
  const { jobid } = await sfapi.print({ fileid, type: 'pdf', alias, printerid: queueId });
  return jobid;
}

async function postJson(
  url: string,
  token: string,
  body: unknown,
): Promise<{ status: number; json: unknown }> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, json: await response.json().catch(() => undefined) };
}

/** The admin pairs a release station's code with a printer: it becomes that printer's pull password. */
export async function pairPullPrinter(url: string, printerId: string, code: string): Promise<void> {
  const admin = await signIn(url, DEMO.admin.email, DEMO.admin.password);
  try {
    const answer = await postJson(
      `${url}/printing/v1/printers/${printerId}/pull_printing_pairing/`,
      admin.token,
      {
        code,
      },
    );
    if (answer.status !== 200)
      throw new Error(`pairing answered ${answer.status}: ${JSON.stringify(answer.json)}`);
  } finally {
    await admin.close();
  }
}

/** The signed-in user claims a printed registration code through the portal API. */
export async function claimCode(url: string, token: string, code: string) {
  return postJson(`${url}/v1/users/me/cards/claim/`, token, { code });
}

/** Waits until a file in `dir` satisfies `match`; returns its path. */
export async function waitForDocument(
  dir: string,
  match: (bytes: Buffer) => boolean,
  timeoutMs = 30_000,
): Promise<string> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    for (const name of existsSync(dir) ? readdirSync(dir) : []) {
      const path = join(dir, name);
      try {
        if (match(readFileSync(path))) return path;
      } catch {
        // A file being written or removed right now: looked at again on the next round.
      }
    }
    if (Date.now() > deadline) throw new Error(`no matching document appeared in ${dir}`);
    await sleep(25);
  }
}

/** The six-digit code of a registration sheet printed for `printerName`, if `bytes` is one. */
export function registrationCodeIn(bytes: Buffer, printerName: string): string | undefined {
  const text = bytes.toString('latin1');
  if (!text.includes('register your card') || !text.includes(`Printer: ${printerName})`)) return undefined;
  return /\((\d{6})\) Tj/.exec(text)?.[1];
}

/** A socat pty pair: the reader opens `reader`, the test writes swipes into `test`. */
export interface PtyPair {
  reader: string;
  test: string;
  stop(): Promise<void>;
}

/** Starts `socat` with two linked pseudo-terminals in `dir`; the caller stops it. */
export async function startPtyPair(dir: string): Promise<PtyPair> {
  const reader = join(dir, 'ttyREADER');
  const test = join(dir, 'ttyTEST');
  const proc: ChildProcess = spawn(
    'socat',
    [`pty,raw,echo=0,link=${reader}`, `pty,raw,echo=0,link=${test}`],
    { stdio: 'ignore' },
  );
  const deadline = Date.now() + 10_000;
  while (!(existsSync(reader) && existsSync(test))) {
    if (proc.exitCode !== null || Date.now() > deadline) throw new Error('socat did not create the pty pair');
    await sleep(20);
  }
  return {
    reader,
    test,
    async stop() {
      if (proc.exitCode !== null || proc.signalCode !== null) return;
      const exited = new Promise((resolve) => proc.once('exit', resolve));
      proc.kill('SIGTERM');
      await exited;
    },
  };
}
