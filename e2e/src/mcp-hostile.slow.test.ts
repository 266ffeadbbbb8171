import { connect } from 'node:net';
import { createApiKey } from '@loupe/api-keys';
import { createPrismaClient, freePort } from '@loupe/db';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledPostgres, demoFrom, type ControlledPostgres, type Demo } from './cluster';
import { argumentSweep, mcpRequests, oauthRequests, type HostileRequest, type McpSetup, type OAuthSetup } from './hostile-requests';
import { admin as adminOn, startProcess, type Started } from './process';
import { registerClient, WebPerson } from './web-person';

// Hostile input for the MCP endpoint and the authorization server, against the real service process:
// generated JSON-RPC bodies and tool arguments, generated OAuth and page requests, and slow senders.
// HOSTILE_RUNS scales it: that many MCP requests (10,000 by default) and a fifth as many OAuth requests.
const RUNS = Number(process.env.HOSTILE_RUNS ?? 10_000);
let pg: ControlledPostgres;
let service: Started;
let demo: Demo;
let mcp: McpSetup;
let oauth: OAuthSetup;
let fuzzer: WebPerson;
let interactionUid = 'none';
const health = { probes: 0, failures: [] as string[] };
let probing = true;
let prober: Promise<void> = Promise.resolve();

const admin = (...args: string[]) => adminOn(pg.url, ...args);

async function send(r: HostileRequest) {
  const res = await fetch(`${service.url}${r.path}`, { method: r.method, headers: r.headers, body: typeof r.body === 'string' || r.body === undefined ? r.body : Buffer.from(r.body), redirect: 'manual' })
    .catch((e: Error & { cause?: Error }) => {
      // Node refuses a request line and headers over 16 KB (431) and closes the socket; a client still sending its body sees a reset.
      const head = Buffer.byteLength(r.path) + Buffer.byteLength(JSON.stringify(r.headers));
      if (head > 16 * 1024 && /ECONNRESET|EPIPE|other side closed/.test(`${e.cause?.message}`)) return undefined;
      throw new Error(`${explain(r, 0, '')}: ${e.message} (${e.cause?.message ?? ''})`);
    });
  if (!res) return { status: 0, text: '', type: '' };
  const text = await res.text();
  return { status: res.status, text, type: res.headers.get('content-type') ?? '' };
}

/** What a failed request was, short enough to read, with the service's log lines of the failure. */
function explain(r: HostileRequest, status: number, text: string) {
  const cut = (v: unknown, n = 300) => { const t = typeof v === 'string' ? v : v === undefined ? '' : `<${(v as Uint8Array).length} bytes>`; return t.length > n ? `${t.slice(0, n)}…(${t.length} chars)` : t; };
  const requestId = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/.exec(text)?.[0];
  const logged = requestId ? service.output().split('\n').filter((l) => l.includes(requestId)).map((l) => cut(l, 2000)).join('\n') : '';
  return `${r.method} ${cut(r.path)} headers ${cut(JSON.stringify(r.headers))} body ${cut(r.body)} → ${status} ${cut(text)}\n${logged}`;
}

function table(title: string, counts: Map<string, Record<number, number>>) {
  const statuses = [...new Set([...counts.values()].flatMap((c) => Object.keys(c).map(Number)))].sort((x, y) => x - y);
  const width = Math.max(6, ...[...counts.keys()].map((k) => k.length));
  const total = (c: Record<number, number>) => Object.values(c).reduce((s, n) => s + n, 0);
  const all: Record<number, number> = {};
  for (const c of counts.values()) for (const [s, n] of Object.entries(c)) all[Number(s)] = (all[Number(s)] ?? 0) + n;
  const row = (name: string, c: Record<number, number>) => `| ${name.padEnd(width)} | ${statuses.map((s) => String(c[s] ?? '').padStart(5)).join(' | ')} | ${String(total(c)).padStart(6)} |`;
  return [
    title,
    `| ${'target'.padEnd(width)} | ${statuses.map((s) => String(s).padStart(5)).join(' | ')} |  total |`,
    `| ${'-'.repeat(width)} | ${statuses.map(() => '----:').join(' | ')} | -----: |`,
    ...[...counts].sort(([x], [y]) => x.localeCompare(y)).map(([k, c]) => row(k, c)),
    row('all', all),
    ...(all[0] ? ['(0: a request line and headers over 16 KB, refused by Node, which closed the socket while the body was still being sent)'] : []),
  ].join('\n');
}

