/**
 * A TCP proxy on 127.0.0.1 in front of a server, switched on and off by a test: while off it
 * resets every connection at once (the cloud unreachable), and switching off also cuts the
 * connections already open. close() stops it.
 */
import { createServer, type Server, type Socket, connect } from 'node:net';

export interface SwitchableProxy {
  url: string;
  /** Whether connections pass. */
  online: boolean;
  close(): Promise<void>;
}

/** Starts a proxy to `target` (http://host:port); returns its own http://127.0.0.1:port URL. */
export async function startSwitchableProxy(target: string): Promise<SwitchableProxy> {
  const { hostname, port } = new URL(target);
  const open = new Set<Socket>();
  let online = true;
  const server: Server = createServer((client) => {
    if (!online) {
      client.resetAndDestroy();
      return;
    }
    const upstream = connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      open.add(s);
      s.on('close', () => open.delete(s));
      s.on('error', () => {
        client.destroy();
        upstream.destroy();
      });
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const own = typeof address === 'object' && address ? address.port : 0;
  return {
    url: `http://127.0.0.1:${own}`,
    get online() {
      return online;
    },
    set online(value: boolean) {
      online = value;
      if (!value) for (const s of open) s.destroy();
    },
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of open) s.destroy();
        server.close(() => resolve());
      }),
  };
}
