import Ajv2020 from 'ajv/dist/2020.js';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectClient, issueAccessToken, rawPost, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

// Issue 25: MCP revision 2026-07-28 beside the five handshake-era versions. Each rule is the revision's
// text (modelcontextprotocol docs/specification/2026-07-28): no initialize, `_meta` on every request,
// server/discover, Mcp-Method / Mcp-Name, resultType, ttlMs / cacheScope, the -32020..-32022 codes.

const V = '2026-07-28';
const LEGACY = ['2025-11-25', '2025-06-18', '2025-03-26', '2024-11-05', '2024-10-07'];
const META = {
  'io.modelcontextprotocol/protocolVersion': V,
  'io.modelcontextprotocol/clientCapabilities': {},
  'io.modelcontextprotocol/clientInfo': { name: 'modern-test', version: '1.0.0' },
};

type Body = { jsonrpc: '2.0'; id?: number | string; method: string; params?: Record<string, unknown> };
const request = (method: string, params: Record<string, unknown> = {}, id: number | string = 1): Body => ({ jsonrpc: '2.0', id, method, params: { ...params, _meta: META } });

/** The headers a 2026-07-28 client sends for `body` (MCP-Protocol-Version, Mcp-Method, Mcp-Name). */
function standardHeaders(body: Body): Record<string, string> {
  const name = body.params?.name ?? body.params?.uri;
  return { 'mcp-protocol-version': V, 'mcp-method': body.method, ...(typeof name === 'string' ? { 'mcp-name': name } : {}) };
}

let h: McpHarness;
let w: Workspace;
let legacy: Client;
beforeAll(async () => {
  h = await startMcpServer();
  w = await seedWorkspace(h);
  legacy = await connectClient(h, { key: w.key });
});
afterAll(async () => {
  await legacy?.close();
  await h.close();
});

/** A 2026-07-28 POST: the standard headers unless `headers` replaces them (a value of null drops one). */
async function post(body: unknown, headers: Record<string, string | null> = {}, credential: Record<string, string> = { 'x-api-key': w.key }) {
  const all: Record<string, string | null> = { ...(typeof body === 'object' && body && !Array.isArray(body) ? standardHeaders(body as Body) : { 'mcp-protocol-version': V }), ...credential, ...headers };
  const res = await rawPost(h, body, Object.fromEntries(Object.entries(all).filter((e): e is [string, string] => e[1] !== null)));
  const text = await res.text();
  return { status: res.status, headers: res.headers, body: (text ? JSON.parse(text) : undefined) as any };
}