beforeAll(async () => {
  pg = await controlledPostgres();
  service = await startProcess({ DATABASE_URL: pg.url, PORT: String(await freePort()), REQUEST_TIMEOUT_MS: '2000', LOG_LEVEL: 'error', PER_IP_LIMIT_PER_MINUTE: '100000000' });
  demo = demoFrom(service.output());
  const db = createPrismaClient(pg.pool);
  // The per-credential limit is 1,000 an hour: enough keys (and three tokens) for the run.
  const keys: string[] = [];
  for (let i = 0; i < Math.max(12, Math.ceil(RUNS / 400)); i++) {
    keys.push((await createApiKey(db, { workspaceId: demo.workspaceId, name: `mcp fuzz ${i}`, permissions: ['mcp:read', 'mcp:write', 'api:read'], defaultProductId: demo.productId, servicePrefix: 'loupe_' })).key);
  }
  const fuzzWs = /Created workspace (\S+)/.exec(await admin('workspace', 'create', '--name', 'Fuzz', '--owner', 'fuzz@fuzz.test'))![1]!;
  const [product] = await Promise.all([
    admin('product', 'create', '--workspace', fuzzWs, '--name', 'Fuzz app'),
    admin('member', 'add', '--workspace', demo.workspaceId, '--email', 'fuzz@fuzz.test', '--role', 'member'),
    admin('credits', 'grant', '--workspace', demo.workspaceId, '--amount', '100000000'),
  ]);
  const productId = /Created product (\S+)/.exec(product)![1]!;
  const projectId = /Created project (\S+)/.exec(await admin('project', 'create', '--workspace', fuzzWs, '--product', productId, '--name', 'Fuzz project'))![1]!;
  const keyId = /Created API key (\S+)/.exec(await admin('key', 'create', '--workspace', fuzzWs, '--name', 'fuzz', '--permissions', 'api:read'))![1]!;

  const client = await registerClient(service.url, 'Fuzz client');
  fuzzer = new WebPerson(service.url, pg.pool, 'fuzz@fuzz.test', '10.8.0.1');
  const tokens = [];
  for (let i = 0; i < 3; i++) tokens.push(await fuzzer.connect(client, demo.workspaceId, 'mcp:read mcp:write openid email'));
  const own = await fuzzer.connect(client, fuzzWs, 'mcp:read openid');
  await fuzzer.signInToAccount();
  const { rows: [ids] } = await pg.pool.query<{ user_id: string; grant_id: string }>(
    'SELECT user_id, grant_id FROM oauth_grants WHERE workspace_id = $1 LIMIT 1', [fuzzWs]);

  const headers = (h: Record<string, string>) => ({ 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...h });
  const call = async (name: string, args: Record<string, unknown>) => (await (await fetch(`${service.url}/api/mcp`, {
    method: 'POST', headers: headers({ 'x-api-key': keys[0]! }), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  })).json()) as { result: { structuredContent: any } };
  const list = async (method: string) => (await (await fetch(`${service.url}/api/mcp`, { method: 'POST', headers: headers({ 'x-api-key': keys[0]! }), body: JSON.stringify({ jsonrpc: '2.0', id: 1, method }) })).json()) as { result: any };
  const sources = (await call('find_sources', {})).result.structuredContent.items as Array<{ id: string }>;
  const noteId = (await call('create_shaping_note', { product_id: demo.productId, title: 'Fuzz note', content: 'x' })).result.structuredContent.id as string;
  mcp = {
    url: service.url,
    credentials: [...keys.map((k) => ({ 'x-api-key': k })), ...tokens.map((t) => ({ authorization: `Bearer ${t.access_token}` }))],
    tools: (await list('tools/list')).result.tools,
    prompts: ((await list('prompts/list')).result.prompts as Array<{ name: string }>).map((p) => p.name),
    ids: [demo.productId, demo.projectId, noteId, ...sources.slice(0, 5).map((s) => s.id), 'prod_unknown', 'src_unknown'],
  };
  oauth = {
    clientId: client.client_id, redirectUri: client.redirect_uri, refreshToken: own.refresh_token, accessToken: own.access_token, workspaceId: fuzzWs,
    ids: [keyId, ids!.user_id, productId, projectId, ids!.grant_id],
    session: { cookie: fuzzer.cookieHeader(), csrf: await fuzzer.csrf(`/account/w/${fuzzWs}/keys`), interactionCsrf: '' },
  };
  // A live authorization for the interaction pages.
  const start = await fuzzer.get(`/oauth/authorize?${new URLSearchParams({ response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uri, state: 's', code_challenge: 'E9Melhoa2OwvFrEMTJguCHaoeK1t8URWbuGJSstw-cM', code_challenge_method: 'S256' })}`);
  interactionUid = /\/oauth\/interaction\/([^/?]+)/.exec(start.headers.get('location') ?? '')?.[1] ?? 'none';
  oauth.session.interactionCsrf = await fuzzer.csrf(`/oauth/interaction/${interactionUid}`);
  oauth.session.cookie = fuzzer.cookieHeader();

  prober = (async () => {
    while (probing) {
      const res = await fetch(`${service.url}/healthz`).catch((e: Error) => e);
      health.probes++;
      if (res instanceof Error || res.status !== 200) health.failures.push(res instanceof Error ? res.message : String(res.status));
      if (!(res instanceof Error)) await res.arrayBuffer();
      await new Promise((r) => setTimeout(r, 250));
    }
  })();
}, 180_000);

