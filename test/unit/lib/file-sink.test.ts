import { createHash } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough, Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FILE_CHUNK, fileSink, pourInto } from '../../../src/lib/file-sink.js';

describe('fileSink', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'file-sink-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  const chunks = Array.from({ length: 40 }, (_, i) => Buffer.alloc(65_536 + i, i));
  const whole = Buffer.concat(chunks);

  it('writes every chunk in order and hashes the same bytes in the same pass', async () => {
    const path = join(dir, 'doc');
    const hash = createHash('sha256');
    await pipeline(Readable.from(chunks), fileSink(path, { onChunk: (chunk) => hash.update(chunk) }));
    expect(readFileSync(path).equals(whole)).toBe(true);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(whole).digest('hex'));
    expect(whole.length).toBeGreaterThan(2 * FILE_CHUNK);
  });

  it('hashes every chunk in file order with the hash option, the same bytes it writes', async () => {
    const path = join(dir, 'doc');
    const hash = createHash('sha256');
    let counted = 0;
    await pipeline(
      Readable.from(chunks),
      fileSink(path, { hash, onChunk: (chunk) => (counted += chunk.length) }),
    );
    expect(readFileSync(path).equals(whole)).toBe(true);
    expect(counted).toBe(whole.length);
    expect(hash.digest('hex')).toBe(createHash('sha256').update(whole).digest('hex'));
  });

  it('appends to what is there when resuming, replaces it otherwise', async () => {
    const path = join(dir, 'doc');
    writeFileSync(path, 'head-');
    await pipeline(Readable.from([Buffer.from('tail')]), fileSink(path, { append: true }));
    expect(readFileSync(path, 'utf8')).toBe('head-tail');
    await pipeline(Readable.from([Buffer.from('new')]), fileSink(path));
    expect(readFileSync(path, 'utf8')).toBe('new');
  });

  it('a failing source ends the pipeline with its error and destroys the writer', async () => {
    const path = join(dir, 'doc');
    async function* failing() {
      yield Buffer.from('part');
      throw new Error('connection reset');
    }
    const writer = fileSink(path);
    await expect(pipeline(Readable.from(failing()), writer)).rejects.toThrow('connection reset');
    expect(writer.destroyed).toBe(true);
  });

  it('an onChunk that throws fails the stream with its error', async () => {
    const path = join(dir, 'doc');
    const writer = fileSink(path, {
      onChunk: () => {
        throw new Error('too large');
      },
    });
    await expect(pipeline(Readable.from([Buffer.from('x')]), writer)).rejects.toThrow('too large');
    expect(readFileSync(path, 'utf8')).toBe('');
  });
});

describe('pourInto', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'pour-'));
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  it('resolves once the file is written and closed', async () => {
    const path = join(dir, 'whole');
    await pourInto(Readable.from([Buffer.from('abc'), Buffer.from('def')]), fileSink(path));
    expect(readFileSync(path, 'utf8')).toBe('abcdef');
  });

  it('leaves the source readable when the sink fails, so its rest can still be read', async () => {
    const source = new PassThrough();
    let seen = 0;
    const sink = fileSink(join(dir, 'limited'), {
      onChunk: (chunk) => {
        seen += chunk.length;
        if (seen > 4) throw new Error('too large');
      },
    });
    source.write('12345');
    const poured = pourInto(source, sink);
    await expect(poured).rejects.toThrow('too large');
    expect(source.destroyed).toBe(false);
    // The rest is still there for the caller (an upload route drains it and answers).
    const rest: string[] = [];
    source.on('data', (chunk: Buffer) => rest.push(chunk.toString()));
    source.resume();
    source.end('rest');
    await new Promise((resolve) => source.once('end', resolve));
    expect(rest.join('')).toBe('rest');
  });

  it('rejects and closes the sink when the source closes before its end', async () => {
    const source = new PassThrough();
    const sink = fileSink(join(dir, 'cut'));
    const poured = pourInto(source, sink);
    source.write('part');
    source.destroy();
    await expect(poured).rejects.toThrow('the body ended before it was complete');
    expect(sink.destroyed).toBe(true);
  });

  it('rejects with the source error', async () => {
    const source = new PassThrough();
    const poured = pourInto(source, fileSink(join(dir, 'failed')));
    source.destroy(new Error('connection reset'));
    await expect(poured).rejects.toThrow('connection reset');
  });
});