describe('2026-07-28: no initialize, per-request _meta, server/discover (priority 1)', () => {
  it('server/discover names the six versions, the capabilities, the implementation (icons, title, description, websiteUrl) and caching hints', async () => {
    const r = await post(request('server/discover', {}, 'discover-1'));
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(r.headers.get('mcp-session-id')).toBeNull();
    expect(r.body.id).toBe('discover-1');
    const result = r.body.result;
    expect(result).toMatchObject({ resultType: 'complete', supportedVersions: [V, ...LEGACY], capabilities: { tools: {}, prompts: {} }, cacheScope: 'public' });
    expect(result.ttlMs).toBeGreaterThanOrEqual(0);
    expect(result.instructions).toMatch(/get_products/);
    const info = result._meta['io.modelcontextprotocol/serverInfo'];
    expect(info).toMatchObject({ name: 'loupe', title: expect.any(String), version: expect.any(String), description: expect.any(String), websiteUrl: h.url });
    expect(info.icons[0]).toMatchObject({ src: expect.stringMatching(/^data:image\/svg\+xml;base64,/), mimeType: 'image/svg+xml', sizes: ['any'] });
    expect(Buffer.from(info.icons[0].src.split(',')[1], 'base64').toString()).toMatch(/^<svg /);
  });

  it('tools/list without any initialize: resultType, ttlMs and cacheScope private, serverInfo in _meta, the same tools as 2025-11-25 in the same order every time', async () => {
    const first = await post(request('tools/list'));
    expect(first.status).toBe(200);
    const result = first.body.result;
    expect(result).toMatchObject({ resultType: 'complete', cacheScope: 'private', _meta: { 'io.modelcontextprotocol/serverInfo': { name: 'loupe' } } });
    expect(result.ttlMs).toBeGreaterThanOrEqual(0);
    expect(result.tools).toEqual((await legacy.listTools()).tools);
    for (let i = 0; i < 3; i++) expect((await post(request('tools/list', {}, i + 2))).body.result.tools.map((t: any) => t.name)).toEqual(result.tools.map((t: any) => t.name));
  });

  it('tools/list stays within the 3,500-token budget for a full key, and its schemas are JSON Schema 2020-12 (the default dialect, no $schema)', async () => {
    const { tools } = (await post(request('tools/list'))).body.result;
    // Without the icons, which are for the client's screen, never for the model (tool-surface.test.ts).
    const json = JSON.stringify({ tools: tools.map(({ icons: _icons, ...rest }: Record<string, unknown>) => rest) });
    console.log(`2026-07-28 tools/list for a full key: ${tools.length} tools, ~${Math.ceil(json.length / 4)} tokens without icons`);
    expect(Math.ceil(json.length / 4)).toBeLessThanOrEqual(3_500);
    const ajv = new Ajv2020({ strict: false, validateFormats: false });
    for (const tool of tools) {
      expect(tool.inputSchema.$schema, tool.name).toBeUndefined(); // no $schema: 2020-12 by the revision's rule
      expect(ajv.validateSchema(tool.inputSchema), `${tool.name}: ${ajv.errorsText(ajv.errors)}`).toBe(true);
      expect(() => ajv.compile(tool.inputSchema), tool.name).not.toThrow();
    }
  });

  it('tools/call: the tool result with resultType, charged like any call; bad arguments stay a free tool error; an unknown tool is a -32602 protocol error', async () => {
    const balance = async () => (await h.pool.query('SELECT credit_balance FROM workspaces WHERE id = $1', [w.workspaceId])).rows[0].credit_balance as number;
    const before = await balance();
    const ok = await post(request('tools/call', { name: 'get_products', arguments: {} }));
    expect(ok.status).toBe(200);
    expect(ok.body.result).toMatchObject({ resultType: 'complete', structuredContent: { products: [expect.objectContaining({ id: w.productId })] } });
    expect(ok.body.result.isError).toBeFalsy();
    expect(ok.body.result._meta['io.modelcontextprotocol/serverInfo'].name).toBe('loupe');
    const bad = await post(request('tools/call', { name: 'find_sources', arguments: { max_results: 5 } }));
    expect(bad.body.result).toMatchObject({ resultType: 'complete', isError: true });
    expect(bad.body.result.content[0].text).toMatch(/unknown argument "max_results"/);
    expect(await balance()).toBe(before - 1);
    const unknown = await post(request('tools/call', { name: 'no_such_tool', arguments: {} }, 7));
    expect(unknown.status).toBe(200);
    expect(unknown.body).toMatchObject({ id: 7, error: { code: -32602, message: expect.stringMatching(/^Unknown tool no_such_tool: .*get_products/) } });
    // The removed tool still answers with its replacement (spec 7.4), in every version.
    const removed = await post(request('tools/call', { name: 'see_updated_roadmap', arguments: {} }));
    expect(removed.body.result.content[0].text).toMatch(/get_opportunities/);
  });

  it('prompts/list (icons, caching hints) and prompts/get; an unknown prompt is -32602', async () => {
    const list = await post(request('prompts/list'));
    expect(list.body.result).toMatchObject({ resultType: 'complete', cacheScope: 'public' });
    expect(list.body.result.prompts.map((p: any) => p.name)).toEqual(['analyse_source', 'draft_shaping_note', 'weekly_evidence_digest', 'prioritise_by_impact']);
    for (const p of list.body.result.prompts) expect(p.icons[0].src).toMatch(/^data:image\/svg\+xml/);
    const got = await post(request('prompts/get', { name: 'analyse_source', arguments: { source_id: 'src_1' } }));
    expect(got.body.result).toMatchObject({ resultType: 'complete', messages: [{ role: 'user', content: { type: 'text', text: expect.stringContaining('src_1') } }] });
    const unknown = await post(request('prompts/get', { name: 'nope' }));
    expect(unknown.body.error.code).toBe(-32602);
  });

  it('a method the revision removed or we do not serve is 404 -32601; initialize names the versions to use instead', async () => {
    for (const method of ['ping', 'resources/list', 'logging/setLevel', 'completion/complete', 'subscriptions/listen']) {
      const r = await post(request(method));
      expect(r.status, method).toBe(404);
      expect(r.body.error.code, method).toBe(-32601);
    }
    const init = await post({ jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: V, capabilities: {}, clientInfo: { name: 't', version: '1' } } });
    expect(init.status).toBe(404);
    expect(init.body.error).toMatchObject({ code: -32601, message: expect.stringContaining('2025-11-25') });
  });

  it('a notification is accepted with 202 and no body', async () => {
    const r = await post({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { _meta: META } });
    expect(r.status).toBe(202);
    expect(r.body).toBeUndefined();
  });
});

