import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Express } from 'express';

export interface Listening {
  server: Server;
  port: number;
  /** Stops accepting, lets in-flight requests finish (up to `timeoutMs`), then closes what is left. */
  close(timeoutMs?: number): Promise<void>;
}

export async function listen(app: Express, port: number, host: string, options: { requestTimeoutMs?: number } = {}): Promise<Listening> {
  // Slow or never-ending requests must not hold a connection forever: Node answers 408 and closes.
  const requestTimeout = options.requestTimeoutMs ?? 30_000;
  const server = createServer(
    {
      requestTimeout,
      headersTimeout: Math.min(requestTimeout, 20_000),
      connectionsCheckingInterval: Math.min(1000, requestTimeout / 4),
    },
    app,
  );
  server.listen(port, host);
  await new Promise<void>((resolve, reject) => {
    server.once('listening', resolve);
    server.once('error', reject);
  });
  server.keepAliveTimeout = 5_000;
  return {
    server,
    port: (server.address() as AddressInfo).port,
    close(timeoutMs = 10_000) {
      return new Promise<void>((resolve) => {
        const timer = setTimeout(() => server.closeAllConnections(), timeoutMs);
        server.close(() => {
          clearTimeout(timer);
          resolve();
        });
        server.closeIdleConnections();
      });
    },
  };
}
