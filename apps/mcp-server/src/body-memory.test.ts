import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawPost, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

// Issue 23 item 8: bodies in flight had no cap beyond 75 MB each; ~25 concurrent 65 MB add_source
// calls would exhaust the heap. Here the process may hold 1 MB of bodies at once.
const BUDGET = 1024 * 1024;
let h: McpHarness;
let w: Workspace;
beforeAll(async () => {
  h = await startMcpServer({ bodyMemoryBytes: BUDGET });
  w = await seedWorkspace(h);
});
afterAll(() => h.close());

/** A tools/list request padded to `bytes` of JSON. */
const padded = (bytes: number) => {
  const head = '{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"_meta":{"pad":"';
  const tail = '"}}}';
  return head + 'x'.repeat(bytes - head.length - tail.length) + tail;
};

/** Starts a POST of `body` and sends only its first `sent` bytes; `finish()` sends the rest and answers the status. */
function slowPost(body: string, sent: number) {
  const url = new URL(h.endpoint);
  const req = http.request({
    host: url.hostname, port: url.port, path: url.pathname, method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': w.key, 'content-length': Buffer.byteLength(body) },
  });
  const answered = new Promise<number>((resolve, reject) => {
    req.on('response', (res) => {
      res.resume();
      res.on('end', () => resolve(res.statusCode ?? 0));
    });
    req.on('error', reject);
  });
  req.write(body.slice(0, sent));
  return { finish: () => (req.end(body.slice(sent)), answered) };
}

describe('memory of request bodies in flight', () => {
  it('past the budget a request is answered 503 with Retry-After, and served again once bodies are answered', async () => {
    const first = slowPost(padded(800 * 1024), 100 * 1024);
    await new Promise((r) => setTimeout(r, 200)); // its declared 800 KB reserved
    const refused = await rawPost(h, JSON.parse(padded(400 * 1024)), { 'x-api-key': w.key });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(((await refused.json()) as any).error.message).toMatch(/^Service busy: .*nothing was done\. Retry in 5 seconds\.$/);
    // Small requests still fit beside it.
    expect((await rawPost(h, { jsonrpc: '2.0', id: 2, method: 'tools/list' }, { 'x-api-key': w.key })).status).toBe(200);
    expect(await first.finish()).toBe(200);
    expect((await rawPost(h, JSON.parse(padded(400 * 1024)), { 'x-api-key': w.key })).status).toBe(200);
    // Two in a row that each fit alone: the budget was given back after each answer.
    expect((await rawPost(h, JSON.parse(padded(900 * 1024)), { 'x-api-key': w.key })).status).toBe(200);
    expect((await rawPost(h, JSON.parse(padded(900 * 1024)), { 'x-api-key': w.key })).status).toBe(200);
  });
});
