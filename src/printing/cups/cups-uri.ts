/**
 * cups:// printer URIs: `cups://QUEUE` for a queue of the local CUPS server, or
 * `cups://QUEUE?server=HOST:PORT` for another CUPS server (tests run a private cupsd on a free
 * port). The queue name is read from the raw URI, not URL.hostname, so its case survives.
 * Pure; nothing to clean up.
 */
import { ValidationError } from '../../lib/errors.js';

/** Where a CUPS queue lives. */
export interface CupsTarget {
  /** The queue name as CUPS knows it (lp -d). */
  queue: string;
  /** CUPS server host (default localhost). */
  host: string;
  /** CUPS server port (default 631). */
  port: number;
  /** True when the URI named a server (then lp gets `-h host:port`). */
  explicitServer: boolean;
  /** CUPS's own IPP endpoint of the queue: ipp://host:port/printers/QUEUE. */
  ippUri: string;
}

const QUEUE_RULE = 'queue name must be 1-127 printable characters without space, tab, slash, #, ? or quotes';

/** Parses a cups:// URI; ValidationError naming `uri` for anything else. */
export function parseCupsUri(uri: string): CupsTarget {
  const match = /^cups:\/\/([^/?#]*)\/?(?:\?([^#]*))?$/i.exec(uri);
  if (!match)
    throw new ValidationError(
      'uri',
      'must look like cups://QUEUE[?server=HOST:PORT]',
      `uri: not a cups:// URI: ${uri}`,
    );
  const queue = decodeURIComponent(match[1] ?? '');
  if (!isValidQueueName(queue))
    throw new ValidationError('uri', QUEUE_RULE, `uri: ${QUEUE_RULE} (got "${queue}")`);
  const params = new URLSearchParams(match[2] ?? '');
  for (const key of params.keys()) {
    if (key !== 'server')
      throw new ValidationError('uri', `unknown cups:// parameter '${key}' (known: server)`);
  }
  const server = params.get('server');
  const { host, port } = server === null ? { host: 'localhost', port: 631 } : parseServer(server);
  return {
    queue,
    host,
    port,
    explicitServer: server !== null,
    ippUri: `ipp://${host.includes(':') ? `[${host}]` : host}:${port}/printers/${encodeURIComponent(queue)}`,
  };
}

/** The cups:// URI of a queue on a server (the server parameter only when not localhost:631). */
export function cupsUri(queue: string, server?: { host: string; port: number }): string {
  const base = `cups://${encodeURIComponent(queue)}`;
  if (!server || (server.host === 'localhost' && server.port === 631)) return base;
  return `${base}?server=${server.host}:${server.port}`;
}

/** CUPS's rule for queue names (lpadmin): printable, no space, /, #, quotes or backslash. */
export function isValidQueueName(name: string): boolean {
  return name.length > 0 && name.length < 128 && !/[\s/\\#?'"\u0000-\u001f\u007f]/.test(name);
}

function parseServer(server: string): { host: string; port: number } {
  const match = /^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)(?::(\d{1,5}))?$/i.exec(server);
  const port = match?.[2] === undefined ? 631 : Number(match[2]);
  if (!match?.[1] || port < 1 || port > 65535) {
    const rule = 'server must be HOST or HOST:PORT (port 1-65535)';
    throw new ValidationError('uri', rule, `uri: ${rule} (got "${server}")`);
  }
  return { host: match[1].replace(/^\[|\]$/g, ''), port };
}
