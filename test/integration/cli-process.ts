/**
 * Runs `node bin/printrelay.js ...` as a child process for the CLI integration tests: collects
 * output, waits for a line, and stops the process by its id (SIGTERM, then SIGKILL).
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

/**
 * What the tests run: bin/printrelay.js (the sources, through tsx), or with PRINTRELAY_TEST_CLI
 * another entry, such as a bundle's dist/cli/main.js (docs/packaging.md: the CLI tests run on the
 * bundle that way).
 */
const bin = process.env.PRINTRELAY_TEST_CLI ?? join(import.meta.dirname, '..', '..', 'bin', 'printrelay.js');

/** A running printrelay process. */
export class CliProcess {
  stdout = '';
  stderr = '';
  readonly exited: Promise<number | null>;
  private readonly child: ChildProcess;

  /**
   * Runs `node bin/printrelay.js ...args`; with a `launcher` (a command and its arguments ending
   * in the node to use, e.g. setpriv to run as another user), runs `...launcher ...args` instead.
   */
  constructor(args: string[], env: Record<string, string> = {}, launcher?: string[]) {
    const [command, ...prefix] = launcher ?? [process.execPath, bin];
    this.child = spawn(command as string, [...prefix, ...args], {
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stdout += chunk;
    });
    this.child.stderr?.setEncoding('utf8').on('data', (chunk: string) => {
      this.stderr += chunk;
    });
    this.exited = new Promise((resolve) => this.child.on('exit', (code) => resolve(code)));
  }

  /** Resolves with the first stdout match; rejects when the process exits first. */
  async waitFor(pattern: RegExp): Promise<RegExpMatchArray> {
    let exited = false;
    void this.exited.then(() => {
      exited = true;
    });
    for (;;) {
      const match = pattern.exec(this.stdout);
      if (match) return match;
      if (exited) {
        throw new Error(`process exited before ${pattern}:\nstdout: ${this.stdout}\nstderr: ${this.stderr}`);
      }
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** The process id (for /proc/<pid>/... views of its namespaces). */
  get pid(): number {
    return this.child.pid as number;
  }

  /** Sends a signal to this process only. */
  signal(signal: NodeJS.Signals): void {
    if (this.child.exitCode === null && this.child.signalCode === null) this.child.kill(signal);
  }

  /** Stops the process (SIGTERM; SIGKILL if it is still there after 10 s) and waits for it. */
  async stop(): Promise<number | null> {
    this.signal('SIGTERM');
    const timer = setTimeout(() => this.signal('SIGKILL'), 10_000);
    const code = await this.exited;
    clearTimeout(timer);
    return code;
  }
}

/** Runs a command to the end; returns exit code and output. */
export async function runCli(args: string[], env: Record<string, string> = {}) {
  const cli = new CliProcess(args, env);
  const code = await cli.exited;
  await new Promise((r) => setImmediate(r));
  return { code, stdout: cli.stdout, stderr: cli.stderr };
}

/**
 * Starts `printrelay emulator` with an in-memory database on `listen` (default: a free port) and
 * waits for its URL (without the trailing slash). The caller stops the process.
 */
export async function startEmulatorProcess(dataDir: string, listen = '127.0.0.1:0', extra: string[] = []) {
  const process = new CliProcess([
    'emulator',
    '--listen',
    listen,
    '--db',
    ':memory:',
    '--data-dir',
    dataDir,
    ...extra,
  ]);
  try {
    const url = (await process.waitFor(/^listening on (http:\/\/\S+)$/m))[1]!.replace(/\/$/, '');
    return { process, url };
  } catch (error) {
    await process.stop();
    throw error;
  }
}
