/**
 * The bench's baseline: a bare MCP SDK server, stateless with JSON responses like ours, with no auth,
 * no database and no limits. Its two tools answer the exact payloads our server gave for the same
 * calls (read from the JSON file named by argv[2]), so both sides serialise the same bytes.
 * Prints its URL on stdout once listening.
 */
import { readFileSync } from 'node:fs';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';

const answers = JSON.parse(readFileSync(process.argv[2]!, 'utf8')) as Record<'get_products' | 'read_source', Record<string, unknown>>;

function buildServer() {
  const server = new McpServer({ name: 'bare', version: '1.0.0' }, { capabilities: { tools: {} } });
  const answer = (value: Record<string, unknown>) => ({ content: [{ type: 'text' as const, text: JSON.stringify(value) }], structuredContent: value });
  server.registerTool('get_products', { description: 'Products', inputSchema: {} }, async () => answer(answers.get_products));
  server.registerTool('read_source', { description: 'A source', inputSchema: { source_id: z.string().min(1).max(128), offset: z.number().int().min(0).optional() } }, async () => answer(answers.read_source));
  return server;
}

const app = express();
app.use(express.json({ limit: '1mb' }));
app.post('/mcp', async (req, res) => {
  const server = buildServer();
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
  res.on('close', () => {
    void transport.close();
    void server.close();
  });
  await server.connect(transport);
  await transport.handleRequest(req, res, req.body);
});
const listening = app.listen(0, '127.0.0.1', () => {
  console.log(`http://127.0.0.1:${(listening.address() as AddressInfo).port}/mcp`);
});
process.once('SIGTERM', () => listening.close(() => process.exit(0)));
