import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createSafeFetch } from '@loupe/safe-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addThirdPartyServer, createThirdPartyGateway, ThirdPartyError, type GatewayLog } from './index';
import { startHttp, startMcpServer, type TestServer } from './test-servers';

const TOKEN = 'sk-test-0123456789abcdef';

describe('third-party gateway', () => {
  let t: TestDatabase;
  let mcp: TestServer;
  let silent: TestServer;
  let html: TestServer;
  const warnings: string[] = [];
  const log: GatewayLog = { warn: (_details, message) => void warnings.push(message) };
  const safeFetch = createSafeFetch({ allowLoopback: true });
  const time = { now: 1_000_000 };
  const clock = { now: () => time.now };

  beforeAll(async () => {
    t = await createTestDatabase();
    mcp = await startMcpServer(TOKEN);
    silent = await startHttp(() => {}); // accepts, never answers
    html = await startHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end('<html><body>Welcome to our website</body></html>');
    });
  });
  afterAll(async () => {
    await Promise.all([mcp?.close(), silent?.close(), html?.close()]);
    await t?.close();
  });

  async function workspace(): Promise<string> {
    const id = newId('ws');
    await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $1)', [id]);
    return id;
  }

  function gateway(overrides: Partial<Parameters<typeof createThirdPartyGateway>[0]> = {}) {
    return createThirdPartyGateway({ pool: t.pool, safeFetch, timeoutMs: 500, clock, log, ...overrides });
  }

  async function failure(promise: Promise<unknown>): Promise<ThirdPartyError> {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ThirdPartyError);
    return error as ThirdPartyError;
  }

  it('lists namespaced tools with their schemas and calls them with the stored header', async () => {
    const ws = await workspace();
    const server = await addThirdPartyServer(t.pool, {
      workspaceId: ws, name: 'Test CRM', url: mcp.url, authHeader: { name: 'Authorization', value: `Bearer ${TOKEN}` }, allowLoopback: true,
    });
    expect(server).toMatchObject({ slug: 'test_crm', hasAuth: true });

    const { rows } = await t.pool.query<{ auth_header_name: string; auth_header_value: string }>(
      'SELECT auth_header_name, auth_header_value FROM third_party_servers WHERE id = $1', [server.id],
    );
    expect(rows[0]!.auth_header_name).toBe('Authorization');
    expect(rows[0]!.auth_header_value).toMatch(/^v1\.[\w-]+\.[\w-]+\.[\w-]+$/);
    expect(rows[0]!.auth_header_value).not.toContain(TOKEN);
    expect(JSON.stringify(rows)).not.toContain(TOKEN.slice(3, 15));

    const g = gateway();
    const tools = await g.listTools(ws);
    expect(tools.map((tool) => tool.name).sort()).toEqual(['test_crm__add', 'test_crm__whoami']);
    const add = tools.find((tool) => tool.originalName === 'add')!;
    expect(add).toMatchObject({
      server: { id: server.id, name: 'Test CRM', slug: 'test_crm' },
      title: 'Add numbers',
      description: '[Test CRM] Adds two numbers',
      annotations: { readOnlyHint: true },
      inputSchema: { type: 'object', properties: { a: { type: 'number', description: 'first' }, b: { type: 'number' } }, required: ['a', 'b'] },
    });

    expect(await g.callTool(ws, 'test_crm__add', { a: 2, b: 3 })).toEqual({
      content: [{ type: 'text', text: '5' }], structuredContent: { sum: 5 },
    });
    expect(await g.callTool(ws, 'test_crm__whoami', {})).toEqual({ content: [{ type: 'text', text: 'you are the test workspace' }] });

    // Without the header the server's own check refuses (the header is what made it pass).
    const bare = await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'No auth', url: mcp.url, allowLoopback: true });
    expect(bare.hasAuth).toBe(false);
    expect(await g.callTool(ws, 'no_auth__whoami', {})).toMatchObject({ isError: true, content: [{ text: 'unauthorized' }] });

    // A tool the server does not have: the server's own answer, as it is.
    expect(await g.callTool(ws, 'test_crm__nope', {})).toMatchObject({ isError: true, content: [{ text: expect.stringMatching(/nope/) }] });

    await expect(g.callTool(ws, 'nobody__add', {})).rejects.toThrow(/Unknown third-party tool "nobody__add"/);
    await expect(g.callTool(ws, 'add', {})).rejects.toThrow(/Unknown third-party tool/);
  });

  it('caches a server tool list for listCacheMs', async () => {
    const ws = await workspace();
    await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Cached', url: mcp.url, allowLoopback: true });
    const g = gateway({ listCacheMs: 60_000 });
    const before = mcp.hits.length;
    await g.listTools(ws);
    const afterFirst = mcp.hits.length;
    expect(afterFirst).toBeGreaterThan(before);
    await g.listTools(ws);
    expect(mcp.hits.length).toBe(afterFirst);
    time.now += 60_001;
    await g.listTools(ws);
    expect(mcp.hits.length).toBeGreaterThan(afterFirst);
  });

  it('skips a server that never answers, and a call to it fails within the time limit', async () => {
    const ws = await workspace();
    await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Good', url: mcp.url, allowLoopback: true });
    await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Linear', url: silent.url, allowLoopback: true });
    const g = gateway();
    warnings.length = 0;
    let started = Date.now();
    const tools = await g.listTools(ws);
    expect(Date.now() - started).toBeLessThan(2000);
    expect(tools.map((tool) => tool.name).sort()).toEqual(['good__add', 'good__whoami']);
    expect(warnings.join('\n')).toMatch(/Linear did not answer within 0\.5 s/);

    started = Date.now();
    const error = await failure(g.callTool(ws, 'linear__anything', {}));
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(450);
    expect(elapsed).toBeLessThan(1500);
    expect(error.message).toBe('Linear did not answer within 0.5 s');
    expect(error).toMatchObject({ reason: 'timeout', server: { name: 'Linear', slug: 'linear' } });
  });

  it('stops when the caller aborts', async () => {
    const ws = await workspace();
    await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Slow', url: silent.url, allowLoopback: true });
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 50);
    const started = Date.now();
    const error = await failure(gateway({ timeoutMs: 5000 }).callTool(ws, 'slow__x', {}, controller.signal));
    expect(Date.now() - started).toBeLessThan(1000);
    expect(error).toMatchObject({ reason: 'cancelled', message: 'the call to Slow was cancelled' });
  });

  it('turns an HTML page, an HTTP error or a dead port into a named error, not a crash', async () => {
    const ws = await workspace();
    await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Website', url: html.url, allowLoopback: true });
    const broken = await startHttp((_req, res) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end('oops');
    });
    const notJsonRpc = await startHttp((_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"hello": "world"}');
    });
    const failing = await startHttp((req, res) => {
      let body = '';
      req.on('data', (c: Buffer) => (body += String(c)));
      req.on('end', () => {
        const { id } = JSON.parse(body) as { id?: number };
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ jsonrpc: '2.0', id, error: { code: -32603, message: 'database down' } }));
      });
    });
    const dead = await startHttp(() => {});
    const deadUrl = dead.url;
    await dead.close();
    try {
      await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Broken', url: broken.url, allowLoopback: true });
      await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Odd', url: notJsonRpc.url, allowLoopback: true });
      await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Gone', url: deadUrl, allowLoopback: true });
      await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Failing', url: failing.url, allowLoopback: true });
      const g = gateway();
      expect(await g.listTools(ws)).toEqual([]);

      const page = await failure(g.callTool(ws, 'website__search', { q: 'x' }));
      expect(page).toMatchObject({ reason: 'not_mcp', message: 'Website did not answer as an MCP server (it sent text/html)' });
      expect(await failure(g.callTool(ws, 'broken__x', {}))).toMatchObject({ reason: 'http_status', message: 'Broken answered HTTP 500' });
      expect(await failure(g.callTool(ws, 'odd__x', {}))).toMatchObject({ reason: 'not_mcp', message: expect.stringMatching(/^Odd did not answer as an MCP server/) });
      expect(await failure(g.callTool(ws, 'gone__x', {}))).toMatchObject({ reason: 'unreachable', message: expect.stringMatching(/^Gone could not be reached \(ECONNREFUSED\)/) });
      expect(await failure(g.callTool(ws, 'failing__x', {}))).toMatchObject({ reason: 'tool_error', message: 'Failing returned an error: database down' });
    } finally {
      await Promise.all([broken.close(), notJsonRpc.close(), failing.close()]);
    }
  });

  it('refuses loopback addresses when the safe fetcher does not allow them', async () => {
    const ws = await workspace();
    await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Sneaky', url: mcp.url, allowLoopback: true });
    const before = mcp.hits.length;
    const g = gateway({ safeFetch: createSafeFetch() });
    warnings.length = 0;
    expect(await g.listTools(ws)).toEqual([]);
    expect(warnings.join('\n')).toMatch(/Sneaky was refused/);
    const error = await failure(g.callTool(ws, 'sneaky__add', { a: 1, b: 2 }));
    expect(error.reason).toBe('refused');
    expect(error.message).toMatch(/^Sneaky was refused: refused to connect to 127\.0\.0\.1: it is .*loopback/);
    expect(mcp.hits.length).toBe(before);
  });

  it("never lists nor calls another workspace's servers", async () => {
    const mine = await workspace();
    const theirs = await workspace();
    await addThirdPartyServer(t.pool, { workspaceId: theirs, name: 'Private', url: mcp.url, allowLoopback: true });
    await addThirdPartyServer(t.pool, { workspaceId: mine, name: 'Mine', url: mcp.url, allowLoopback: true });
    const g = gateway();
    expect((await g.listTools(theirs)).map((tool) => tool.name).sort()).toEqual(['private__add', 'private__whoami']);
    expect((await g.listTools(mine)).map((tool) => tool.name).sort()).toEqual(['mine__add', 'mine__whoami']);
    const error = await failure(g.callTool(mine, 'private__add', { a: 1, b: 1 }));
    expect(error).toMatchObject({ reason: 'unknown_tool', message: expect.stringMatching(/^Unknown third-party tool "private__add"/) });
    expect(error.server).toBeUndefined();
  });

  it('leaves out tools whose namespaced name would not be a valid tool name', async () => {
    const ws = await workspace();
    const odd = await startMcpServer(TOKEN, ['x'.repeat(60), 'ok.dot', 'fine-tool']);
    try {
      await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Odd names', url: odd.url, allowLoopback: true });
      const names = (await gateway().listTools(ws)).map((tool) => tool.name).sort();
      expect(names).toEqual(['odd_names__add', 'odd_names__fine-tool', 'odd_names__whoami']);
    } finally {
      await odd.close();
    }
  });
});
