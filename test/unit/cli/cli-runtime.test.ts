import { EventEmitter } from 'node:events';
import { describe, expect, it } from 'vitest';
import {
  CliError,
  logPrettyDefault,
  onReloadSignal,
  onShutdownSignals,
  parseIntegerOption,
  parseListenAddress,
  underSystemd,
} from '../../../src/cli/cli-runtime.js';
import { silentLogger } from '../../../src/log/logger.js';

describe('parseListenAddress', () => {
  it.each([
    ['127.0.0.1:8080', { host: '127.0.0.1', port: 8080 }],
    ['0.0.0.0:0', { host: '0.0.0.0', port: 0 }],
    ['localhost:631', { host: 'localhost', port: 631 }],
    ['[::1]:9000', { host: '::1', port: 9000 }],
    [':8080', { host: '127.0.0.1', port: 8080 }],
  ])('%s', (value, expected) => {
    expect(parseListenAddress(value)).toEqual(expected);
  });

  it.each(['8080', 'host:', 'host:70000', 'host:port', '::1:80'])('rejects %s naming the option', (value) => {
    expect(() => parseListenAddress(value)).toThrow(/^--listen: expected host:port/);
  });
});

describe('parseIntegerOption', () => {
  it('accepts whole numbers within bounds', () => {
    expect(parseIntegerOption('--copies', '3', 1, 999)).toBe(3);
  });
  it.each(['0', '1000', '2.5', 'two', ''])('rejects %j', (value) => {
    expect(() => parseIntegerOption('--copies', value, 1, 999)).toThrow(CliError);
  });
});

describe('onShutdownSignals', () => {
  function setup(drain: () => Promise<void>, forceAfterMs = 60_000) {
    const target = new EventEmitter();
    const exits: number[] = [];
    const remove = onShutdownSignals(drain, {
      logger: silentLogger(),
      target,
      exit: (code) => exits.push(code),
      forceAfterMs,
    });
    return { target, exits, remove };
  }

  it('drains on the first signal, then exits 0', async () => {
    let drained = false;
    const { target, exits } = setup(async () => {
      drained = true;
    });
    target.emit('SIGTERM', 'SIGTERM');
    await new Promise((r) => setImmediate(r));
    expect(drained).toBe(true);
    expect(exits).toEqual([0]);
  });

  it('writes its one stopped line once the drain finished', async () => {
    const target = new EventEmitter();
    const written: string[] = [];
    const exits: number[] = [];
    onShutdownSignals(async () => {}, {
      logger: silentLogger(),
      target,
      exit: (code) => exits.push(code),
      stoppedLine: 'stopped: the demo is down',
      output: { write: (text: string) => written.push(text) },
    });
    target.emit('SIGINT', 'SIGINT');
    await new Promise((r) => setImmediate(r));
    expect(written).toEqual(['stopped: the demo is down\n']);
    expect(exits).toEqual([0]);
  });

  it('a second signal forces exit 130 while the drain still runs', async () => {
    let release: () => void = () => {};
    const { target, exits } = setup(() => new Promise<void>((r) => (release = r)));
    target.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([]);
    target.emit('SIGINT', 'SIGINT');
    expect(exits).toEqual([130]);
    release();
  });

  it('a drain that outlasts the timeout exits 1', async () => {
    const { target, exits } = setup(() => new Promise<void>(() => {}), 5);
    target.emit('SIGTERM', 'SIGTERM');
    await new Promise((r) => setTimeout(r, 50));
    expect(exits).toEqual([1]);
  });

  it('a failing drain exits 1; removed handlers no longer react', async () => {
    const { target, exits, remove } = setup(async () => {
      throw new Error('boom');
    });
    target.emit('SIGTERM', 'SIGTERM');
    await new Promise((r) => setImmediate(r));
    expect(exits).toEqual([1]);
    remove();
    expect(target.listenerCount('SIGTERM')).toBe(0);
  });
});

describe('logs under systemd', () => {
  it.each([
    [{ JOURNAL_STREAM: '8:12345' }, true, { pretty: false }],
    [{ INVOCATION_ID: 'abc' }, undefined, { pretty: false }],
    [{}, true, { pretty: true }],
    [{}, undefined, {}],
  ])('env %j with pretty %s in the file -> %j', (env, fromFile, expected) => {
    expect(logPrettyDefault(fromFile, env)).toEqual(expected);
    expect(underSystemd(env)).toBe(Object.keys(env).length > 0);
  });
});

describe('onReloadSignal', () => {
  it('runs one reload per SIGHUP, one at a time, with one more after a signal during a reload', async () => {
    const target = new EventEmitter();
    const starts: number[] = [];
    let release: (() => void) | undefined;
    let calls = 0;
    const remove = onReloadSignal(
      () => {
        starts.push(++calls);
        return new Promise<void>((resolve) => {
          release = resolve;
        });
      },
      { logger: silentLogger(), target },
    );
    target.emit('SIGHUP');
    target.emit('SIGHUP');
    target.emit('SIGHUP');
    expect(starts).toEqual([1]);
    release?.();
    await new Promise((r) => setImmediate(r));
    expect(starts).toEqual([1, 2]);
    release?.();
    await new Promise((r) => setImmediate(r));
    expect(starts).toEqual([1, 2]);
    remove();
    target.emit('SIGHUP');
    expect(starts).toEqual([1, 2]);
  });
});
