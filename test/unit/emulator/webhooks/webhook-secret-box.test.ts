import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { SecretBox } from '../../../../src/emulator/webhooks/webhook-secret-box.js';

describe('SecretBox', () => {
  it('opens what it sealed, with a fresh IV each time', () => {
    const box = SecretBox.ephemeral();
    const a = box.seal('pässword:1');
    const b = box.seal('pässword:1');
    expect(a).not.toBe(b);
    expect([box.open(a), box.open(b)]).toEqual(['pässword:1', 'pässword:1']);
  });
  it('refuses an altered value and a value of another key', () => {
    const box = SecretBox.ephemeral();
    const sealed = box.seal('secret');
    const parts = sealed.split('.');
    parts[3] = Buffer.from('SECRET').toString('base64url');
    expect(() => box.open(parts.join('.'))).toThrow();
    expect(() => SecretBox.ephemeral().open(sealed)).toThrow();
    expect(() => box.open('plain')).toThrow('not a sealed webhook secret');
  });
  it('keeps its key in the data directory, so a second open reads the first seal', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'secret-box-'));
    try {
      const sealed = (await SecretBox.open(dir)).seal('kept');
      expect((await SecretBox.open(dir)).open(sealed)).toBe('kept');
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
