/**
 * A raw connector channel WebSocket for emulator tests: opens GET /connector/v1/channel with a
 * bearer token (and X-Host-Id), records every frame in order, waits for a matching one, sends
 * agent messages. The caller closes the socket.
 */
import { WebSocket } from 'ws';
import type { AgentMessage, ServerMessage } from '../../src/protocol/connector-channel.js';
import type { Harness } from '../integration/emulator-harness.js';

/** A frame the channel received: a message, or a binary frame (an inline document). */
export interface Frame {
  message?: ServerMessage;
  binary?: Buffer;
}

/** A channel that records every frame, text or binary, in order. */
export async function openChannel(h: Harness, bearer: string, query = '', hostId?: string) {
  const socket = new WebSocket(`${h.baseUrl.replace('http', 'ws')}/connector/v1/channel${query}`, {
    headers: { authorization: `Bearer ${bearer}`, ...(hostId ? { 'x-host-id': hostId } : {}) },
  });
  const frames: Frame[] = [];
  const listeners: (() => void)[] = [];
  socket.on('message', (data, isBinary) => {
    const bytes = Buffer.from(data as Buffer);
    frames.push(isBinary ? { binary: bytes } : { message: JSON.parse(bytes.toString()) as ServerMessage });
    for (const l of listeners.splice(0)) l();
  });
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  );
  /** Resolves with the index of the first frame from `from` on that matches. */
  const waitFor = async (match: (f: Frame) => boolean, from = 0): Promise<number> => {
    for (;;) {
      const i = frames.findIndex((f, k) => k >= from && match(f));
      if (i >= 0) return i;
      await new Promise<void>((resolve) => listeners.push(resolve));
    }
  };
  const send = (message: AgentMessage) => socket.send(JSON.stringify(message));
  await new Promise<void>((resolve, reject) => {
    socket.once('open', () => resolve());
    socket.once('error', reject);
  });
  return { socket, frames, waitFor, send, closed };
}

/** Matches a frame holding a message of `type`. */
export const ofType = (type: string) => (f: Frame) => f.message?.type === type;
