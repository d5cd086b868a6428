// The part of the unix-dgram package (a CommonJS native addon without its own types) that
// sd-notify.ts uses.
declare module 'unix-dgram' {
  import type { EventEmitter } from 'node:events';

  /** An AF_UNIX SOCK_DGRAM socket. */
  interface UnixDgramSocket extends EventEmitter {
    /** Sends one datagram to `path`; the callback gets an error, a 'congestion' one when the receiver is full. */
    send(buf: Buffer, offset: number, length: number, path: string, callback?: (error?: Error) => void): void;
    close(): void;
  }

  export function createSocket(type: 'unix_dgram', listener?: (msg: Buffer) => void): UnixDgramSocket;
}
