import { spawn } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { sendSwipe } from '../../src/cardreader/socket/socket-reader.js';
import { freePort } from '../support/peers.js';
import { runCli } from './cli-process.js';

describe('printrelay card probe and swipe (the real CLI)', () => {
  it('probes one swipe sent with printrelay swipe, side by side', async () => {
    const uri = `socket://127.0.0.1:${await freePort()}`;
    const probe = spawn(
      process.execPath,
      ['bin/printrelay.js', 'card', 'probe', '--reader', uri, '--transform', 'reverse-bytes'],
      {
        stdio: ['ignore', 'pipe', 'pipe'],
      },
    );
    let stdout = '';
    let stderr = '';
    probe.stdout.on('data', (d) => {
      stdout += d.toString();
    });
    probe.stderr.on('data', (d) => {
      stderr += d.toString();
    });
    const exited = new Promise<number | null>((resolve) => probe.on('exit', resolve));
    await expect.poll(() => stderr, { timeout: 20_000 }).toContain(`swipe a card at ${uri}`);
    const swipe = spawn(process.execPath, ['bin/printrelay.js', 'swipe', '04A1B2C3', '--reader', uri], {
      stdio: 'pipe',
    });
    let swipeOut = '';
    swipe.stdout.on('data', (d) => {
      swipeOut += d.toString();
    });
    const swiped = new Promise<number | null>((resolve) => swipe.on('exit', resolve));
    expect(await swiped).toBe(0);
    // the probe answers the waiting swipe before it closes the reader
    expect(swipeOut).toBe(
      'read by printrelay card probe (its terminal shows the conversions); nothing released\n',
    );
    expect(await exited).toBe(0);
    expect(stdout).toMatch(/^raw: 04A1B2C3$/m);
    expect(stdout).toMatch(/^reverse-bytes\s+C3B2A104$/m);
    expect(stdout).toMatch(/^hex2dec\s+77705923$/m);
    // The reader is gone once probe exits.
    await expect(sendSwipe(uri, '1')).rejects.toThrow(/ECONNREFUSED/);
  });

  it('card probe --value and card profiles print JSON with --json', async () => {
    const probe = await runCli([
      'card',
      'probe',
      '--value',
      '04A1B2C3',
      '--transform',
      'reverse-bytes',
      '--json',
    ]);
    expect(probe.code).toBe(0);
    const document = JSON.parse(probe.stdout) as {
      raw: string;
      conversions: { chain: string; result?: string }[];
    };
    expect(document.raw).toBe('04A1B2C3');
    expect(document.conversions).toContainEqual({ chain: 'reverse-bytes', result: 'C3B2A104' });
    expect(document.conversions).toContainEqual({ chain: 'hex2dec', result: '77705923' });
    const profiles = await runCli(['card', 'profiles', '--json']);
    expect(profiles.code).toBe(0);
    const list = JSON.parse(profiles.stdout) as {
      id: string;
      connection: string;
      usb: { vendorId: string }[];
    }[];
    expect(list.find((p) => p.id === 'rfideas-pcprox')).toMatchObject({
      connection: 'hid-keyboard',
      usb: [
        { vendorId: '0c27', productId: '3bfa' },
        { vendorId: '0c27', productId: '3b0a' },
      ],
    });
  }, 60_000);

  it('refuses a swipe without a number', async () => {
    const swipe = spawn(process.execPath, ['bin/printrelay.js', 'swipe'], {
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    swipe.stderr.on('data', (d) => {
      stderr += d.toString();
    });
    const code = await new Promise<number | null>((resolve) => swipe.on('exit', resolve));
    expect(code).toBe(1);
    expect(stderr).toContain('give a card number or --remove');
  });
});
