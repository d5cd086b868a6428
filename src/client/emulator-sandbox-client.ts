/**
 * A client of a running emulator's sandbox (/_emulator/faults and /_emulator/clock), for the
 * `printrelay emulator faults|clock` commands. Without a token it is the local developer (the
 * emulator must run on this machine); with one, an organization admin. Refusals throw
 * SandboxCallError with the emulator's message; an unreachable emulator throws with the URL.
 */
import { request } from 'undici';
import { PrintRelayError } from '../lib/errors.js';

/** A fault rule as the emulator lists it (its fields as given plus id, hits, remaining, ends). */
export type FaultRuleWire = Record<string, unknown> & { id: string; hits: number };

/** The emulator's clock. */
export interface ClockWire {
  now: string;
  offset_s: number;
}

/** The emulator refused a call, or could not be reached. */
export class SandboxCallError extends PrintRelayError {
  constructor(message: string) {
    super('sandbox_call_failed', message);
  }
}

/** Calls one emulator; holds no connection between calls. */
export class EmulatorSandboxClient {
  private readonly base: string;

  constructor(
    baseUrl: string,
    private readonly token?: string,
  ) {
    this.base = baseUrl.replace(/\/+$/, '');
  }

  listFaults(): Promise<FaultRuleWire[]> {
    return this.call('GET', '/_emulator/faults');
  }

  /** Adds one rule or an array of them (all or none). */
  addFaults(rules: unknown): Promise<FaultRuleWire[]> {
    return this.call('POST', '/_emulator/faults', rules);
  }

  removeFault(id: string): Promise<void> {
    return this.call('DELETE', `/_emulator/faults/${encodeURIComponent(id)}`);
  }

  clearFaults(): Promise<{ removed: number }> {
    return this.call('DELETE', '/_emulator/faults');
  }

  clock(): Promise<ClockWire> {
    return this.call('GET', '/_emulator/clock');
  }

  advanceClock(seconds: number): Promise<ClockWire> {
    return this.call('POST', '/_emulator/clock', { advance_s: seconds });
  }

  private async call<T>(method: 'GET' | 'POST' | 'DELETE', path: string, body?: unknown): Promise<T> {
    const headers: Record<string, string> = {};
    if (this.token) headers['authorization'] = `Bearer ${this.token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res: Awaited<ReturnType<typeof request>>;
    try {
      res = await request(`${this.base}${path}`, {
        method,
        headers,
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code ?? (error as Error).message;
      throw new SandboxCallError(`cannot reach the emulator at ${this.base} (${code}): is it running there?`);
    }
    const text = await res.body.text();
    const data = text === '' ? undefined : parseJson(text);
    if (res.statusCode === 404 && path.startsWith('/_emulator/') && !path.startsWith('/_emulator/faults/'))
      throw new SandboxCallError(
        `the emulator at ${this.base} has no fault switchboard or test clock (started with --no-faults?)`,
      );
    if (res.statusCode >= 400) {
      const message = (data as { message?: unknown } | undefined)?.message;
      throw new SandboxCallError(typeof message === 'string' ? message : `HTTP ${res.statusCode}`);
    }
    return data as T;
  }
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