describe('2026-07-28: request validation and the renumbered codes (priority 1)', () => {
  it('400 -32022 UnsupportedProtocolVersion for a version not served, listing the six (any version, any method)', async () => {
    for (const body of [request('tools/list', {}, 31), { jsonrpc: '2.0', id: 31, method: 'initialize', params: {} }]) {
      const r = await post(body, { 'mcp-protocol-version': '2099-01-01' });
      expect(r.status).toBe(400);
      expect(r.body.id).toBe(31); // the request's id, as every error that can read it
      expect(r.body.error).toMatchObject({ code: -32022, message: expect.stringContaining('MCP-Protocol-Version'), data: { supported: [V, ...LEGACY], requested: '2099-01-01' } });
    }
  });

  it('400 -32602 when _meta lacks the protocol version or the client capabilities', async () => {
    const noMeta = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list' });
    expect(noMeta.status).toBe(400);
    expect(noMeta.body).toMatchObject({ id: 1, error: { code: -32602, message: expect.stringContaining('io.modelcontextprotocol/protocolVersion') } });
    const noCapabilities = await post({ jsonrpc: '2.0', id: 2, method: 'tools/list', params: { _meta: { 'io.modelcontextprotocol/protocolVersion': V } } });
    expect(noCapabilities.status).toBe(400);
    expect(noCapabilities.body.error).toMatchObject({ code: -32602, message: expect.stringContaining('clientCapabilities') });
  });

  it('400 -32020 HeaderMismatch when MCP-Protocol-Version and _meta disagree, or _meta names 2026-07-28 without the header', async () => {
    const other = await post(request('tools/list'), { 'mcp-protocol-version': '2025-11-25' });
    expect(other.status).toBe(400);
    expect(other.body.error.code).toBe(-32020);
    const none = await post(request('tools/list'), { 'mcp-protocol-version': null });
    expect(none.status).toBe(400);
    expect(none.body.error).toMatchObject({ code: -32020, message: expect.stringContaining('MCP-Protocol-Version header is missing') });
    const older = await post({ jsonrpc: '2.0', id: 1, method: 'tools/list', params: { _meta: { ...META, 'io.modelcontextprotocol/protocolVersion': '2025-11-25' } } });
    expect(older.status).toBe(400);
    expect(older.body.error.code).toBe(-32020);
  });

  it('400 -32020 when Mcp-Method is missing or differs from the body', async () => {
    const missing = await post(request('tools/list'), { 'mcp-method': null });
    expect(missing.status).toBe(400);
    expect(missing.body.error).toMatchObject({ code: -32020, message: expect.stringContaining('Mcp-Method') });
    const differs = await post(request('tools/list'), { 'mcp-method': 'prompts/list' });
    expect(differs.status).toBe(400);
    expect(differs.body.error.code).toBe(-32020);
    const caseMatters = await post(request('tools/list'), { 'mcp-method': 'Tools/List' }); // header values are case-sensitive
    expect(caseMatters.body.error.code).toBe(-32020);
  });

  it('400 -32020 when Mcp-Name is missing, differs or is badly encoded on tools/call and prompts/get; the =?base64?…?= form is decoded', async () => {
    const call = request('tools/call', { name: 'get_products', arguments: {} });
    for (const [value, why] of [[null, 'missing'], ['find_sources', 'differs'], ['=?base64?not base64!?=', 'malformed']] as const) {
      const r = await post(call, { 'mcp-name': value });
      expect(r.status, why).toBe(400);
      expect(r.body.error.code, why).toBe(-32020);
    }
    const encoded = await post(call, { 'mcp-name': `=?base64?${Buffer.from('get_products').toString('base64')}?=` });
    expect(encoded.status).toBe(200);
    expect(encoded.body.result.resultType).toBe('complete');
    const prompt = await post(request('prompts/get', { name: 'analyse_source', arguments: { source_id: 's' } }), { 'mcp-name': null });
    expect(prompt.body.error.code).toBe(-32020);
  });

  it('400 -32600 for a batch, a posted response, or a null id', async () => {
    expect((await post([request('tools/list')])).body.error.code).toBe(-32600);
    expect((await post({ jsonrpc: '2.0', id: 1, result: {} })).body.error.code).toBe(-32600);
    const nullId = await post({ ...request('tools/list'), id: null });
    expect(nullId.status).toBe(400);
    expect(nullId.body.error.code).toBe(-32600);
  });

  it('spec 4.1 and 7.2 hold for 2026-07-28: 405, 406, 415, 400 -32700, 403 for a foreign Origin, no session id', async () => {
    const headers = standardHeaders(request('tools/list'));
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(h.endpoint, { method, headers: { ...headers, 'x-api-key': w.key } });
      expect(res.status).toBe(405);
      // The revision's "-32000 to -32019: legacy ... SHOULD NOT use": the standard Invalid Request instead.
      expect(((await res.json()) as any).error.code).toBe(-32600);
    }
    for (const [headers, status] of [[{ accept: 'application/json' }, 406], [{ 'content-type': 'text/plain' }, 415]] as const) {
      const r = await post(request('tools/list'), headers);
      expect(r.status).toBe(status);
      expect(r.body.error.code).toBe(-32600);
    }
    const parse = await rawPost(h, '{"jsonrpc": "2.0", "id": 1, ', { ...headers, 'x-api-key': w.key });
    expect(parse.status).toBe(400);
    expect(((await parse.json()) as any).error.code).toBe(-32700);
    const foreign = await post(request('tools/list'), { origin: 'https://evil.example.com' });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.code).toBe(-32600);
    expect((await post(request('tools/list'), { 'mcp-session-id': 'abc' })).headers.get('mcp-session-id')).toBeNull();
  });
});

