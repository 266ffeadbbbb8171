import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApiKey } from '@loupe/api-keys';
import { balance, usageByConsumer } from '@loupe/credits';
import { addThirdPartyServer } from '@loupe/third-party-mcp';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectClient, issueAccessToken, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

/** Calls of the vendor's `slow` tool that reached it. */
let slowHits = 0;

/** An MCP server of another vendor on loopback: `echo`, `refuse` (an isError answer), `stall` (never answers), `slow` (counts, answers after 300 ms). */
async function startVendorServer(): Promise<{ url: string; close(): Promise<void> }> {
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    const mcp = new McpServer({ name: 'tracker', version: '1.0.0' });
    mcp.registerTool('echo', { description: 'Echoes a message', inputSchema: { message: z.string().describe('What to echo') } },
      async ({ message }) => ({ content: [{ type: 'text', text: `echo: ${message}` }] }));
    mcp.registerTool('refuse', { description: 'Always refuses', inputSchema: {} }, async () => ({ isError: true, content: [{ type: 'text', text: 'no way' }] }));
    mcp.registerTool('stall', { description: 'Never answers', inputSchema: {} }, () => new Promise(() => {}));
    mcp.registerTool('slow', { description: 'Answers after 300 ms', inputSchema: {} }, async () => {
      slowHits++;
      await new Promise((r) => setTimeout(r, 300));
      return { content: [{ type: 'text', text: 'done' }] };
    });
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    await mcp.connect(transport);
    await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString() || 'null'));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`,
    close: () => new Promise<void>((r) => { server.closeAllConnections(); server.close(() => r()); }),
  };
}

/** Answers HTML to everything, like a login page in front of a misconfigured URL. */
async function startGarbageServer() {
  const server = http.createServer((_req, res) => res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Sign in</html>'));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/mcp`, close: () => new Promise<void>((r) => server.close(() => r())) };
}

let h: McpHarness;
let vendor: Awaited<ReturnType<typeof startVendorServer>>;
let garbage: Awaited<ReturnType<typeof startGarbageServer>>;
let w: Workspace;
let thirdPartyKey: string;
beforeAll(async () => {
  [h, vendor, garbage] = await Promise.all([startMcpServer({ thirdPartyTimeoutMs: 1000 }), startVendorServer(), startGarbageServer()]);
  w = await seedWorkspace(h, 'Connected', { credits: 100 });
  await addThirdPartyServer(h.pool, { workspaceId: w.workspaceId, name: 'Tracker', url: vendor.url, allowLoopback: true });
  await addThirdPartyServer(h.pool, { workspaceId: w.workspaceId, name: 'Broken', url: garbage.url, allowLoopback: true });
  thirdPartyKey = (await createApiKey(h.t.db, {
    workspaceId: w.workspaceId, name: 'tp', permissions: ['mcp:read', 'mcp:thirdparty'], defaultProductId: w.productId, createdByUserId: w.userId, servicePrefix: 'loupe_',
  })).key;
});
afterAll(async () => {
  await h.close();
  await vendor.close();
  await garbage.close();
});

