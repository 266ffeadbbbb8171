import { grantCredits } from '@loupe/credits';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type pg from 'pg';
import { createApiKey } from '@loupe/api-keys';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { appShell, createLogger, createPerIpLimiter, listen, systemClock, type Clock, type Listening } from '@loupe/http';
import { createBoss, ensureQueues } from '@loupe/jobs';
import { createSafeFetch } from '@loupe/safe-fetch';
import { createThirdPartyGateway } from '@loupe/third-party-mcp';
import { refreshSearchDocuments } from '@loupe/sources';
import { z } from 'zod';
import { createMcpApp, MCP_PATH } from '../app';
import { TOOLS } from '../tools';

export interface McpHarness {
  url: string;
  endpoint: string;
  t: TestDatabase;
  pool: pg.Pool;
  close(): Promise<void>;
}

export interface McpServerOptions {
  /** Another instance on this harness's database (not closed with it). */
  database?: TestDatabase;
  clock?: Clock;
  /** The service-wide per-IP limit in front, as deployed; none unless given. */
  perIp?: { limit?: number; trustedProxies?: string };
  /** Time limit of calls to third-party MCP servers (reached on loopback in tests). */
  thirdPartyTimeoutMs?: number;
  /** Bytes of request bodies held at once (the default of the app unless given). */
  bodyMemoryBytes?: number;
  /** Search by meaning (libs/sources' createSemanticSearch); none unless given. */
  semanticSearch?: (pool: TestDatabase['pool']) => unknown;
}

