/**
 * A TLS-terminating reverse proxy in front of a plain-HTTP server, as a site would put nginx in
 * front of the emulator: HTTPS on a loopback port, every request forwarded with
 * X-Forwarded-Proto/Host/Port. The caller calls close().
 */
import { request as httpRequest } from 'node:http';
import { createServer, type Server } from 'node:https';

/** A running proxy. */
export interface HttpsProxy {
  url: string;
  close(): Promise<void>;
}

/** Starts the proxy on 127.0.0.1:`port` forwarding to `target` (http://host:port). */
export async function startHttpsProxy(
  target: string,
  tls: { key: string; cert: string },
  port: number,
): Promise<HttpsProxy> {
  const upstream = new URL(target);
  const server: Server = createServer({ key: tls.key, cert: tls.cert }, (req, res) => {
    const headers = {
      ...req.headers,
      host: upstream.host,
      'x-forwarded-proto': 'https',
      'x-forwarded-host': req.headers.host ?? `localhost:${port}`,
      'x-forwarded-port': String(port),
    };
    const forward = httpRequest(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `https://localhost:${port}`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
