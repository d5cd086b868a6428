/**
 * The HTTP/1.1 head of an IPP request (RFC 8010, section 3.4): a POST to the printer's path with
 * `Content-Type: application/ipp` and the exact `Content-Length` of the IPP message and document,
 * so the body needs no chunk framing. Pure; nothing to clean up.
 */
import type { IppTarget } from './ipp-target.js';

/** The head's text up to Content-Length's value, per target (the only part that changes is the length). */
const prefixes = new WeakMap<IppTarget, string>();

/**
 * The head of a request whose body is `contentLength` bytes. `close` asks the printer to close
 * the connection after its answer (a one-shot exchange); otherwise HTTP/1.1 keeps it open.
 */
export function requestHead(target: IppTarget, contentLength: number, close: boolean): Buffer {
  let prefix = prefixes.get(target);
  if (prefix === undefined) {
    const host = target.host.includes(':') ? `[${target.host}]` : target.host;
    prefix = `POST ${target.path} HTTP/1.1\r\nHost: ${host}:${target.port}\r\nContent-Type: application/ipp\r\nContent-Length: `;
    prefixes.set(target, prefix);
  }
  return Buffer.from(`${prefix}${contentLength}\r\n${close ? 'Connection: close\r\n' : ''}\r\n`, 'latin1');
}
