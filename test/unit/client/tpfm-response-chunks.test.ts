import { describe, expect, it } from 'vitest';
import type { Dispatcher } from 'undici';
import { ResponseChunks } from '../../../src/client/tpfm-response-stream.js';

/** undici's controller as ResponseChunks uses it, recording the calls. */
function recordingController() {
  const calls: string[] = [];
  let paused = false;
  const controller = {
    get paused() {
      return paused;
    },
    get aborted() {
      return calls.includes('abort');
    },
    get reason() {
      return null;
    },
    pause() {
      paused = true;
      calls.push('pause');
    },
    resume() {
      paused = false;
      calls.push('resume');
    },
    abort() {
      calls.push('abort');
    },
  } as unknown as Dispatcher.DispatchController;
  return { controller, calls };
}

describe('ResponseChunks', () => {
  it('pauses the connection above 64 KiB unread and resumes once the reader is back under it', async () => {
    const { controller, calls } = recordingController();
    const chunks = new ResponseChunks(controller);
    const piece = Buffer.alloc(40 * 1024);
    chunks.push(piece);
    expect(calls).toEqual([]);
    chunks.push(piece);
    expect(calls).toEqual(['pause']);
    chunks.end();
    const reader = chunks[Symbol.asyncIterator]();
    await reader.next();
    expect(calls).toEqual(['pause', 'resume']);
    await reader.next();
    expect((await reader.next()).done).toBe(true);
    expect(calls).toEqual(['pause', 'resume']);
  });

  it('hands over chunks pushed while the reader waits, in order, then ends', async () => {
    const { controller } = recordingController();
    const chunks = new ResponseChunks(controller);
    const text = chunks.text();
    chunks.push(Buffer.from('1/2\r\n'));
    await Promise.resolve();
    chunks.push(Buffer.from('2/2\r\n'));
    chunks.end();
    expect(await text).toBe('1/2\r\n2/2\r\n');
  });

  it('throws the error the body ended with, after the chunks before it', async () => {
    const { controller } = recordingController();
    const chunks = new ResponseChunks(controller);
    chunks.push(Buffer.from('1/2\r\n'));
    chunks.end(new Error('socket hang up'));
    const seen: string[] = [];
    await expect(
      (async () => {
        for await (const chunk of chunks) seen.push(String(chunk));
      })(),
    ).rejects.toThrow('socket hang up');
    expect(seen).toEqual(['1/2\r\n']);
  });

  it('leaving the iteration early aborts the request', async () => {
    const { controller, calls } = recordingController();
    const chunks = new ResponseChunks(controller);
    chunks.push(Buffer.from('1/2\r\n'));
    for await (const _ of chunks) break;
    expect(calls).toEqual(['abort']);
  });

  it('destroy() aborts a running request once and not one that ended', () => {
    const running = recordingController();
    const open = new ResponseChunks(running.controller);
    open.destroy();
    open.destroy();
    expect(running.calls).toEqual(['abort']);
    const ended = recordingController();
    const done = new ResponseChunks(ended.controller);
    done.end();
    done.destroy();
    expect(ended.calls).toEqual([]);
  });
});
