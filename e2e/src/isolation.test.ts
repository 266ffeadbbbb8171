import { createHash, randomBytes } from 'node:crypto';
import { createApiKey } from '@loupe/api-keys';
import { createPrismaClient, freePort, newId } from '@loupe/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledPostgres, demoFrom, type ControlledPostgres, type Demo } from './cluster';
import { admin as adminOn, startProcess, type Started } from './process';
import { exchangeCode, registerClient, WebPerson } from './web-person';

/**
 * Tenant isolation against `npm start`: workspace A holds recognisable data; every MCP tool and
 * prompt, the OAuth endpoints and the settings pages are called with workspace B's credentials
 * and with refused ones (revoked key, expired token, removed member, key without the permission).
 * Every refusal has the spec's status and shape (7.1, 7.2, 7.4), and no response ever carries A's
 * strings, or an id of A the caller did not send itself.
 */
let pg: ControlledPostgres;
let service: Started;
let demo: Demo;
const MARK = `alpha${randomBytes(6).toString('hex')}`;
/** What only workspace A's members may ever see: planted strings and A's ids. */
const secrets = new Set<string>([MARK]);
const a = { ws: '', product: '', project: '', source: '', signal: '', note: '', opportunity: '', annId: '', grant: '', keyId: '', company: '', connection: '' };
const b = { ws: '', product: '' };
const cred: Record<string, Record<string, string>> = {};
let bob: WebPerson;
let carol: WebPerson;
let dave: WebPerson;
let annToken: { access_token: string; refresh_token: string };
let ann: WebPerson;
let bobClient: { client_id: string; redirect_uri: string };
let annClient: { client_id: string; redirect_uri: string };
const matrix = new Map<string, Map<string, string>>();
const note = (row: string, column: string, cell: string) => (matrix.get(row) ?? matrix.set(row, new Map()).get(row)!).set(column, cell);

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex');

const admin = (...args: string[]) => adminOn(pg.url, ...args);

