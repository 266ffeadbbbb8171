import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerPost } from './post-transport';

/** A server with one tool (`echo`), a tool that throws a protocol error (`refuse`), and one that fails (`crash`). */
function buildServer() {
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} }, instructions: 'test' });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name === 'refuse') throw new McpError(-32602, 'refused');
    if (request.params.name === 'crash') throw new Error('crashed');
    await new Promise((r) => setTimeout(r, Number(request.params.arguments?.wait ?? 0)));
    return { content: [{ type: 'text', text: JSON.stringify(request.params.arguments ?? null) }], structuredContent: { echoed: request.params.arguments ?? null } };
  });
  return server;
}

/** The same server behind the SDK's own transport, stateless with JSON answers, on loopback. */
let sdk: http.Server;
let sdkUrl: string;

beforeAll(async () => {
  sdk = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await buildServer().connect(transport);
    await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString()));
  });
  await new Promise<void>((r) => sdk.listen(0, '127.0.0.1', r));
  sdkUrl = `http://127.0.0.1:${(sdk.address() as AddressInfo).port}/mcp`;
});

afterAll(async () => {
  sdk.closeAllConnections();
  await new Promise((r) => sdk.close(r));
});

const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'c', version: '1' } } };
const call = (id: number | string, name: string, args?: unknown) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, ...(args === undefined ? {} : { arguments: args }) } });
const notification = { jsonrpc: '2.0', method: 'notifications/initialized' };

const BODIES: Record<string, unknown> = {
  initialize: init,
  'tools/list': { jsonrpc: '2.0', id: 'a', method: 'tools/list' },
  'tools/call': call(2, 'echo', { say: 'hi' }),
  'a protocol error from the handler': call(3, 'refuse'),
  'a handler that throws': call(4, 'crash'),
  'arguments that are not an object': call(5, 'echo', 'text'),
  'an unknown method': { jsonrpc: '2.0', id: 6, method: 'resources/list' },
  ping: { jsonrpc: '2.0', id: 7, method: 'ping' },
  'a notification alone': notification,
  'a response from the client': { jsonrpc: '2.0', id: 9, result: {} },
  'a batch of requests answered out of order, and a notification': [call(10, 'echo', { wait: 30 }), notification, call(11, 'echo', { wait: 0 })],
  'a batch of notifications': [notification, notification],
  'a batch with an initialize': [init, call(12, 'echo')],
  'a batch of 101': Array.from({ length: 101 }, (_, i) => call(100 + i, 'echo')),
  'a batch of 100': Array.from({ length: 100 }, (_, i) => call(100 + i, 'echo')),
  'not a JSON-RPC message': { hello: 'world' },
  'a batch with one message that is not JSON-RPC': [call(13, 'echo'), { jsonrpc: '1.0', id: 14, method: 'x' }],
  'an empty batch': [],
  'null id': { jsonrpc: '2.0', id: null, method: 'tools/list' },
};

describe('answerPost: the handshake era without the SDK\'s HTTP transport', () => {
  it.each(Object.keys(BODIES))('answers %s as the SDK\'s stateless JSON transport does', async (name) => {
    const body = BODIES[name];
    const theirs = await fetch(sdkUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify(body),
    });
    const theirBody = theirs.status === 202 ? undefined : await theirs.json();
    const ours = await answerPost(buildServer(), body);
    expect({ status: ours.status, body: ours.body === undefined ? undefined : JSON.parse(JSON.stringify(ours.body)) }).toEqual({ status: theirs.status, body: theirBody });
  });
});
