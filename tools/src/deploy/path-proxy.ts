import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { routeOf, type HttpApp } from './routes';

/**
 * A reverse proxy for tests that routes as deploy/nginx.conf does (the same table, longest prefix wins),
 * passing the original Host and the client's address on, streaming both ways.
 */
export async function startPathProxy(ports: Record<HttpApp, number>): Promise<{ url: string; port: number; routed: Map<HttpApp, number>; close(): Promise<void> }> {
  const routed = new Map<HttpApp, number>();
  const server = http.createServer((req, res) => {
    const app = routeOf(new URL(req.url ?? '/', 'http://proxy').pathname);
    routed.set(app, (routed.get(app) ?? 0) + 1);
    const forwardedFor = [req.headers['x-forwarded-for'], req.socket.remoteAddress].filter(Boolean).join(', ');
    const upstream = http.request(
      { host: '127.0.0.1', port: ports[app], method: req.method, path: req.url, headers: { ...req.headers, 'x-forwarded-for': forwardedFor, 'x-forwarded-proto': 'http' } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => {
      if (!res.headersSent) res.writeHead(502).end();
      else res.destroy();
    });
    req.pipe(upstream);
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