afterAll(async () => {
  probing = false;
  await prober;
  await service?.stop();
  await pg?.destroy();
});

describe('hostile input to the MCP endpoint and the authorization server', () => {
  it(`answers ${RUNS} generated MCP requests without a 500 or a crash, with counts that add up`, async () => {
    const counts = new Map<string, Record<number, number>>();
    let sent = 0;
    const sweep = argumentSweep(mcp);
    let wrongTypes = 0;
    for (const r of sweep) {
      sent++;
      const { status, text } = await send(r);
      const c = counts.get(r.target) ?? counts.set(r.target, {}).get(r.target)!;
      c[status] = (c[status] ?? 0) + 1;
      expect([200, 429], explain(r, status, text)).toContain(status);
      // A wrong argument is the tool's own error (spec 7.4), never a transport failure.
      if (status === 200 && r.wrongType) expect(JSON.parse(text), explain(r, status, text)).toMatchObject({ result: { isError: true } });
      if (r.wrongType) wrongTypes++;
    }
    await fc.assert(
      fc.asyncProperty(mcpRequests(mcp), async (r) => {
        sent++;
        const { status, text, type } = await send(r);
        const c = counts.get(r.target) ?? counts.set(r.target, {}).get(r.target)!;
        c[status] = (c[status] ?? 0) + 1;
        if (status >= 500) await new Promise((done) => setTimeout(done, 500)); // the service's log line of it, flushed
        expect(status, explain(r, status, text)).toBeLessThan(500);
        expect([200, 202, 204, 400, 401, 403, 404, 405, 406, 413, 415, 429], explain(r, status, text)).toContain(status);
        if (type.includes('json') && r.method !== 'HEAD') expect(() => JSON.parse(text), explain(r, status, text)).not.toThrow();
      }),
      { numRuns: RUNS, endOnFailure: true, reporter: (out) => { if (out.failed) throw new Error(`seed ${out.seed} path ${out.counterexamplePath}: ${(out.errorInstance as Error)?.message}`); } },
    );
    console.log(table(`MCP: ${sent} requests sent (${sweep.length} in the argument sweep, ${wrongTypes} of them with a type the schema refuses); health probes ${health.probes}, failed ${health.failures.length}`, counts));
    const total = [...counts.values()].flatMap((c) => Object.values(c)).reduce((s, n) => s + n, 0);
    expect(total).toBe(sent);
    expect(sent).toBe(RUNS + sweep.length);
    expect(service.child.exitCode).toBeNull();
    expect(health.failures).toEqual([]);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  }, 600_000);

  it(`answers ${Math.round(RUNS / 5)} generated OAuth and page requests without a 500 or a crash, with counts that add up`, async () => {
    const runs = Math.round(RUNS / 5);
    const counts = new Map<string, Record<number, number>>();
    let sent = 0;
    await fc.assert(
      fc.asyncProperty(oauthRequests(oauth, () => interactionUid), async (r) => {
        sent++;
        const { status, text } = await send(r);
        const c = counts.get(r.target) ?? counts.set(r.target, {}).get(r.target)!;
        c[status] = (c[status] ?? 0) + 1;
        if (status >= 500) await new Promise((done) => setTimeout(done, 500)); // the service's log line of it, flushed
        expect(status, explain(r, status, text)).toBeLessThan(500);
      }),
      { numRuns: runs, endOnFailure: true, reporter: (out) => { if (out.failed) throw new Error(`seed ${out.seed} path ${out.counterexamplePath}: ${(out.errorInstance as Error)?.message}`); } },
    );
    console.log(table(`OAuth and pages: ${sent} requests sent; health probes ${health.probes}, failed ${health.failures.length}`, counts));
    const total = [...counts.values()].flatMap((c) => Object.values(c)).reduce((s, n) => s + n, 0);
    expect(total).toBe(sent);
    expect(sent).toBe(runs);
    expect(service.child.exitCode).toBeNull();
    expect(health.failures).toEqual([]);
  }, 600_000);

  it('refuses a body over 75 MB with 413 and keeps serving', async () => {
    const body = `{"jsonrpc":"2.0","id":1,"method":"tools/list","params":{"pad":"${'x'.repeat(76 * 1024 * 1024)}"}}`;
    const res = await fetch(`${service.url}/api/mcp`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...mcp.credentials[0] }, body }).catch((e: Error) => e);
    // The server may close the connection once it has answered, before the whole body is sent.
    if (!(res instanceof Error)) expect(res.status).toBe(413);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  }, 120_000);

  it('cuts off slow senders of headers and of bodies while other requests are served', async () => {
    const port = Number(new URL(service.url).port);
    const kinds = ['headers', 'mcp body', 'mcp chunked', 'token body'] as const;
    const slow = await Promise.all(Array.from({ length: 40 }, async (_, i) => {
      const kind = kinds[i % kinds.length]!;
      const socket = connect(port, '127.0.0.1');
      await new Promise((r) => socket.once('connect', r));
      const auth = `x-api-key: ${mcp.credentials[i % 10]!['x-api-key']}\r\n`;
      const start = {
        'headers': 'POST /api/mcp HTTP/1.1\r\nHost: localhost\r\n',
        'mcp body': `POST /api/mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${auth}Content-Length: 4000000\r\n\r\n{`,
        'mcp chunked': `POST /api/mcp HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n${auth}Transfer-Encoding: chunked\r\n\r\n1\r\n{\r\n`,
        'token body': 'POST /oauth/token HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/x-www-form-urlencoded\r\nContent-Length: 100000\r\n\r\ngrant_type=',
      }[kind];
      socket.write(start);
      let n = 0;
      const timer = setInterval(() => {
        if (!socket.writable) return;
        n++;
        socket.write(kind === 'headers' ? `x-slow-${n}: ${n}\r\n` : kind === 'mcp chunked' ? '1\r\n \r\n' : ' ');
      }, 200);
      let answer = '';
      socket.on('data', (d) => (answer += d.toString()));
      socket.on('error', () => {});
      const started = Date.now();
      const closed = new Promise<number>((r) => socket.once('close', () => r(Date.now() - started)));
      return { kind, closed, timer, answer: () => answer };
    }));
    const served = await Promise.all([
      ...Array.from({ length: 4 }, () => fetch(`${service.url}/healthz`)),
      ...Array.from({ length: 4 }, () => fetch(`${service.url}/.well-known/oauth-authorization-server`)),
      ...Array.from({ length: 4 }, (_, i) => fetch(`${service.url}/api/mcp`, {
        method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...mcp.credentials[i % mcp.credentials.length] },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_products', arguments: {} } }),
      })),
    ].map(async (p) => (await p).status));
    const closedAfter = await Promise.all(slow.map((s) => s.closed));
    slow.forEach((s) => clearInterval(s.timer));
    const byKind = Object.fromEntries(kinds.map((k) => [k, slow.filter((s) => s.kind === k).map((s) => /^HTTP\/1.1 (\d+)/.exec(s.answer())?.[1] ?? 'closed')]));
    console.log(`slow senders: ${slow.length} cut off after ${Math.min(...closedAfter)}–${Math.max(...closedAfter)} ms (${JSON.stringify(byKind)}); meanwhile ${served.length} requests answered ${JSON.stringify(served)}`);
    expect(served.every((s) => s === 200)).toBe(true);
    // Every slow socket was closed by the server (awaited above); the health probes never failed meanwhile.
    expect(health.failures).toEqual([]);
    expect(service.child.exitCode).toBeNull();
  }, 120_000);
});
