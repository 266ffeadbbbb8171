import http from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { rawPost, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

let h: McpHarness;
let w: Workspace;
beforeAll(async () => {
  h = await startMcpServer();
  w = await seedWorkspace(h);
});
afterAll(() => h.close());

const list = { jsonrpc: '2.0', id: 1, method: 'tools/list' };
const init = (version = '2025-06-18') => ({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: version, capabilities: {}, clientInfo: { name: 't', version: '1' } } });

describe('HTTP rules of the MCP endpoint (spec 4.1, 7.2)', () => {
  it('answers a stateless initialize with JSON and no session id', async () => {
    const res = await rawPost(h, init(), { 'x-api-key': w.key });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toContain('application/json');
    expect(res.headers.get('mcp-session-id')).toBeNull();
    const body = (await res.json()) as any;
    expect(body.result.serverInfo.name).toBe('loupe');
    expect(body.result.capabilities).toMatchObject({ tools: {}, prompts: {} });
  });

  it.each(['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'])('accepts MCP-Protocol-Version %s', async (v) => {
    expect((await rawPost(h, list, { 'x-api-key': w.key, 'mcp-protocol-version': v })).status).toBe(200);
  });

  it('400 for any other MCP-Protocol-Version, on initialize too', async () => {
    for (const body of [list, init()]) {
      const res = await rawPost(h, body, { 'x-api-key': w.key, 'mcp-protocol-version': '2099-01-01' });
      expect(res.status).toBe(400);
      expect(((await res.json()) as any).error.message).toContain('MCP-Protocol-Version');
    }
  });

  it('405 with JSON-RPC -32000 for GET and DELETE', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(h.endpoint, { method, headers: { 'x-api-key': w.key } });
      expect(res.status).toBe(405);
      expect(((await res.json()) as any).error.code).toBe(-32000);
    }
  });

  it('406 when Accept lacks one of the two types', async () => {
    for (const accept of ['application/json', 'text/event-stream', '*/*']) {
      const res = await rawPost(h, list, { 'x-api-key': w.key, accept });
      expect(res.status).toBe(406);
      expect(((await res.json()) as any).jsonrpc).toBe('2.0');
    }
  });

  it('415 when Content-Type is not application/json', async () => {
    const res = await rawPost(h, list, { 'x-api-key': w.key, 'content-type': 'text/plain' });
    expect(res.status).toBe(415);
    expect(((await res.json()) as any).error).toBeDefined();
  });

  it('400 with a JSON-RPC error for malformed JSON and for a body that is not JSON-RPC', async () => {
    const bad = await rawPost(h, '{"jsonrpc": "2.0", "id": 1, "method": ', { 'x-api-key': w.key });
    expect(bad.status).toBe(400);
    expect(((await bad.json()) as any).error.code).toBe(-32700);
    const notRpc = await rawPost(h, { hello: 'world' }, { 'x-api-key': w.key });
    expect(notRpc.status).toBe(400);
    expect(((await notRpc.json()) as any).jsonrpc).toBe('2.0');
  });

  it('413 for a body over 75 MB, read as a stream and cut off', async () => {
    const big = new Uint8Array(76 * 1024 * 1024).fill(32);
    const res = await fetch(h.endpoint, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': w.key },
      body: big,
    }).catch((e: unknown) => e as Error);
    if (res instanceof Error) throw res;
    expect(res.status).toBe(413);
  });

  it('401 with the resource_metadata challenge and the scope hint when no credentials are sent', async () => {
    const res = await rawPost(h, list);
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${h.url}/.well-known/oauth-protected-resource/api/mcp", scope="mcp:read mcp:write"`);
    expect(await res.json()).toMatchObject({ error: 'Unauthorized', error_description: expect.any(String) });
  });

  it('401 invalid_token without WWW-Authenticate for a bad bearer token; the bearer wins over a valid key', async () => {
    const res = await rawPost(h, list, { authorization: 'Bearer loupe_at_nope', 'x-api-key': w.key });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBeNull();
    expect(await res.json()).toMatchObject({ error: 'invalid_token', error_description: expect.any(String) });
  });

  it('401 for an unknown or revoked key, 403 for a key without MCP permissions', async () => {
    const unknown = await rawPost(h, list, { 'x-api-key': 'loupe_sk_' + 'x'.repeat(43) });
    expect(unknown.status).toBe(401);
    expect(((await unknown.json()) as any).error).toMatch(/^Invalid API key/);
    const ingestOnly = await rawPost(h, list, { 'x-api-key': w.ingestOnlyKey });
    expect(ingestOnly.status).toBe(403);
    expect(((await ingestOnly.json()) as any).error).toMatch(/no MCP permission/);
  });

  it('a key stops working when the person who created it leaves the workspace', async () => {
    const other = await seedWorkspace(h, 'Leavers');
    expect((await rawPost(h, list, { 'x-api-key': other.key })).status).toBe(200);
    await h.pool.query('DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2', [other.workspaceId, other.userId]);
    expect((await rawPost(h, list, { 'x-api-key': other.key })).status).toBe(401);
  });

  it('refuses a foreign Host or Origin (DNS rebinding), accepts loopback ones', async () => {
    const port = new URL(h.url).port;
    expect((await rawPost(h, list, { 'x-api-key': w.key, origin: 'https://evil.example.com' })).status).toBe(403);
    expect((await rawPost(h, list, { 'x-api-key': w.key, origin: `http://localhost:${port}` })).status).toBe(200);
    // fetch cannot set Host; a raw request can, as a rebinding attacker's page effectively does
    const status = await new Promise<number>((resolve, reject) => {
      const req = http.request(h.endpoint, {
        method: 'POST',
        headers: { host: 'evil.example.com', 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': w.key },
      }, (res) => {
        res.resume();
        resolve(res.statusCode!);
      });
      req.on('error', reject);
      req.end(JSON.stringify(list));
    });
    expect(status).toBe(403);
  });
});
