import http from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A loopback reverse proxy that adds `headers` (a credential) to every request and passes
 * everything else through unchanged, Host and Origin included, so the server's own checks
 * (DNS-rebinding protection) still see what the client sent. For clients that cannot send
 * credentials, such as the MCP conformance suite.
 */
export async function startCredentialProxy(target: string, headers: Record<string, string>) {
  const upstream = new URL(target);
  const server = http.createServer((req, res) => {
    const forwarded = http.request(
      { host: upstream.hostname, port: upstream.port, method: req.method, path: req.url, headers: { ...req.headers, ...headers } },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forwarded.on('error', (error) => {
      if (!res.headersSent) res.writeHead(502, { 'content-type': 'text/plain' });
      res.end(`proxy: ${error.message}`);
    });
    req.pipe(forwarded);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
