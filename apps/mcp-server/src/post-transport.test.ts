import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, McpError } from '@modelcontextprotocol/sdk/types.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerPost, MCP_BATCH_IN_FLIGHT, MCP_MAX_BATCH_MESSAGES, SDK_MAX_BATCH_SIZE } from './post-transport';

/** What the tools of the servers below did: calls run, and the most running at once. */
const ran = { calls: [] as unknown[], running: 0, most: 0 };

/** A server with one tool (`echo`), a tool that throws a protocol error (`refuse`), and one that fails (`crash`). */
function buildServer() {
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} }, instructions: 'test' });
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: [{ name: 'echo', inputSchema: { type: 'object' } }] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => {
    if (request.params.name === 'refuse') throw new McpError(-32602, 'refused');
    if (request.params.name === 'crash') throw new Error('crashed');
    ran.calls.push(request.params.arguments ?? null);
    ran.most = Math.max(ran.most, ++ran.running);
    await new Promise((r) => setTimeout(r, Number(request.params.arguments?.wait ?? 0)));
    ran.running--;
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
    const ours = await answerPost(buildServer(), body, { maxBatch: SDK_MAX_BATCH_SIZE, inFlight: SDK_MAX_BATCH_SIZE });
    expect({ status: ours.status, body: ours.body === undefined ? undefined : JSON.parse(JSON.stringify(ours.body)) }).toEqual({ status: theirs.status, body: theirBody });
  });
});

const cancel = (requestId: number | string) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'user' } });

describe('answerPost: batches (issue 41 finding 4)', () => {
  const fresh = () => Object.assign(ran, { calls: [], running: 0, most: 0 });

  it(`refuses a batch over ${MCP_MAX_BATCH_MESSAGES} messages with 400 -32600 naming the limit, running none of it`, async () => {
    fresh();
    const answer = await answerPost(buildServer(), Array.from({ length: MCP_MAX_BATCH_MESSAGES + 1 }, (_, i) => call(i + 1, 'echo')));
    expect(answer).toEqual({
      status: 400,
      body: { jsonrpc: '2.0', id: null, error: { code: -32600, message: expect.stringMatching(new RegExp(`^Invalid Request: Batch must not exceed ${MCP_MAX_BATCH_MESSAGES} messages \\(this one has ${MCP_MAX_BATCH_MESSAGES + 1}\\); nothing was run`)) } },
    });
    expect(ran.calls).toEqual([]);
    expect((await answerPost(buildServer(), Array.from({ length: MCP_MAX_BATCH_MESSAGES }, (_, i) => call(i + 1, 'echo')))).status).toBe(200);
  });

  it(`runs at most ${MCP_BATCH_IN_FLIGHT} requests of a batch at once, answering all in their order`, async () => {
    fresh();
    const answer = await answerPost(buildServer(), Array.from({ length: 12 }, (_, i) => call(i + 1, 'echo', { wait: 10 + (i % 3) * 5 })));
    expect(ran.calls).toHaveLength(12);
    expect(ran.most).toBe(MCP_BATCH_IN_FLIGHT);
    expect((answer.body as { id: number }[]).map((a) => a.id)).toEqual(Array.from({ length: 12 }, (_, i) => i + 1));
  });

  it('answers a batch holding a call and its cancellation at once: the cancelled call is not run and not answered', async () => {
    fresh();
    const started = Date.now();
    const answer = await answerPost(buildServer(), [call(1, 'echo', { wait: 5000, n: 1 }), cancel(1), call(2, 'echo', { n: 2 })]);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(answer.status).toBe(200);
    expect((answer.body as { id: number }[]).map((a) => a.id)).toEqual([2]);
    expect(ran.calls).toEqual([{ n: 2 }]);
    // Nothing left to answer: 202, as for notifications alone. A cancellation before its request cancels it too.
    expect(await answerPost(buildServer(), [call(3, 'echo', { wait: 5000 }), cancel(3)])).toEqual({ status: 202 });
    expect(await answerPost(buildServer(), [cancel('x'), call('x', 'echo')])).toEqual({ status: 202 });
    expect(ran.calls).toEqual([{ n: 2 }]);
    // A cancellation of a request not in the batch changes nothing.
    expect((await answerPost(buildServer(), [call(4, 'echo'), cancel(99)])).body).toMatchObject([{ id: 4, result: {} }]);
  });

  it('refuses a batch whose requests share an id (a cancellation could not say which it means)', async () => {
    fresh();
    const answer = await answerPost(buildServer(), [call(1, 'echo'), call(1, 'echo')]);
    expect(answer).toMatchObject({ status: 400, body: { id: null, error: { code: -32600, message: expect.stringMatching(/^Invalid Request: the id 1 is used by more than one request/) } } });
    expect(ran.calls).toEqual([]);
  });

  it('asks admit to count every message, runs those admitted and answers the requests past them with its error', async () => {
    fresh();
    const counted: number[] = [];
    const error = { code: -32000, message: 'Rate limit exceeded: this message of the batch was not run.', data: { retryAfter: 60 } };
    const admit = async (n: number) => (counted.push(n), { admitted: 3, error });
    const answer = await answerPost(buildServer(), [call(1, 'echo', { n: 1 }), notification, call(2, 'echo', { n: 2 }), call(3, 'echo', { n: 3 }), call(4, 'echo', { n: 4 })], { admit });
    expect(counted).toEqual([5]);
    expect(ran.calls).toEqual([{ n: 1 }, { n: 2 }]);
    expect(answer.body).toEqual([
      expect.objectContaining({ id: 1, result: expect.anything() }),
      expect.objectContaining({ id: 2, result: expect.anything() }),
      { jsonrpc: '2.0', id: 3, error },
      { jsonrpc: '2.0', id: 4, error },
    ]);
    // A single message was counted with its POST: admit is not asked.
    await answerPost(buildServer(), call(5, 'echo'), { admit });
    expect(counted).toEqual([5]);
  });

  it('runs nothing more of a batch once the client is gone', async () => {
    fresh();
    const gone = new AbortController();
    const answering = answerPost(buildServer(), Array.from({ length: 10 }, (_, i) => call(i + 1, 'echo', { wait: 50 })), { signal: gone.signal });
    await new Promise((r) => setTimeout(r, 10));
    gone.abort();
    await answering;
    expect(ran.calls).toHaveLength(MCP_BATCH_IN_FLIGHT);
  });
});