async function rpc(headers: Record<string, string>, method: string, params: Record<string, unknown> = {}) {
  const res = await fetch(`${service.url}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
  const text = await res.text();
  return { status: res.status, headers: res.headers, text, body: JSON.parse(text) as Record<string, any> };
}

async function tool(headers: Record<string, string>, name: string, args: Record<string, unknown>) {
  const r = await rpc(headers, 'tools/call', { name, arguments: args });
  const result = r.body.result as { isError?: boolean; content?: Array<{ text: string }>; structuredContent?: any } | undefined;
  return { ...r, result, message: result?.content?.[0]?.text ?? '' };
}

/** A's strings and ids found in `text`, except the ids the caller sent itself. */
function leaked(text: string, sent: unknown = ''): string[] {
  const own = JSON.stringify(sent);
  return [...secrets].filter((s) => s && text.includes(s) && !own.includes(s));
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, tries = 120): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`timed out waiting for ${what}`);
}

beforeAll(async () => {
  pg = await controlledPostgres();
  service = await startProcess({
    DATABASE_URL: pg.url, LOUPE_DEMO: '1', PORT: String(await freePort()), LOG_LEVEL: 'error',
    // The SMTP receiver on: the Email forwarding page then shows and replaces projects' addresses (issue 45).
    MAIL_REPLY_DOMAIN: 'in.isolation.test', INBOUND_SMTP_PORT: String(await freePort()),
  });
  demo = demoFrom(service.output());
  const db = createPrismaClient(pg.pool);
  a.ws = demo.workspaceId;
  a.product = demo.productId;
  a.project = demo.projectId;
  const keyA = { 'x-api-key': demo.key };

  // Workspace A: members and keys through the admin CLI; recognisable data through its own key.
  const [, , , bOut] = await Promise.all([
    admin('member', 'add', '--workspace', a.ws, '--email', 'ann@alpha.test', '--role', 'owner'),
    admin('member', 'add', '--workspace', a.ws, '--email', 'carol@alpha.test', '--role', 'member'),
    admin('member', 'add', '--workspace', a.ws, '--email', 'dave@alpha.test', '--role', 'member'),
    admin('workspace', 'create', '--name', 'Beta', '--owner', 'bob@beta.test'),
    (async () => {
      const added = await tool(keyA, 'add_source', {
        project_id: a.project, source_type: 'meeting_notes', title: `${MARK} kickoff`, content: `${MARK}: the customer wants audit logs exported nightly.`,
      });
      expect(added.result?.isError, added.message).toBeFalsy();
      a.source = added.result!.structuredContent.source_id ?? await waitFor('the planted source', async () => {
        const found = await tool(keyA, 'find_sources', { query: MARK });
        return (found.result?.structuredContent.items as Array<{ id: string; status: string }>).find((s) => s.status === 'ready')?.id;
      });
      // A company of A (issue 44) with a domain, through A's key; the signal is said from an address at it.
      const company = await fetch(`${service.url}/api/v1/companies/${MARK}-crm`, {
        method: 'PUT', headers: { ...keyA, 'content-type': 'application/json' },
        body: JSON.stringify({ name: `${MARK} Corp`, domains: [`${MARK}.test`], arr: 90000, segment: 'enterprise', stage: 'customer' }),
      });
      expect(company.status, await company.clone().text()).toBe(201);
      const signals = await tool(keyA, 'add_signals', { source_id: a.source, signals: [{ type: 'need', title: `${MARK} audit export`, content: `${MARK} needs nightly audit exports`, participant_id: `ops@${MARK}.test` }] });
      expect(signals.result?.isError, signals.message).toBeFalsy();
      a.signal = JSON.stringify(signals.result!.structuredContent).match(/sig_[\w-]+/)![0];
      a.company = (await tool(keyA, 'view_item', { item_id: `${MARK}-crm`, item_type: 'company' })).result!.structuredContent.item.id;
      expect((await tool(keyA, 'view_item', { item_id: a.signal, item_type: 'signal' })).result!.structuredContent.item.company).toMatchObject({ id: a.company });
      const noted = await tool(keyA, 'create_shaping_note', { product_id: a.product, title: `${MARK} shaping`, content: `${MARK} plan` });
      expect(noted.result?.isError, noted.message).toBeFalsy();
      a.note = noted.result!.structuredContent.id;
      const opps = await tool(keyA, 'get_opportunities', { product_id: a.product });
      a.opportunity = (opps.result!.structuredContent.items as Array<{ id: string }>)[0]?.id ?? '';
    })(),
  ]);
  b.ws = /Created workspace (\S+)/.exec(bOut)![1]!;
  b.product = /Created product (\S+)/.exec(await admin('product', 'create', '--workspace', b.ws, '--name', 'Beta app'))![1]!;
  const [keyB, , revoked, apiOnly, readOnly] = await Promise.all([
    admin('key', 'create', '--workspace', b.ws, '--name', 'beta key', '--permissions', 'mcp:read,mcp:write', '--product', b.product),
    admin('credits', 'grant', '--workspace', b.ws, '--amount', '1000'),
    admin('key', 'create', '--workspace', a.ws, '--name', `${MARK} revoked`, '--permissions', 'mcp:read,mcp:write', '--product', a.product),
    admin('key', 'create', '--workspace', a.ws, '--name', `${MARK} ingest only`, '--permissions', 'api:read,api:write'),
    admin('key', 'create', '--workspace', a.ws, '--name', `${MARK} read only`, '--permissions', 'mcp:read', '--product', a.product),
  ]);
  const lastLine = (out: string) => out.trim().split('\n').pop()!;
  await admin('key', 'revoke', '--workspace', a.ws, '--id', /Created API key (\S+)/.exec(revoked)![1]!);
  cred['B key'] = { 'x-api-key': lastLine(keyB) };
  cred['revoked key'] = { 'x-api-key': lastLine(revoked) };
  cred['key without MCP'] = { 'x-api-key': lastLine(apiOnly) };
  cred['mcp:read-only key'] = { 'x-api-key': lastLine(readOnly) };

  // OAuth connections through the real pages: Bob to B, Ann (twice) and Carol to A.
  bobClient = await registerClient(service.url, 'Beta notebook', '10.9.1.1');
  annClient = await registerClient(service.url, `${MARK} notebook`, '10.9.1.2');
  secrets.add(annClient.client_id);
  bob = new WebPerson(service.url, pg.pool, 'bob@beta.test', '10.9.2.1');
  ann = new WebPerson(service.url, pg.pool, 'ann@alpha.test', '10.9.2.2');
  carol = new WebPerson(service.url, pg.pool, 'carol@alpha.test', '10.9.2.3');
  dave = new WebPerson(service.url, pg.pool, 'dave@alpha.test', '10.9.2.4');
  const [bobT, [annT, annExpired, annReadOnly], carolT] = await Promise.all([
    bob.connect(bobClient, b.ws),
    // One code at a time per person: a new code replaces the one before.
    (async () => [await ann.connect(annClient, a.ws), await ann.connect(annClient, a.ws), await ann.connect(annClient, a.ws, 'mcp:read')] as const)(),
    carol.connect(annClient, a.ws),
    dave.signInToAccount(),
  ]);
  annToken = annT;
  cred['B token'] = { authorization: `Bearer ${bobT.access_token}` };
  cred['mcp:read-only token'] = { authorization: `Bearer ${annReadOnly.access_token}` };
  // Expired: the token's lifetime is data in its row (payload.exp, expires_at) and both are checked by the
  // service's clock; the test moves them an hour and a minute back, as if the hour had passed.
  await pg.pool.query(
    `UPDATE oauth_models SET payload = jsonb_set(payload, '{exp}', to_jsonb(extract(epoch FROM now())::bigint - 60)), expires_at = now() - interval '1 minute'
      WHERE id_hash = ANY($1)`,
    [[sha256(annExpired.access_token), sha256(annExpired.refresh_token)]],
  );
  cred['expired token'] = { authorization: `Bearer ${annExpired.access_token}` };
  cred['expired refresh'] = { refresh: annExpired.refresh_token };

  // A removed member: her token, and a key she created on the keys page (created by her), then the CLI removes her.
  const { rows: [carolRow] } = await pg.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', ['carol@alpha.test']);
  const carolKey = await createApiKey(db, { workspaceId: a.ws, name: `${MARK} carol`, permissions: ['mcp:read', 'mcp:write'], defaultProductId: a.product, createdByUserId: carolRow!.id, servicePrefix: 'loupe_' });
  await carol.signInToAccount();
  expect((await rpc({ authorization: `Bearer ${carolT.access_token}` }, 'tools/list')).status).toBe(200);
  expect(await admin('member', 'remove', '--workspace', a.ws, '--email', 'carol@alpha.test')).toContain('Removed carol@alpha.test');
  cred['removed member token'] = { authorization: `Bearer ${carolT.access_token}` };
  cred['removed member key'] = { 'x-api-key': carolKey.key };
  cred['removed member refresh'] = { refresh: carolT.refresh_token };

  // A's connection to a vendor (issue 45), made through the API with A's ingest key: its id and host are A's.
  const connection = await fetch(`${service.url}/api/v1/connections`, {
    method: 'POST', headers: { ...cred['key without MCP']!, 'content-type': 'application/json' },
    body: JSON.stringify({ kind: 'zendesk', product_id: a.product, project_id: a.project, base_url: `https://${MARK}.zendesk.invalid`, credentials: { access_token: `${MARK}-token` } }),
  });
  expect(connection.status).toBe(201);
  a.connection = ((await connection.json()) as { id: string }).id;
  secrets.add(a.connection);
  // A's ids (the workspace, its people, keys, grants, objects): none may reach B.
  const { rows: ids } = await pg.pool.query<{ id: string }>(
    `SELECT id FROM api_keys WHERE workspace_id = $1 UNION ALL SELECT user_id FROM memberships WHERE workspace_id = $1
     UNION ALL SELECT grant_id FROM oauth_grants WHERE workspace_id = $1 UNION ALL SELECT id FROM sources WHERE workspace_id = $1`,
    [a.ws],
  );
  for (const v of [a.ws, a.product, a.project, a.source, a.signal, a.note, a.opportunity, a.company, ...ids.map((r) => r.id)]) if (v) secrets.add(v);
  const { rows: grants } = await pg.pool.query<{ grant_id: string }>('SELECT grant_id FROM oauth_grants WHERE workspace_id = $1 AND revoked_at IS NULL LIMIT 1', [a.ws]);
  a.grant = grants[0]!.grant_id;
  a.annId = (await pg.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', ['ann@alpha.test'])).rows[0]!.id;
  a.keyId = /Created API key (\S+)/.exec(readOnly)![1]!;
  for (const email of ['ann@alpha.test', 'carol@alpha.test', 'dave@alpha.test']) secrets.add(email);
}, 120_000);