/** The MCP endpoint on loopback over a fresh database (or `options.database`). */
export async function startMcpServer(options: McpServerOptions = {}): Promise<McpHarness> {
  const t = options.database ?? (await createTestDatabase());
  const clock = options.clock ?? systemClock;
  const log = createLogger('silent');
  const boss = createBoss({ connectionString: t.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  let url = '';
  const app = appShell(log, (a) => {
    a.use(createMcpApp({
      baseUrl: () => url, pool: t.pool, db: t.db, clock, log, servicePrefix: 'loupe_',
      services: { boss, addSourceWaitMs: 0, ...(options.semanticSearch ? { semanticSearch: options.semanticSearch(t.pool) } : {}) },
      ...(options.bodyMemoryBytes ? { bodyMemoryBytes: options.bodyMemoryBytes } : {}),
      thirdParty: createThirdPartyGateway({
        pool: t.pool, safeFetch: createSafeFetch({ allowLoopback: true }), timeoutMs: options.thirdPartyTimeoutMs ?? 5000, listCacheMs: 0,
      }),
    }));
  }, {
    ...(options.perIp ? { perIp: createPerIpLimiter(t.pool, clock, options.perIp.limit), perIpDeferredPaths: [MCP_PATH] } : {}),
    ...(options.perIp?.trustedProxies ? { trustedProxies: options.perIp.trustedProxies } : {}),
  });
  const server: Listening = await listen(app, 0, '127.0.0.1', { requestTimeoutMs: 60_000 });
  url = `http://127.0.0.1:${server.port}`;
  return {
    url, endpoint: `${url}/api/mcp`, t, pool: t.pool,
    async close() {
      await server.close(0);
      await boss.stop({ graceful: false, close: true });
      if (!options.database) await t.close();
    },
  };
}

export interface Workspace {
  workspaceId: string;
  userId: string;
  productId: string;
  projectId: string;
  key: string;
  readOnlyKey: string;
  ingestOnlyKey: string;
}

/** A workspace with an owner, a product with a project, and keys with and without MCP permissions. */
/** A workspace with an owner, a product, a project and keys; `credits` granted (10,000 unless said). */
export async function seedWorkspace(h: McpHarness, name = 'Acme', options: { credits?: number } = {}): Promise<Workspace> {
  const workspaceId = newId('ws');
  const userId = newId('usr');
  await h.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [workspaceId, name]);
  const credits = options.credits ?? 10_000;
  if (credits > 0) await grantCredits(h.pool, workspaceId, credits, 'grant:test', 'test credits');
  await h.pool.query('INSERT INTO users (id, email, email_verified) VALUES ($1, $2, true)', [userId, `${userId}@acme.test`]);
  await h.pool.query("INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, 'owner')", [workspaceId, userId]);
  const productId = newId('prod');
  const projectId = newId('proj');
  await h.pool.query('INSERT INTO products (id, workspace_id, name, description) VALUES ($1, $2, $3, $4)', [productId, workspaceId, `${name} app`, 'The main product']);
  await h.pool.query('INSERT INTO projects (id, workspace_id, product_id, name) VALUES ($1, $2, $3, $4)', [projectId, workspaceId, productId, 'Onboarding']);
  const mk = async (permissions: string[], product?: string) =>
    (await createApiKey(h.t.db, { workspaceId, name: permissions.join('+'), permissions, defaultProductId: product, createdByUserId: userId, servicePrefix: 'loupe_' })).key;
  return {
    workspaceId, userId, productId, projectId,
    key: await mk(['mcp:read', 'mcp:write'], productId),
    readOnlyKey: await mk(['mcp:read'], productId),
    ingestOnlyKey: await mk(['api:read', 'api:write']),
  };
}

/** A source with `segments` text segments, ready to read. */
export async function seedSource(h: McpHarness, w: Workspace, options: { title?: string; segments?: string[]; speakers?: string[]; status?: string; occurredAt?: Date } = {}) {
  const id = newId('src');
  const segments = options.segments ?? ['Hello there.'];
  await h.pool.query(
    `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, participants, tags, status, segment_count)
     VALUES ($1, $2, $3, $4, 'call_transcription', 'meeting', $5, $6, $7, '{}', $8, $9)`,
    [id, w.workspaceId, w.productId, [w.projectId], options.title ?? 'Customer call', options.occurredAt ?? new Date(), JSON.stringify([{ email: 'ana@bigco.com' }]), options.status ?? 'ready', segments.length],
  );
  for (const [i, text] of segments.entries()) {
    await h.pool.query(`INSERT INTO source_segments (source_id, position, kind, speaker, text) VALUES ($1, $2, 'turn', $3, $4)`, [id, i, options.speakers?.[i] ?? 'Ana', text]);
  }
  await refreshSearchDocuments(h.pool, [id]); // the search vector the worker writes with a source
  return id;
}

/** The MCP SDK's own client over Streamable HTTP, authenticated with a key or a bearer token. */
export async function connectClient(h: McpHarness, credential: { key: string } | { bearer: string }) {
  const headers: Record<string, string> = 'key' in credential ? { 'x-api-key': credential.key } : { authorization: `Bearer ${credential.bearer}` };
  const client = new Client({ name: 'loupe-tests', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(new URL(h.endpoint), { requestInit: { headers } }));
  return client;
}

/**
 * A tool call's structured result, or its error text. Every successful result of our tools is checked
 * against the tool's output schema (not published in tools/list), and holds no null anywhere.
 */
export async function call(client: Client, name: string, args: Record<string, unknown> = {}) {
  const result = await client.callTool({ name, arguments: args });
  const text = (result.content as Array<{ type: string; text?: string }>)[0]?.text ?? '';
  const tool = TOOLS.find((t) => t.name === name);
  if (tool && result.isError !== true) {
    const checked = z.object(tool.outputSchema).safeParse(result.structuredContent);
    if (!checked.success) throw new Error(`${name} answered structured content its output schema refuses: ${checked.error.message}`);
    const hasNull = (v: unknown): boolean => v === null || (typeof v === 'object' && Object.values(v as object).some(hasNull));
    if (hasNull(result.structuredContent)) throw new Error(`${name} answered a null in its structured content`);
  }
  return { isError: result.isError === true, text, data: result.structuredContent as Record<string, any> | undefined };
}

/** What the model reads of a result: Claude Code shows only structuredContent when present; text-only clients only the text. */
export function seenBy(kind: 'structured-first' | 'text-only', result: Record<string, unknown>): string {
  const text = ((result.content ?? []) as Array<{ type: string; text?: string }>).map((c) => c.text ?? '').join('\n');
  return kind === 'structured-first' && result.structuredContent ? JSON.stringify(result.structuredContent) : text;
}

/** A raw JSON-RPC POST, for the transport rules. */
export async function rawPost(h: McpHarness, body: unknown, headers: Record<string, string> = {}) {
  return fetch(h.endpoint, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/**
 * An access token as the authorization server stores it (only its SHA-256, bound to the workspace
 * through oauth_grants), so the endpoint's real bearer check runs without driving the OAuth pages.
 */
export async function issueAccessToken(h: McpHarness, w: Workspace, scope = 'mcp:read mcp:write'): Promise<string> {
  const { createHash, randomBytes } = await import('node:crypto');
  const token = `loupe_at_${randomBytes(32).toString('base64url')}`;
  const grantId = newId('grant');
  await h.pool.query(
    `INSERT INTO oauth_grants (grant_id, workspace_id, user_id, client_id, client_name, scopes) VALUES ($1, $2, $3, 'cli_test', 'Test', $4)`,
    [grantId, w.workspaceId, w.userId, scope.split(' ')],
  );
  await h.pool.query(
    `INSERT INTO oauth_models (model, id_hash, grant_id, payload, expires_at) VALUES ('AccessToken', $1, $2, $3, now() + interval '1 hour')`,
    [createHash('sha256').update(token).digest('hex'), grantId, JSON.stringify({ accountId: w.userId, clientId: 'cli_test', grantId, scope, exp: Math.floor(Date.now() / 1000) + 3600, kind: 'AccessToken' })],
  );
  return token;
}