describe('third-party MCP servers (spec 5.2 rule 4, 5.3)', () => {
  it('offers their tools, namespaced and with their schemas, only to API keys with mcp:thirdparty', async () => {
    const c = await connectClient(h, { key: thirdPartyKey });
    const { tools } = await c.listTools();
    const echo = tools.find((t) => t.name === 'tracker__echo');
    expect(echo).toMatchObject({ description: '[Tracker] Echoes a message', inputSchema: { type: 'object', properties: { message: { type: 'string', description: 'What to echo' } }, required: ['message'] } });
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['get_products', 'tracker__echo', 'tracker__refuse', 'tracker__stall']));
    expect(tools.some((t) => t.name.startsWith('broken__'))).toBe(false); // the server answering HTML is skipped
    await c.close();
    const bearer = await issueAccessToken(h, w, 'mcp:read mcp:write mcp:thirdparty');
    // The person chose "including third-party tools" on the consent page: OAuth still never gets them.
    await h.pool.query(`UPDATE oauth_grants SET third_party_access = 'including_third_party' WHERE workspace_id = $1`, [w.workspaceId]);
    for (const credential of [{ key: w.key }, { bearer }]) {
      const other = await connectClient(h, credential);
      const names = (await other.listTools()).tools.map((t) => t.name);
      expect(names.filter((n) => n.includes('__')), JSON.stringify(credential).slice(0, 20)).toEqual([]);
      const refused = await other.callTool({ name: 'tracker__echo', arguments: { message: 'hi' } });
      expect(refused.isError).toBe(true);
      await other.close();
    }
  });

  it('proxies a call and charges it like our own tools; an isError answer is free', async () => {
    const c = await connectClient(h, { key: thirdPartyKey });
    const before = await balance(h.pool, w.workspaceId);
    const echoed = await c.callTool({ name: 'tracker__echo', arguments: { message: 'hello' } });
    expect(echoed).toMatchObject({ content: [{ type: 'text', text: 'echo: hello' }] });
    expect(echoed.isError).toBeFalsy();
    expect(await balance(h.pool, w.workspaceId)).toBe(before - 1);
    const refused = await call(c, 'tracker__refuse');
    expect(refused).toMatchObject({ isError: true, text: 'no way' });
    expect(await balance(h.pool, w.workspaceId)).toBe(before - 1);
    await c.close();
  });

  it('turns a server that hangs into a tool error within the time limit, free, not a hung request', async () => {
    const c = await connectClient(h, { key: thirdPartyKey });
    const before = await balance(h.pool, w.workspaceId);
    const started = Date.now();
    const stalled = await call(c, 'tracker__stall');
    expect(stalled.isError).toBe(true);
    expect(stalled.text).toMatch(/^tracker__stall could not be called: Tracker did not answer within 1 s/);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(await balance(h.pool, w.workspaceId)).toBe(before);
    await c.close();
  });

  // Issue 23 item 8: the call reached the vendor before its credit was taken, so concurrent calls at a
  // balance of 1 all reached it while one was charged.
  it('reserves the credit before calling: of 6 concurrent calls at a balance of 1, one reaches the vendor', async () => {
    const low = await seedWorkspace(h, 'Low', { credits: 1 });
    await addThirdPartyServer(h.pool, { workspaceId: low.workspaceId, name: 'Tracker', url: vendor.url, allowLoopback: true });
    const key = (await createApiKey(h.t.db, {
      workspaceId: low.workspaceId, name: 'tp', permissions: ['mcp:read', 'mcp:thirdparty'], defaultProductId: low.productId, createdByUserId: low.userId, servicePrefix: 'loupe_',
    })).key;
    const clients = await Promise.all(Array.from({ length: 6 }, () => connectClient(h, { key })));
    slowHits = 0;
    const results = await Promise.all(clients.map((c) => call(c, 'tracker__slow')));
    expect(slowHits).toBe(1);
    expect(results.filter((r) => !r.isError)).toHaveLength(1);
    expect(results.filter((r) => r.isError).every((r) => r.text.startsWith('MCP access is paused'))).toBe(true);
    expect(await balance(h.pool, low.workspaceId)).toBe(0);
    await Promise.all(clients.map((c) => c.close()));
  });

  it('a failed call gets its reserved credit back', async () => {
    const c = await connectClient(h, { key: thirdPartyKey });
    const before = await balance(h.pool, w.workspaceId);
    expect((await call(c, 'tracker__refuse')).isError).toBe(true);
    expect(await balance(h.pool, w.workspaceId)).toBe(before);
    const { rows } = await h.pool.query("SELECT kind, amount FROM credit_ledger WHERE workspace_id = $1 AND (reference LIKE 'refund:%' OR tool = 'tracker__refuse') ORDER BY created_at", [w.workspaceId]);
    expect(rows.slice(-2)).toEqual([{ kind: 'charge', amount: -1 }, { kind: 'grant', amount: 1 }]);
    // And it is not usage of the key: another refused call leaves the usage report as it was.
    const usage = async () => (await usageByConsumer(h.pool, w.workspaceId, new Date(0))).filter((u) => u.consumer === 'api_key');
    const before2 = await usage();
    expect((await call(c, 'tracker__refuse')).isError).toBe(true);
    expect(await usage()).toEqual(before2);
    await c.close();
  });

  it("only a key whose creator is an owner (or the admin CLI's) uses the owners' third-party credentials", async () => {
    const member = 'usr_tp_member';
    await h.pool.query("INSERT INTO users (id, email, email_verified) VALUES ($1, 'member@tp.test', true)", [member]);
    await h.pool.query("INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, 'member')", [w.workspaceId, member]);
    const keyOf = async (createdByUserId: string | undefined) => (await createApiKey(h.t.db, {
      workspaceId: w.workspaceId, name: 'tp', permissions: ['mcp:read', 'mcp:thirdparty'], defaultProductId: w.productId, servicePrefix: 'loupe_',
      ...(createdByUserId ? { createdByUserId } : {}),
    })).key;
    const names = async (key: string) => {
      const c = await connectClient(h, { key });
      const listed = (await c.listTools()).tools.map((t) => t.name);
      const echo = await call(c, 'tracker__echo', { message: 'hi' });
      await c.close();
      return { thirdParty: listed.filter((n) => n.includes('__')).length > 0, echoed: !echo.isError };
    };
    expect(await names(await keyOf(member))).toEqual({ thirdParty: false, echoed: false });
    expect(await names(await keyOf(undefined))).toEqual({ thirdParty: true, echoed: true });
    // Its creator made an owner: the same key now may.
    const promoted = await keyOf(member);
    await h.pool.query("UPDATE memberships SET role = 'owner' WHERE workspace_id = $1 AND user_id = $2", [w.workspaceId, member]);
    expect(await names(promoted)).toEqual({ thirdParty: true, echoed: true });
  });
});