afterAll(async () => {
  await service?.stop();
  await pg?.destroy();
  if (!matrix.size) return;
  const columns = [...new Set([...matrix.values()].flatMap((m) => [...m.keys()]))];
  const width = Math.max(...[...matrix.keys()].map((r) => r.length));
  const lines = [
    `| ${'target'.padEnd(width)} | ${columns.join(' | ')} |`,
    `| ${'-'.repeat(width)} | ${columns.map((c) => '-'.repeat(c.length)).join(' | ')} |`,
    ...[...matrix].map(([row, cells]) => `| ${row.padEnd(width)} | ${columns.map((c) => (cells.get(c) ?? '').padEnd(c.length)).join(' | ')} |`),
  ];
  console.log(`isolation matrix (${matrix.size} targets × ${columns.length} credentials; every cell refused or without A's data):\n${lines.join('\n')}`);
});

/** Arguments for each tool that point at workspace A's objects. */
function argumentsAgainstA(name: string): Record<string, unknown> {
  switch (name) {
    case 'add_source': return { project_id: a.project, source_type: 'meeting_notes', content: 'from B' };
    case 'add_signals': return { source_id: a.source, signals: [{ type: 'need', title: 'from B', content: 'from B' }] };
    case 'update_signals': return { updates: [{ id: a.signal, title: 'overwritten by B' }] };
    case 'create_shaping_note': return { product_id: a.product, title: 'from B', content: 'from B' };
    case 'update_shaping_note': return { note_id: a.note, title: 'overwritten by B' };
    case 'read_source': return { source_id: a.source };
    case 'view_item': return { item_id: a.signal, item_type: 'signal' };
    case 'get_opportunities': return { product_id: a.product };
    case 'find_sources': return { product_id: a.product, project_id: a.project, query: MARK };
    case 'see_updated_roadmap': return { product_id: a.product };
    case 'get_products': return {};
    case 'find_skills': return { query: MARK };
    case 'read_skills': return { names: [MARK] };
    case 'list_shaping_notes': return { product_id: a.product, query: MARK };
    default: throw new Error(`no arguments against workspace A for the new tool ${name}: add them here`);
  }
}

const WRITE_TOOLS = new Set(['add_signals', 'update_signals']);
const REFUSALS: Record<string, { status: number; error: RegExp }> = {
  'revoked key': { status: 401, error: /^Invalid API key/ },
  'removed member key': { status: 401, error: /^Invalid API key/ },
  'expired token': { status: 401, error: /^invalid_token$/ },
  'removed member token': { status: 401, error: /^invalid_token$/ },
  'key without MCP': { status: 403, error: /no MCP permission/ },
};

