/**
 * "Sent" means the printer has it: the agent records a document as sent (and a crash afterwards
 * never sends it again) only once every byte went to the kernel and the printer answered the
 * request that carried it. A child process submits to a real printer (ippeveprinter) and SIGKILLs
 * itself inside the sent callback; the printer must still end up with the whole document, through
 * Send-Document (after Create-Job) and through Print-Job. The same holds for the earlier
 * "flushed" fact (every byte with the operating system, the printer's answer not yet seen), which
 * recovery relies on when the printer cannot tell how much of a document it got.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLogger } from '../../src/log/logger.js';
import { IppBackend } from '../../src/printing/ipp/ipp-backend.js';
import { isFinalJobState } from '../../src/printing/printer-backend.js';
import { type RunningIppEvePrinter, startIppEvePrinter } from '../support/ippeveprinter.js';
import { peersAvailable } from '../support/peers.js';

const childScript = join(import.meta.dirname, 'document-sent-child.ts');
/** Not a multiple of 1 KiB, like most real documents; large enough to need many socket writes. */
const DOCUMENT_BYTES = 98_313;
/**
 * A small document (at most ONE_WRITE_MAX_BYTES): from memory after Create-Job it goes on the
 * kept-open connection in one write with its request head.
 */
const SMALL_DOCUMENT_BYTES = 5_003;
const enabled = peersAvailable('ippeveprinter');

function runChild(env: Record<string, string>): Promise<{ out: string; signal: NodeJS.Signals | null }> {
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', childScript], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let out = '';
  child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
    out += chunk;
  });
  return new Promise((resolve) => child.on('exit', (_code, signal) => resolve({ out, signal })));
}

describe.runIf(enabled)('a document is recorded sent only once the printer has all of it', () => {
  let printer: RunningIppEvePrinter;
  let dir: string;
  let documentPath: string;
  let smallDocumentPath: string;
  let backend: IppBackend;

  beforeAll(async () => {
    printer = await startIppEvePrinter({ name: 'Sent Rule Printer' });
    dir = mkdtempSync(join(tmpdir(), 'sent-rule-'));
    documentPath = join(dir, 'document.bin');
    writeFileSync(documentPath, randomBytes(DOCUMENT_BYTES));
    smallDocumentPath = join(dir, 'small.bin');
    writeFileSync(smallDocumentPath, randomBytes(SMALL_DOCUMENT_BYTES));
    backend = new IppBackend(printer.uri, { logger: createLogger({ level: 'silent', pretty: false }) });
  });

  afterAll(async () => {
    await backend?.close();
    await printer?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /**
   * Bytes of the document the printer kept for the job named `jobName` once the job ended there,
   * or what the printer shows instead: a cut Print-Job leaves no job at ippeveprinter, and a cut
   * Send-Document leaves its job waiting for the rest of the document (`job-data-insufficient`).
   */
  async function keptAtPrinter(jobName: string): Promise<string> {
    const deadline = Date.now() + 10_000;
    let seen = 'no job of that name';
    while (Date.now() < deadline) {
      const found = await backend.findJobByName(jobName);
      const state = found ? await backend.jobState(found.printerJobId) : undefined;
      if (state && isFinalJobState(state.state)) {
        // -k keeps what arrived as <printer job id>-<job name>.dat (beside the print command's output).
        const kept = readdirSync(printer.spoolDir).filter((name) => name.endsWith(`-${jobName}.dat`));
        return kept.map((name) => statSync(join(printer.spoolDir, name)).size).join(', ');
      }
      if (state) seen = `job ${state.state} (${state.reasons.join(', ')})`;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    return seen;
  }

  for (const [mode, from] of [
    ['create-job', 'file'],
    ['print-job', 'file'],
    ['create-job', 'memory'],
    ['print-job', 'memory'],
    ['create-job', 'memory, one write'],
  ] as const) {
    for (const callback of ['sent', 'flushed'] as const) {
      it(`${mode} from ${from}: killed inside the ${callback} callback, the printer still has every byte`, async () => {
        const small = from === 'memory, one write';
        const jobName = `sent-rule-${mode}-${small ? 'small' : from}-${callback}`;
        const { out, signal } = await runChild({
          MODE: mode,
          FROM_MEMORY: from === 'file' ? '0' : '1',
          CALLBACK: callback,
          PRINTER_URI: printer.uri,
          DOCUMENT_PATH: small ? smallDocumentPath : documentPath,
          JOB_NAME: jobName,
        });
        expect([out.trim(), signal]).toEqual([callback, 'SIGKILL']);
        expect(await keptAtPrinter(jobName)).toBe(String(small ? SMALL_DOCUMENT_BYTES : DOCUMENT_BYTES));
      });
    }
  }
});
