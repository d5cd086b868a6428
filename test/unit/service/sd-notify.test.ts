import { describe, expect, it } from 'vitest';
import { silentLogger } from '../../../src/log/logger.js';
import {
  type DatagramSender,
  notifyMessage,
  notifySettings,
  SdNotifier,
} from '../../../src/service/sd-notify.js';

describe('notifySettings', () => {
  it.each([
    [{}, {}],
    [{ NOTIFY_SOCKET: '/run/systemd/notify' }, { socketPath: '/run/systemd/notify' }],
    [
      { NOTIFY_SOCKET: '/run/systemd/notify', WATCHDOG_USEC: '30000000' },
      { socketPath: '/run/systemd/notify', watchdogIntervalMs: 15000 },
    ],
    [
      { NOTIFY_SOCKET: '/run/systemd/notify', WATCHDOG_USEC: '30000000', WATCHDOG_PID: '42' },
      { socketPath: '/run/systemd/notify', watchdogIntervalMs: 15000 },
    ],
    [
      { NOTIFY_SOCKET: '/run/systemd/notify', WATCHDOG_USEC: '30000000', WATCHDOG_PID: '43' },
      { socketPath: '/run/systemd/notify' },
    ],
    [{ NOTIFY_SOCKET: '/s', WATCHDOG_USEC: 'soon' }, { socketPath: '/s' }],
    [
      { NOTIFY_SOCKET: '@/org/freedesktop/systemd1/notify' },
      {
        problem:
          'NOTIFY_SOCKET=@/org/freedesktop/systemd1/notify: only socket paths are supported (no abstract or vsock addresses)',
      },
    ],
  ])('%j -> %j', (env, expected) => {
    expect(notifySettings(env, 42)).toEqual(expected);
  });
});

describe('SdNotifier', () => {
  it('sends one datagram per notification, status on one line', () => {
    const sent: string[] = [];
    const sender: DatagramSender = {
      send: (buf, offset, length, path, callback) => {
        sent.push(`${path}|${buf.subarray(offset, offset + length).toString()}`);
        callback?.();
      },
      close: () => {},
    };
    const notifier = new SdNotifier(sender, '/run/n', 500, silentLogger());
    notifier.ready('up');
    notifier.status('waiting\nfor the cloud');
    notifier.watchdog();
    notifier.stopping('bye');
    expect(sent).toEqual([
      '/run/n|READY=1\nSTATUS=up\n',
      '/run/n|STATUS=waiting for the cloud\n',
      '/run/n|WATCHDOG=1\n',
      '/run/n|STOPPING=1\nSTATUS=bye\n',
    ]);
    expect(notifier.watchdogIntervalMs).toBe(500);
  });

  it('never throws when the manager is gone', () => {
    const sender: DatagramSender = {
      send: (_b, _o, _l, _p, callback) => callback?.(new Error('send -111')),
      close: () => {},
    };
    const notifier = new SdNotifier(sender, '/run/n', undefined, silentLogger());
    expect(() => notifier.watchdog()).not.toThrow();
  });

  it('builds messages of KEY=VALUE lines', () => {
    expect(notifyMessage({ READY: '1', STATUS: 'a\r\nb' })).toBe('READY=1\nSTATUS=a b\n');
  });
});
