/**
 * `printrelay demo` end to end as a user runs it: the real process on a free port with a temp
 * data directory, `printrelay print` against it, the copy-paste curl sequence from its banner,
 * and the document found in <dir>/printed byte for byte.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PDFDocument } from 'pdf-lib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writePdf } from '../support/pdf.js';
import { peersAvailable } from '../support/peers.js';
import { CliProcess, runCli } from './cli-process.js';

const dir = mkdtempSync(join(tmpdir(), 'printrelay-demo-'));
const dataDir = join(dir, 'demo');
let demo: CliProcess;
let url: string;

async function twoPagePdf(): Promise<Buffer> {
  const pdf = await PDFDocument.create();
  pdf.addPage([595, 842]).drawText('PrintRelay demo test, page 1', { x: 50, y: 780 });
  pdf.addPage([595, 842]).drawText('page 2', { x: 50, y: 780 });
  return Buffer.from(await pdf.save());
}

/** Waits until a file with exactly these bytes is in the printed folder; returns its name. */
async function waitForPrinted(content: Buffer): Promise<string> {
  for (;;) {
    const printed = join(dataDir, 'printed');
    for (const name of readdirSync(printed)) {
      const bytes = readFileSync(join(printed, name));
      if (bytes.equals(content)) return name;
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

beforeAll(async () => {
  demo = new CliProcess(['demo', '--port', '0', '--data-dir', dataDir]);
  await demo.waitFor(/^ready\b.*$/m);
  url = (await demo.waitFor(/Cloud emulator\s+(http:\/\/\S+)/))[1]!;
}, 120_000);

afterAll(async () => {
  const code = await demo?.stop();
  rmSync(dir, { recursive: true, force: true });
  expect(code).toBe(0);
});

describe('printrelay demo', () => {
  it('announces the demo credentials and the printed folder', () => {
    expect(demo.stdout).toContain(join(dataDir, 'printed'));
    expect(demo.stdout).toContain('alice@demo.test / demo-alice');
    expect(demo.stdout).toContain('demo-app / demo-secret');
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
  });

  it('printrelay print sends a PDF that lands in <dir>/printed unchanged', async () => {
    const pdf = await twoPagePdf();
    const file = join(dir, 'two-pages.pdf');
    writeFileSync(file, pdf);
    const result = await runCli([
      'print',
      file,
      '--printer',
      'Demo Printer',
      '--url',
      url,
      '--poll-ms',
      '100',
      '--copies',
      '1',
    ]);
    expect(result.stderr).toContain('submitted to "Demo Printer"');
    expect(result).toMatchObject({ code: 0 });
    expect(result.stdout).toMatch(/^printed: job \S+, \d+ page\(s\)$/m);
    expect(await waitForPrinted(pdf)).toMatch(/\.pdf$/);
  });

  it('reports the pages it printed: page ranges counted once, times copies; a text file counts too', async () => {
    const six = await writePdf(join(dir, 'six.pdf'), 6, 'pages');
    const ranged = await runCli([
      'print',
      six,
      '--printer',
      'Demo Printer',
      '--url',
      url,
      '--poll-ms',
      '100',
      '--pages',
      '5,1-3,2',
      '--copies',
      '2',
    ]);
    expect(ranged.stdout).toMatch(/^printed: job \S+, 8 page\(s\)\n$/);
    const readme = join(import.meta.dirname, '..', '..', 'README.md');
    const text = await runCli([
      'print',
      readme,
      '--printer',
      'Demo Printer',
      '--url',
      url,
      '--poll-ms',
      '100',
    ]);
    expect(text.code).toBe(0);
    const lines = readFileSync(readme, 'utf8').replace(/\n$/, '').split('\n').length;
    expect(text.stdout).toBe(
      `printed: job ${/job (\S+),/.exec(text.stdout)?.[1]}, ${Math.ceil(lines / 66)} page(s)\n`,
    );
  });

  it('printrelay print fails clearly for an unknown printer', async () => {
    const file = join(dir, 'note.txt');
    writeFileSync(file, 'hello\n');
    const result = await runCli(['print', file, '--printer', 'No Such Printer', '--url', url]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(
      'error: --printer: no printer named "No Such Printer" (available: "Demo Printer", "Pull Printing")',
    );
  });

  it('printrelay print fails clearly with wrong credentials', async () => {
    const file = join(dir, 'note.txt');
    writeFileSync(file, 'hello\n');
    const result = await runCli([
      'print',
      file,
      '--printer',
      'Demo Printer',
      '--url',
      url,
      '--password',
      'wrong',
    ]);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^error: sign-in at .* as alice@demo\.test \(client demo-app\) failed: /m);
  });

  it('the curl sequence of the banner prints a file', async () => {
    if (!peersAvailable('curl')) return;
    const start = demo.stdout.indexOf('Or as an app would');
    const lines = demo.stdout.slice(start).split('\n').slice(1);
    const script = lines
      .slice(
        0,
        lines.findIndex((l) => l.trim() === ''),
      )
      .map((l) => l.replace(/^ {2}/, ''));
    const work = mkdtempSync(join(dir, 'curl-'));
    const output = await new Promise<string>((resolve, reject) => {
      execFile(
        'bash',
        ['-euo', 'pipefail', '-c', script.join('\n')],
        { cwd: work },
        (error, stdout, stderr) =>
          error ? reject(new Error(`${error.message}\n${stderr}`)) : resolve(stdout),
      );
    });
    expect(output).toMatch(/"jobstatus":\s*(0|129|1246)\b/);
    expect(await waitForPrinted(Buffer.from('Hello from PrintRelay\n'))).toMatch(/\.txt$/);
  });
});

describe('printrelay demo on a taken port', () => {
  let server: Server;
  beforeAll(async () => {
    server = createServer();
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
  });

  it('says so clearly and exits non-zero', async () => {
    const address = server.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const result = await runCli(['demo', '--port', String(port), '--data-dir', join(dir, 'taken')]);
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(`port ${port} on 127.0.0.1 is already in use`);
  });
});

/** Runs one line of a banner with bash in the checkout, as a user pasting it would. */
async function runBannerLine(line: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const checkout = join(import.meta.dirname, '..', '..');
  return new Promise((resolve) => {
    execFile('bash', ['-c', line], { cwd: checkout }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

/** The banner line that prints to "Demo Printer" with printrelay print, without its indent. */
function bannerPrintLine(banner: string): string {
  const line = banner.split('\n').find((l) => /^\s+node bin\/printrelay\.js print .*"Demo Printer"/.test(l));
  if (!line) throw new Error(`no print line in the banner:\n${banner}`);
  return line.trim();
}

describe('printrelay demo restarted on the same data directory', () => {
  const restartDir = mkdtempSync(join(tmpdir(), 'printrelay-restart-'));
  afterAll(() => rmSync(restartDir, { recursive: true, force: true }));

  it('is ready again and the banner print command prints the sample document (Status 0)', async () => {
    const data = join(restartDir, 'demo');
    const first = new CliProcess(['demo', '--port', '0', '--data-dir', data]);
    await first.waitFor(/^ready\b/m);
    const firstId = (await first.waitFor(/cloud id (\S+)\)/))[1];
    first.signal('SIGINT'); // Ctrl+C: one line, exit 0
    expect(await first.exited).toBe(0);
    expect(first.stdout.split('\n').slice(-3)).toEqual([
      'ready: the demo accepts print jobs (Ctrl+C stops it)',
      `stopped: the demo is down; its data stays in ${data}`,
      '',
    ]);
    expect(first.stderr).toBe('');

    const second = new CliProcess(['demo', '--port', '0', '--data-dir', data]);
    try {
      await second.waitFor(/^ready\b/m);
      expect((await second.waitFor(/cloud id (\S+)\)/))[1]).toBe(firstId);
      const line = bannerPrintLine(second.stdout);
      expect(line).toMatch(
        /^node bin\/printrelay\.js print docs\/sample\.pdf --printer "Demo Printer" --url /,
      );
      const result = await runBannerLine(line);
      expect(result.stderr).toContain('status 0 PRINTED|COMPLETE| pages 2/2');
      expect(result).toMatchObject({ code: 0 });
      expect(result.stdout).toMatch(/^printed: job \S+, 2 page\(s\)\n$/);
      const sample = readFileSync(join(import.meta.dirname, '..', '..', 'docs', 'sample.pdf'));
      const jobId = /^printed: job (\S+),/.exec(result.stdout)?.[1];
      // the printed file carries the job id the user was shown and the document's own name
      const names = readdirSync(join(data, 'printed'));
      const name = names.find((n) => n.endsWith(`-printrelay-${jobId}-sample.pdf`));
      expect(name).toMatch(/^\d+-printrelay-[0-9a-f-]{36}-sample\.pdf$/);
      expect(readFileSync(join(data, 'printed', name as string)).equals(sample)).toBe(true);
      expect(second.stdout).not.toContain('must be unique');
    } finally {
      expect(await second.stop()).toBe(0);
    }
  }, 120_000);
});

describe('printrelay --help', () => {
  it.each([
    ['demo', 'warn'],
    ['emulator', 'info'],
    ['agent', 'log.level of the config file, else info'],
  ])('%s shows the default of --log-level', async (command, level) => {
    const result = await runCli([command, '--help']);
    expect(result.code).toBe(0);
    expect(result.stdout.replace(/\s+/g, ' ')).toContain(
      `--log-level <level> trace, debug, info, warn, error, fatal or silent (default: ${level}; or PRINTRELAY_LOG_LEVEL)`,
    );
  });
});
