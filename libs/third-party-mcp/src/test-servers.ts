import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

export interface TestServer {
  url: string;
  /** Requests received, by method and path. */
  hits: string[];
  close(): Promise<void>;
}

/** An HTTP server on 127.0.0.1 answering with `handler`; `close` also drops held connections. */
export async function startHttp(handler: http.RequestListener): Promise<TestServer> {
  const hits: string[] = [];
  const server = http.createServer((req, res) => {
    hits.push(`${req.method} ${req.url}`);
    handler(req, res);
  });
  const sockets = new Set<Socket>();
  server.on('connection', (s) => {
    sockets.add(s);
    s.on('close', () => sockets.delete(s));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    hits,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

/**
 * A real MCP server (the SDK's, stateless, JSON answers) with two tools: `add`, open to anyone,
 * and `whoami`, which answers only with `Authorization: Bearer <token>`.
 */
export function startMcpServer(token: string, extraTools: string[] = []): Promise<TestServer> {
  return startHttp((req, res) => {
    const server = new McpServer({ name: 'test-server', version: '1.0.0' });
    server.registerTool(
      'add',
      {
        title: 'Add numbers',
        description: 'Adds two numbers',
        inputSchema: { a: z.number().describe('first'), b: z.number() },
        annotations: { readOnlyHint: true },
      },
      async ({ a, b }) => ({ content: [{ type: 'text', text: String(a + b) }], structuredContent: { sum: a + b } }),
    );
    server.registerTool('whoami', { description: 'Says who the caller is', inputSchema: { verbose: z.boolean().optional() } }, async (_args, extra) => {
      const auth = extra.requestInfo?.headers.authorization;
      if (auth !== `Bearer ${token}`) return { isError: true, content: [{ type: 'text', text: 'unauthorized' }] };
      return { content: [{ type: 'text', text: 'you are the test workspace' }] };
    });
    for (const name of extraTools) {
      server.registerTool(name, { description: 'extra' }, async () => ({ content: [{ type: 'text', text: name }] }));
    }
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    if (req.method !== 'POST') {
      res.writeHead(405, { allow: 'POST' }).end();
      return;
    }
    void server.connect(transport).then(() => transport.handleRequest(req, res));
  });
}
