import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { routeOf, type HttpApp } from './routes';

/**
 * A reverse proxy for tests that routes as deploy/nginx.conf does (the same table, longest prefix wins),
 * passing the original Host and the client's address on, streaming both ways. With several instances of
 * an app it takes them in turn, and one that refuses the connection (stopped, killed) is skipped, as
 * nginx's `proxy_next_upstream error` does.
 */
export async function startPathProxy(ports: Record<HttpApp, number | readonly number[]>): Promise<{ url: string; port: number; routed: Map<HttpApp, number>; close(): Promise<void> }> {
  const routed = new Map<HttpApp, number>();
  const turn = new Map<HttpApp, number>();
  const server = http.createServer((req, res) => {
    const app = routeOf(new URL(req.url ?? '/', 'http://proxy').pathname);
    routed.set(app, (routed.get(app) ?? 0) + 1);
    const instances = ([] as number[]).concat(ports[app]);
    const first = turn.get(app) ?? 0;
    turn.set(app, first + 1);
    const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    // The body is read once; it is kept to be sent again only when an instance refused the connection.
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => attempt(0));
    const attempt = (tried: number) => {
      const port = instances[(first + tried) % instances.length]!;
      const upstream = http.request(
        { host: '127.0.0.1', port, method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-for': forwardedFor, 'x-forwarded-proto': 'http' } },
        (answer) => {
          res.writeHead(answer.statusCode ?? 502, answer.headers);
          answer.pipe(res);
        },
      );
      upstream.on('error', (error: NodeJS.ErrnoException) => {
        if (error.code === 'ECONNREFUSED' && tried + 1 < instances.length && !res.headersSent) return attempt(tried + 1);
        if (!res.headersSent) res.writeHead(502).end();
        else res.destroy();
      });
      upstream.end(Buffer.concat(chunks));
    };
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://localhost:${port}`,
    port,
    routed,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
}