describe('authorization: the scope hint and the step-up of 2025-11-25 and 2026-07-28 (priority 3)', () => {
  it('401 carries resource_metadata and the scope hint in every era (a first initialize names no version)', async () => {
    const hint = `Bearer resource_metadata="${h.url}/.well-known/oauth-protected-resource/api/mcp", scope="mcp:read mcp:write"`;
    const modern = await post(request('tools/list'), {}, {});
    expect(modern.status).toBe(401);
    expect(modern.headers.get('www-authenticate')).toBe(hint);
    for (const version of [undefined, ...LEGACY]) {
      const old = await rawPost(h, { jsonrpc: '2.0', id: 1, method: 'tools/list' }, version ? { 'mcp-protocol-version': version } : {});
      expect(old.status, version).toBe(401);
      expect(old.headers.get('www-authenticate'), version).toBe(hint);
    }
  });

  const write = (params: Record<string, unknown> = {}) =>
    request('tools/call', { name: 'add_signals', arguments: { source_id: 'src_x', signals: [{ type: 'need', title: 't', content: 'c' }] }, ...params });
  const stepUpHeader = (scope: string) =>
    new RegExp(`^Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${h.url}/\\.well-known/oauth-protected-resource/api/mcp", error_description="add_signals needs the mcp:write scope`);

  it('2026-07-28: a signal write with an OAuth token lacking mcp:write is 403 insufficient_scope naming what it holds and mcp:write; an API key keeps the 7.4 tool error', async () => {
    const token = await issueAccessToken(h, w, 'mcp:read');
    const r = await post(write(), {}, { authorization: `Bearer ${token}` });
    expect(r.status).toBe(403);
    expect(r.headers.get('www-authenticate')).toMatch(stepUpHeader('mcp:read mcp:write'));
    expect(r.body).toMatchObject({ error: 'insufficient_scope', scope: 'mcp:read mcp:write' });
    // Reading tools still work with that token.
    expect((await post(request('tools/call', { name: 'get_products', arguments: {} }), {}, { authorization: `Bearer ${token}` })).body.result.isError).toBeFalsy();
    const key = await post(write(), {}, { 'x-api-key': w.readOnlyKey });
    expect(key.status).toBe(200);
    expect(key.body.result.content[0].text).toMatch(/^Tool is not available on this connection: add_signals needs the mcp:write permission/);
  });

  it('2025-11-25 steps up the same way ("Scope Challenge Handling"); the earlier revisions keep the 7.4 tool error', async () => {
    const token = await issueAccessToken(h, w, 'mcp:read openid');
    const call = { jsonrpc: '2.0', id: 7, method: 'tools/call', params: { name: 'add_signals', arguments: { source_id: 'src_x', signals: [{ type: 'need', title: 't', content: 'c' }] } } };
    const recent = await rawPost(h, call, { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' });
    expect(recent.status).toBe(403);
    expect(recent.headers.get('www-authenticate')).toMatch(stepUpHeader('mcp:read mcp:write openid'));
    expect(await recent.json()).toMatchObject({ error: 'insufficient_scope', scope: 'mcp:read mcp:write openid' });
    for (const version of LEGACY.slice(1)) {
      const older = await rawPost(h, call, { authorization: `Bearer ${token}`, 'mcp-protocol-version': version });
      expect(older.status, version).toBe(200);
      expect(((await older.json()) as any).result.content[0].text, version).toMatch(/^Tool is not available on this connection: add_signals needs the mcp:write permission/);
    }
    // A read stays open on 2025-11-25.
    const read = await rawPost(h, { ...call, params: { name: 'get_products', arguments: {} } }, { authorization: `Bearer ${token}`, 'mcp-protocol-version': '2025-11-25' });
    expect(read.status).toBe(200);
  });
});