describe('tenant isolation', () => {
  it('every MCP tool and prompt: B sees none of A, refused credentials get the spec 7.2 answer, read-only connections cannot write', async () => {
    const listed = await rpc(cred['B key']!, 'tools/list');
    const tools = (listed.body.result.tools as Array<{ name: string }>).map((t) => t.name);
    expect(tools.length).toBeGreaterThanOrEqual(11);
    const before = await tool({ 'x-api-key': demo.key }, 'view_item', { item_id: a.note, item_type: 'shaping_note' });
    for (const name of tools) {
      const args = argumentsAgainstA(name);
      for (const who of ['B key', 'B token']) {
        const r = await tool(cred[who]!, name, args);
        expect(r.status, `${who} ${name}`).toBe(200);
        expect(leaked(r.text, args), `${who} ${name}: ${r.text.slice(0, 400)}`).toEqual([]);
        note(`tool ${name}`, who, r.result?.isError ? `error: ${r.message.slice(0, 38)}` : 'B\'s own data');
      }
      for (const [who, want] of Object.entries(REFUSALS)) {
        const r = await tool(cred[who]!, name, args);
        expect(r.status, `${who} ${name}`).toBe(want.status);
        expect(r.body.error, `${who} ${name}`).toMatch(want.error);
        if (who.includes('token')) {
          expect(r.headers.get('www-authenticate'), `${who} ${name}`).toBeNull();
          expect(r.body.error_description).toEqual(expect.any(String));
        }
        expect(leaked(r.text, args)).toEqual([]);
        note(`tool ${name}`, who, `${r.status} ${String(r.body.error).slice(0, 20)}`);
      }
      for (const who of ['mcp:read-only key', 'mcp:read-only token']) {
        if (!WRITE_TOOLS.has(name)) continue;
        const r = await tool(cred[who]!, name, args);
        expect(r.status).toBe(200);
        expect(r.result?.isError, `${who} ${name}`).toBe(true);
        expect(r.message).toMatch(/^Tool is not available on this connection/);
        note(`tool ${name}`, who, 'error: not available on this connection');
      }
    }
    // Every item type of view_item, and every prompt, with A's ids.
    for (const [type, id] of [['signal', a.signal], ['opportunity', a.opportunity || 'opp_none'], ['source', a.source], ['shaping_note', a.note]] as const) {
      const r = await tool(cred['B key']!, 'view_item', { item_id: id, item_type: type });
      expect(r.result?.isError).toBe(true);
      expect(r.message).toMatch(/does not exist or you are not allowed to access it/);
      expect(leaked(r.text, id)).toEqual([]);
    }
    // The companies arguments (issue 44) with A's company by our id, its external id and its name, in B's product: not found.
    for (const who of ['B key', 'B token']) {
      for (const [row, name, args, refusal] of [
        ['tool view_item company (A\'s id)', 'view_item', { item_id: a.company, item_type: 'company' }, /does not exist or you are not allowed to access it/],
        ['tool view_item company (A\'s external id)', 'view_item', { item_id: `${MARK}-crm`, item_type: 'company' }, /does not exist or you are not allowed to access it/],
        ['tool get_opportunities company (A\'s id)', 'get_opportunities', { product_id: b.product, company: a.company }, /^Company not found/],
        ['tool get_opportunities company (A\'s external id)', 'get_opportunities', { product_id: b.product, company: `${MARK}-crm`, sort: 'revenue' }, /^Company not found/],
        ['tool get_opportunities company (A\'s name)', 'get_opportunities', { product_id: b.product, company: `${MARK} Corp` }, /^Company not found/],
        ['tool find_sources company (A\'s id)', 'find_sources', { company: a.company }, /^Company not found/],
        ['tool find_sources company (A\'s external id)', 'find_sources', { company: `${MARK}-crm`, query: MARK }, /^Company not found/],
      ] as const) {
        const r = await tool(cred[who]!, name, args);
        expect(r.status, `${who} ${row}`).toBe(200);
        expect([r.result?.isError, r.message], `${who} ${row}`).toEqual([true, expect.stringMatching(refusal)]);
        expect(leaked(r.text, args), `${who} ${row}`).toEqual([]);
        note(row, who, 'error: not found');
      }
    }
    const prompts = (await rpc(cred['B token']!, 'prompts/list')).body.result.prompts as Array<{ name: string; arguments?: Array<{ name: string }> }>;
    for (const p of prompts) {
      const args = Object.fromEntries((p.arguments ?? []).map((x) => [x.name, x.name === 'product_id' ? a.product : x.name === 'source_id' ? a.source : a.opportunity || a.signal]));
      for (const who of ['B key', 'B token']) {
        const r = await rpc(cred[who]!, 'prompts/get', { name: p.name, arguments: args });
        expect(leaked(r.text, args), `${who} prompt ${p.name}`).toEqual([]);
        note(`prompt ${p.name}`, who, r.body.error ? `error ${r.body.error.code}` : 'no A data');
      }
      for (const [who, want] of Object.entries(REFUSALS)) {
        const r = await rpc(cred[who]!, 'prompts/get', { name: p.name, arguments: args });
        expect([r.status, r.body.error]).toEqual([want.status, expect.stringMatching(want.error)]);
        note(`prompt ${p.name}`, who, `${r.status}`);
      }
    }
    // Nothing of A changed: its note and signal read as planted.
    const after = await tool({ 'x-api-key': demo.key }, 'view_item', { item_id: a.note, item_type: 'shaping_note' });
    expect(after.result!.structuredContent.item.title).toBe(before.result!.structuredContent.item.title);
    const signal = await tool({ 'x-api-key': demo.key }, 'view_item', { item_id: a.signal, item_type: 'signal' });
    expect(signal.result!.structuredContent.item.title).toBe(`${MARK} audit export`);
  });

  it('OAuth endpoints: userinfo, refresh, revocation and the authorization pages never cross workspaces', async () => {
    const userinfo = async (h: Record<string, string>) => {
      const res = await fetch(`${service.url}/oauth/userinfo`, { headers: h });
      const text = await res.text();
      return { status: res.status, text, body: (text ? JSON.parse(text) : {}) as Record<string, any>, wwwAuth: res.headers.get('www-authenticate') };
    };
    const mine = await userinfo(cred['B token']!);
    expect(mine.status).toBe(200);
    expect(mine.body.email).toBe('bob@beta.test');
    expect(leaked(mine.text)).toEqual([]);
    note('GET /oauth/userinfo', 'B token', '200 B\'s own sub');
    for (const who of ['expired token', 'removed member token', 'revoked key', 'removed member key']) {
      const r = await userinfo(who.includes('key') ? { authorization: `Bearer ${cred[who]!['x-api-key']}` } : cred[who]!);
      expect(r.status, who).toBe(401);
      expect(r.body.error, who).toBe('invalid_token');
      expect(leaked(r.text)).toEqual([]);
      note('GET /oauth/userinfo', who, `401 ${r.body.error}`);
    }

    const token = (form: Record<string, string>) => exchangeCode(service.url, form, '10.9.3.1');
    for (const [who, refreshToken, clientId] of [
      ['expired token', cred['expired refresh']!.refresh!, annClient.client_id],
      ['removed member token', cred['removed member refresh']!.refresh!, annClient.client_id],
      ['B token', annToken.refresh_token, bobClient.client_id],
    ] as const) {
      const r = await token({ grant_type: 'refresh_token', refresh_token: refreshToken, client_id: clientId });
      expect(r.status, who).toBe(400);
      expect(r.body).toMatchObject({ error: 'invalid_grant', error_description: expect.any(String) });
      expect(leaked(r.text)).toEqual([]);
      note('POST /oauth/token refresh_token', who === 'B token' ? 'B token' : who, `400 ${r.body.error}`);
    }
    for (const [who, h] of Object.entries({ 'revoked key': cred['revoked key']!, 'key without MCP': cred['key without MCP']! })) {
      const r = await token({ grant_type: 'refresh_token', refresh_token: h['x-api-key']!, client_id: annClient.client_id });
      expect([r.status, r.body.error], who).toEqual([400, 'invalid_grant']);
      note('POST /oauth/token refresh_token', who, `400 ${r.body.error}`);
    }

    // RFC 7009: B's client cannot revoke A's token; A's token keeps working.
    const revoke = await fetch(`${service.url}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: annToken.refresh_token, client_id: bobClient.client_id }) });
    expect(revoke.status).toBe(200);
    expect((await tool({ authorization: `Bearer ${annToken.access_token}` }, 'get_products', {})).status).toBe(200);
    note('POST /oauth/revoke', 'B token', '200, A\'s token unharmed');
    for (const who of ['expired token', 'removed member token', 'revoked key']) {
      const value = cred[who]!.authorization?.slice(7) ?? cred[who]!['x-api-key']!;
      const r = await fetch(`${service.url}/oauth/revoke`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ token: value }) });
      expect(r.status, who).toBe(200);
      expect(await r.text()).toBe('');
      note('POST /oauth/revoke', who, '200 (RFC 7009)');
    }

    // Bob authorizing his client may not pick workspace A, by query or by form.
    const verifier = randomBytes(32).toString('base64url');
    const params = new URLSearchParams({
      response_type: 'code', client_id: bobClient.client_id, redirect_uri: bobClient.redirect_uri, state: 'x', scope: 'mcp:read',
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
    });
    const start = await bob.follow(await bob.get(`/oauth/authorize?${params}`));
    const uid = /\/oauth\/interaction\/([^/?]+)/.exec(start.res.url || start.html)?.[1] ?? /\/oauth\/interaction\/([^/"?]+)/.exec(start.html)![1]!;
    const chosen = await bob.follow(await bob.get(`/oauth/interaction/${uid}?workspace=${a.ws}`));
    expect(leaked(chosen.html, a.ws)).toEqual([]);
    expect(chosen.html).not.toContain(`value="${a.ws}"`);
    const csrf = /name="_csrf" value="([^"]+)"/.exec(chosen.html)![1]!;
    const consent = await bob.follow(await bob.post(`/oauth/interaction/${uid}/consent`, { _csrf: csrf, workspace: a.ws, decision: 'approve' }));
    expect(consent.location ?? '').not.toMatch(/[?&]code=/);
    expect(consent.res.status).toBeGreaterThanOrEqual(400);
    expect(leaked(consent.html, a.ws)).toEqual([]);
    note('POST /oauth/interaction/:uid/consent', 'B session', `${consent.res.status} (workspace A refused)`);
    const { rows } = await pg.pool.query('SELECT 1 FROM oauth_grants g JOIN users u ON u.id = g.user_id WHERE u.email = $1 AND g.workspace_id = $2', ['bob@beta.test', a.ws]);
    expect(rows).toEqual([]);
    // A code issued to A's person and client, exchanged by B's client (with the right verifier): refused, and the code is spent.
    const annCode = await ann.authorize(annClient, a.ws, 'mcp:read');
    const stolen = await token({ grant_type: 'authorization_code', code: annCode.code, redirect_uri: bobClient.redirect_uri, client_id: bobClient.client_id, code_verifier: annCode.verifier });
    expect([stolen.status, stolen.body.error]).toEqual([400, 'invalid_grant']);
    expect(leaked(stolen.text)).toEqual([]);
    note('POST /oauth/token authorization_code', 'B token', `${stolen.status} ${stolen.body.error}`);
  });

  it('settings pages: another workspace\'s member, a removed member, a plain member and bare credentials change and see nothing of A', async () => {
    await bob.signInToAccount();
    const bobCsrf = await bob.csrf(`/account/w/${b.ws}/keys`);
    const carolCsrf = await carol.csrf('/account');
    const daveCsrf = await dave.csrf(`/account/w/${a.ws}/members`);
    const { rows: [invitation] } = await pg.pool.query<{ id: string }>(
      `INSERT INTO invitations (id, workspace_id, email, role, token_hash, invited_by_user_id, created_at, expires_at)
       VALUES ($1, $2, $3, 'member', $4, $5, now(), now() + interval '1 day') RETURNING id`,
      [`inv_${MARK}`, a.ws, 'eve@alpha.test', sha256(MARK), a.annId],
    );
    // A's forwarding address and sender domains (issue 45), which nobody outside A may see or change.
    const forwardingToken = Array.from(randomBytes(26), (byte) => 'abcdefghijklmnopqrstuvwxyz234567'[byte & 31]).join('');
    secrets.add(forwardingToken);
    await pg.pool.query('INSERT INTO inbound_addresses (token, workspace_id, project_id, created_at) VALUES ($1, $2, $3, now())', [forwardingToken, a.ws, a.project]);
    await pg.pool.query('INSERT INTO inbound_sender_domains (workspace_id, domain, created_at) VALUES ($1, $2, now())', [a.ws, 'alpha.test']);
    // A's file import (issue 45): an upload not started yet and a saved mapping, which nobody outside A may see, start or delete.
    const importMapping = { type: 'message', event_at: { column: 'at' }, vendor_ids: { survey: { column: 'id' } }, product_id: a.product, project_ids: [a.project], data: { text: { column: 'text' } } };
    await pg.pool.query(
      `INSERT INTO file_imports (id, workspace_id, file_name, storage_key, size_bytes, format, mapping, product_id, project_id, created_at, updated_at)
       VALUES ($1, $2, 'alpha-answers.csv', $3, 10, 'csv', $4, $5, $6, now(), now())`,
      [`imp_${MARK}`, a.ws, `imports/${a.ws}/imp_${MARK}/upload`, JSON.stringify(importMapping), a.product, a.project],
    );
    await pg.pool.query(
      `INSERT INTO import_mappings (id, workspace_id, name, mapping, created_by, updated_by, created_at, updated_at) VALUES ($1, $2, 'Alpha survey', $3, $4, $4, now(), now())`,
      [`imap_${MARK}`, a.ws, JSON.stringify(importMapping), a.annId],
    );
    const gets = [
      ...['keys', 'members', 'apps', 'products', 'usage', 'connections', 'email-forwarding', 'import'].map((s) => [`GET /account/w/:ws/${s}`, `/account/w/{ws}/${s}`, undefined] as const),
      ['GET /account/w/:ws/import/:id', `/account/w/{ws}/import/imp_${MARK}`, undefined] as const,
    ];
    const posts = [
      ['POST /account/w/:ws/keys', '/account/w/{ws}/keys', { name: 'from B', permissions: 'mcp:read', product: a.product }],
      ['POST /account/w/:ws/keys/:id/revoke', `/account/w/{ws}/keys/${a.keyId}/revoke`, {}],
      ['POST /account/w/:ws/members/invite', '/account/w/{ws}/members/invite', { email: 'mallory@beta.test', role: 'owner' }],
      ['POST /account/w/:ws/members/:userId/role', `/account/w/{ws}/members/${a.annId}/role`, { role: 'member' }],
      ['POST /account/w/:ws/members/:userId/remove', `/account/w/{ws}/members/${a.annId}/remove`, {}],
      ['POST /account/w/:ws/invitations/:id/cancel', `/account/w/{ws}/invitations/${invitation!.id}/cancel`, {}],
      ['POST /account/w/:ws/apps/:grantId/revoke', `/account/w/{ws}/apps/${a.grant}/revoke`, {}],
      ['POST /account/w/:ws/products', '/account/w/{ws}/products', { name: 'from B' }],
      ['POST /account/w/:ws/products/:id/rename', `/account/w/{ws}/products/${a.product}/rename`, { name: 'renamed by B' }],
      ['POST /account/w/:ws/products/:id/projects', `/account/w/{ws}/products/${a.product}/projects`, { name: 'from B' }],
      ['POST /account/w/:ws/projects/:id/rename', `/account/w/{ws}/projects/${a.project}/rename`, { name: 'renamed by B' }],
      ['POST /account/w/:ws/connections/:id/sync', `/account/w/{ws}/connections/${a.connection}/sync`, {}],
      ['POST /account/w/:ws/connections/:id/pause', `/account/w/{ws}/connections/${a.connection}/pause`, {}],
      ['POST /account/w/:ws/connections/:id/resume', `/account/w/{ws}/connections/${a.connection}/resume`, {}],
      ['POST /account/w/:ws/email-forwarding/domains', '/account/w/{ws}/email-forwarding/domains', { domains: 'beta.test' }],
      ['POST /account/w/:ws/email-forwarding/projects/:id/rotate', `/account/w/{ws}/email-forwarding/projects/${a.project}/rotate`, {}],
      ['POST /account/w/:ws/import/:id/mapping', `/account/w/{ws}/import/imp_${MARK}/mapping`, { type: 'message', eventAtColumn: 'at', idColumn: 'id', idSystem: 'x', productId: a.product, projectId: a.project }],
      ['POST /account/w/:ws/import/:id/start', `/account/w/{ws}/import/imp_${MARK}/start`, {}],
      ['POST /account/w/:ws/import/:id/discard', `/account/w/{ws}/import/imp_${MARK}/discard`, {}],
      ['POST /account/w/:ws/import/mappings/:mid/delete', `/account/w/{ws}/import/mappings/imap_${MARK}/delete`, {}],
    ] as const;
    const state = async () => (await pg.pool.query(
      `SELECT (SELECT json_agg(json_build_object('id', id, 'revoked', revoked_at IS NOT NULL) ORDER BY id) FROM api_keys WHERE workspace_id = $1) AS keys,
              (SELECT json_agg(json_build_object('u', user_id, 'r', role) ORDER BY user_id) FROM memberships WHERE workspace_id = $1) AS members,
              (SELECT json_agg(json_build_object('g', grant_id, 'r', revoked_at IS NOT NULL) ORDER BY grant_id) FROM oauth_grants WHERE workspace_id = $1) AS grants,
              (SELECT json_agg(name ORDER BY id) FROM products WHERE workspace_id = $1) AS products,
              (SELECT json_agg(name ORDER BY id) FROM projects WHERE workspace_id = $1) AS projects,
              (SELECT count(*) FROM invitations WHERE workspace_id = $1) AS invitations,
              (SELECT json_agg(json_build_object('id', id, 's', status) ORDER BY id) FROM connections WHERE workspace_id = $1) AS connections,
              (SELECT json_agg(json_build_object('t', token, 'p', project_id) ORDER BY token) FROM inbound_addresses WHERE workspace_id = $1) AS forwarding,
              (SELECT json_agg(domain ORDER BY domain) FROM inbound_sender_domains WHERE workspace_id = $1) AS senders,
              (SELECT json_agg(json_build_object('id', id, 's', status, 'm', mapping) ORDER BY id) FROM file_imports WHERE workspace_id = $1) AS imports,
              (SELECT json_agg(json_build_object('id', id, 'm', mapping) ORDER BY id) FROM import_mappings WHERE workspace_id = $1) AS mappings`, [a.ws])).rows[0];
    const before = await state();
    const anonymous = async (path: string, h: Record<string, string>, body?: Record<string, string>) =>
      fetch(new URL(path, service.url), { method: body ? 'POST' : 'GET', redirect: 'manual', headers: { ...h, ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) }, body: body && new URLSearchParams(body) });
    for (const [row, template, form] of [...gets, ...posts]) {
      // Bob: on A's pages (404), and with A's object ids under his own workspace's path (nothing found).
      for (const [who, person, csrf] of [['B token', bob, bobCsrf], ['removed member token', carol, carolCsrf]] as const) {
        const res = form ? await person.post(template.replace('{ws}', a.ws), { ...form, _csrf: csrf }) : await person.get(template.replace('{ws}', a.ws));
        const html = await res.text();
        expect(res.status, `${who} ${row}`).toBe(404);
        expect(leaked(html, template.replace('{ws}', a.ws) + JSON.stringify(form ?? {})), `${who} ${row}`).toEqual([]);
        note(row, who === 'B token' ? 'B session' : 'removed member session', `${res.status}`);
      }
      if (form) {
        const res = await bob.post(template.replace('{ws}', b.ws), { ...form, _csrf: bobCsrf });
        const page = await bob.follow(res);
        expect(leaked(page.html, template + JSON.stringify(form)), `B on own path ${row}`).toEqual([]);
        note(row, 'B session, A\'s ids on B\'s path', `${res.status}`);
        // Dave, a plain member of A: managers' actions are refused (his own-key actions are his to take).
        // (Importing a file is every member's, as a key that writes records is: not checked here.)
        if (!/keys$|keys\/:id|\/import\//.test(row)) {
          const d = await dave.post(template.replace('{ws}', a.ws), { ...form, _csrf: daveCsrf });
          // The members pages answer a refused role 400 with the reason, the products page 403; another
          // person's connection is not found for a plain member (404).
          const html = await d.text();
          if (row.includes('/apps/')) expect(d.status, `member ${row}`).toBe(404);
          else expect([d.status, html], `member ${row}`).toEqual([row.includes('/members/') || row.includes('/invitations/') ? 400 : 403, expect.stringMatching(/Only owners and admins/)]);
          note(row, 'plain member session', `${d.status}`);
        }
      }
      for (const who of ['revoked key', 'expired token', 'B key']) {
        const res = await anonymous(template.replace('{ws}', a.ws), cred[who]!, form ? { ...form } : undefined);
        expect(res.status, `${who} ${row}`).toBe(form ? 403 : 303);
        if (!form) expect(res.headers.get('location')).toMatch(/^\/account\/sign-in\?return_to=/);
        note(row, `${who} (no session)`, `${res.status}`);
      }
    }
    expect(await state()).toEqual(before);
  });
  // Issue 27: the evidence pages and their actions, with the same credentials as the settings pages.
  it('evidence pages: another workspace\'s member, a removed member and bare credentials see and change nothing of A', async () => {
    const keyA = { 'x-api-key': demo.key };
    a.opportunity ||= await waitFor('A\'s opportunity', async () => {
      const opps = await tool(keyA, 'get_opportunities', { product_id: a.product });
      return (opps.result?.structuredContent.items as Array<{ id: string }> | undefined)?.[0]?.id;
    });
    secrets.add(a.opportunity);
    // A company of A (issue 44), its signal resolved to it: the Companies pages show both to A's members only.
    if (!a.company) {
      a.company = newId('cmp');
      await pg.pool.query(
        `INSERT INTO companies (id, workspace_id, external_id, name, domains, arr, created_at, updated_at) VALUES ($1, $2, $3, $4, '{}', 90000, now(), now())`,
        [a.company, a.ws, `${MARK}-crm`, `${MARK} Corp`],
      );
      await pg.pool.query('UPDATE signals SET company_id = $1 WHERE id = $2', [a.company, a.signal]);
      secrets.add(a.company);
    }
    await bob.signInToAccount();
    const bobCsrf = await bob.csrf(`/account/w/${b.ws}/signals`);
    const carolCsrf = await carol.csrf('/account');
    const gets = [
      'signals', `signals?source=${a.source}`, `signals/${a.signal}`, 'opportunities', `opportunities?product=${a.product}`, `opportunities/${a.opportunity}`,
      `sources?q=${MARK}`, `sources/${a.source}`, 'notes', `notes/${a.note}`, `notes/${a.note}/versions/1`, `notes/${a.note}/diff?from=1&to=1`,
      'companies', `companies?q=${MARK}`, `companies/${a.company}`, `opportunities.csv?product=${a.product}&sort=revenue`,
    ].map((path) => [`GET /account/w/:ws/${path.replace(/(sig|opp|src|shn|prod|cmp)_[\w-]+/g, ':id').replace(/alpha\w+/, ':words')}`, `/account/w/{ws}/${path}`, undefined] as const);
    const posts = [
      ['POST /account/w/:ws/signals/:id/edit', `/account/w/{ws}/signals/${a.signal}/edit`, { title: 'edited by B', content: 'edited by B' }],
      ['POST /account/w/:ws/signals/:id/move', `/account/w/{ws}/signals/${a.signal}/move`, { opportunity: a.opportunity }],
      ['POST /account/w/:ws/signals/:id/delete', `/account/w/{ws}/signals/${a.signal}/delete`, {}],
      ['POST /account/w/:ws/signals/:id/not-a-signal', `/account/w/{ws}/signals/${a.signal}/not-a-signal`, {}],
      ['POST /account/w/:ws/signals/bulk', '/account/w/{ws}/signals/bulk', { action: 'delete', ids: a.signal }],
      ['POST /account/w/:ws/notes/:id/status', `/account/w/{ws}/notes/${a.note}/status`, { status: 'done' }],
      ['POST /account/w/:ws/notes/:id/restore', `/account/w/{ws}/notes/${a.note}/restore`, { version: '1' }],
    ] as const;
    const state = async () => (await pg.pool.query(
      `SELECT (SELECT json_agg(json_build_object('id', id, 't', title, 'c', content, 'p', pinned) ORDER BY id) FROM signals WHERE workspace_id = $1) AS signals,
              (SELECT json_agg(json_build_object('o', os.opportunity_id, 's', os.signal_id) ORDER BY os.signal_id) FROM opportunity_signals os JOIN opportunities o ON o.id = os.opportunity_id WHERE o.workspace_id = $1) AS placed,
              (SELECT count(*) FROM signal_changes WHERE workspace_id = $1) AS changes,
              (SELECT json_agg(json_build_object('id', id, 's', status, 'v', version) ORDER BY id) FROM shaping_notes WHERE workspace_id = $1) AS notes`, [a.ws])).rows[0];
    const before = await state();
    const anonymous = async (path: string, h: Record<string, string>, body?: Record<string, string>) =>
      fetch(new URL(path, service.url), { method: body ? 'POST' : 'GET', redirect: 'manual', headers: { ...h, ...(body ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) }, body: body && new URLSearchParams(body) });
    for (const [row, template, form] of [...gets, ...posts]) {
      for (const [who, person, csrf] of [['B token', bob, bobCsrf], ['removed member token', carol, carolCsrf]] as const) {
        const res = form ? await person.post(template.replace('{ws}', a.ws), { ...form, _csrf: csrf }) : await person.get(template.replace('{ws}', a.ws));
        const html = await res.text();
        expect(res.status, `${who} ${row}`).toBe(404);
        expect(leaked(html, template.replace('{ws}', a.ws) + JSON.stringify(form ?? {})), `${who} ${row}`).toEqual([]);
        note(row, who === 'B token' ? 'B session' : 'removed member session', `${res.status}`);
      }
      // Bob with A's ids under his own workspace's path: nothing of A is found or shown.
      const own = template.replace('{ws}', b.ws);
      const res = form ? await bob.post(own, { ...form, _csrf: bobCsrf }) : await bob.get(own);
      const page = await bob.follow(res);
      expect(leaked(page.html, own + JSON.stringify(form ?? {})), `B on own path ${row}`).toEqual([]);
      if (!form && /:id/.test(row.split('?')[0]!)) expect(res.status, `B on own path ${row}`).toBe(404);
      note(row, 'B session, A\'s ids on B\'s path', `${res.status}`);
      for (const who of ['revoked key', 'expired token', 'B key']) {
        const r = await anonymous(template.replace('{ws}', a.ws), cred[who]!, form ? { ...form } : undefined);
        expect(r.status, `${who} ${row}`).toBe(form ? 403 : 303);
        note(row, `${who} (no session)`, `${r.status}`);
      }
    }
    expect(await state()).toEqual(before);
  });
});
