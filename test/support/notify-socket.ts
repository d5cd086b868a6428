/**
 * A stand-in for systemd's notification socket: `socat -u UNIX-RECV:PATH STDOUT` receives the
 * datagrams a process sends to NOTIFY_SOCKET and prints them, so a test can read exactly what
 * the agent told its service manager.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';

/** A listening notification socket; stop() ends socat. */
export class NotifySocket {
  received = '';
  private readonly child: ChildProcess;

  private constructor(readonly path: string) {
    this.child = spawn('socat', ['-u', `UNIX-RECV:${path}`, 'STDOUT'], {
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    this.child.stdout?.setEncoding('utf8').on('data', (chunk: string) => {
      this.received += chunk;
    });
  }

  /** Starts socat on `path` and waits until the socket file exists. */
  static async listen(path: string): Promise<NotifySocket> {
    const socket = new NotifySocket(path);
    while (!existsSync(path)) await new Promise((r) => setTimeout(r, 20));
    return socket;
  }

  /** The received lines, in order. */
  lines(): string[] {
    return this.received.split('\n').filter((line) => line !== '');
  }

  /** Waits until a received line matches. */
  async waitFor(pattern: RegExp): Promise<string> {
    for (;;) {
      const line = this.lines().find((l) => pattern.test(l));
      if (line !== undefined) return line;
      await new Promise((r) => setTimeout(r, 50));
    }
  }

  /** Counts the received lines equal to `line`. */
  count(line: string): number {
    return this.lines().filter((l) => l === line).length;
  }

  /** Ends socat (by its pid) and waits for it. */
  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) return;
    const exited = new Promise((resolve) => this.child.on('exit', resolve));
    this.child.kill('SIGTERM');
    await exited;
  }
}
