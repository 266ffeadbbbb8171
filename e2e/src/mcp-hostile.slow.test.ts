import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { createApiKey } from '@loupe/api-keys';
import { createPrismaClient, freePort } from '@loupe/db';
import { docxBomb, lyingAboutSizes, pdfBomb } from '@loupe/mcp-server/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledPostgres, demoFrom, type ControlledPostgres, type Demo } from './cluster';
import { argumentSweep, mcpRequests, oauthRequests, type HostileRequest, type McpSetup, type OAuthSetup } from './hostile-requests';
import { admin as adminOn, startProcess, type Started } from './process';
import { registerClient, WebPerson } from './web-person';

// Hostile input for the MCP endpoint and the authorization server, against the real service process:
// generated JSON-RPC bodies and tool arguments, generated OAuth and page requests, and slow senders.
// HOSTILE_RUNS scales it: that many MCP requests (10,000 by default) and a fifth as many OAuth requests.
// Issue 23: document bombs, long signals, workspace-creation and invitation loops, and beside every
// table the service's event-loop delay over that test (its monitorEventLoopDelay histogram, p99 and max).
const RUNS = Number(process.env.HOSTILE_RUNS ?? 10_000);
/**
 * The longest the service's event loop may be held up over one test (max of its delay histogram; the
 * histogram samples every 10 ms, so an idle loop reads ~10 ms), and its p99. Measured on a shared
 * 2-core machine at load ~10, where an idle loop already reads p99 ~30–45 ms from CPU starvation alone;
 * the stalls of issue 23 were 7–11 s. Tighten them with HOSTILE_LOOP_P99_MS / HOSTILE_LOOP_MAX_MS on a quiet machine.
 */
const LOOP_BOUND_MS = { max: Number(process.env.HOSTILE_LOOP_MAX_MS ?? 250), p99: Number(process.env.HOSTILE_LOOP_P99_MS ?? 75) };
/**
 * The generated requests include add_source calls with up to 6 MB of text and 1 MB of arguments nested
 * thousands deep, which the service parses and validates on the loop: JSON.parse of a 6 MB body ~10 ms,
 * a 4 MB record stringified once ~20 ms (it was serialised, re-parsed and measured by a second
 * stringify: ~100 ms, max 135–254 ms over a run). Measured over 11,691 requests in the fresh-clone run
 * of 2026-11-25: p99 40 ms, max 107 ms. The bound leaves room for a loaded CI machine.
 */
const GENERATED_LOOP_BOUND_MS = { max: Number(process.env.HOSTILE_GENERATED_LOOP_MAX_MS ?? 500), p99: Number(process.env.HOSTILE_GENERATED_LOOP_P99_MS ?? 150) };
let pg: ControlledPostgres;
let service: Started;
let demo: Demo;
let mcp: McpSetup;
let oauth: OAuthSetup;
let fuzzer: WebPerson;
let interactionUid = 'none';
let apiKeys: string[] = [];
let sourceIds: string[] = [];
const health = { probes: 0, failures: [] as string[] };
let probing = true;
let prober: Promise<void> = Promise.resolve();

const admin = (...args: string[]) => adminOn(pg.url, ...args);

/**
 * The service's event-loop delay since the previous call: prom-client's monitorEventLoopDelay
 * histogram, read from /metrics, which resets it at every scrape.
 */
async function loopDelay(): Promise<{ p99Ms: number; maxMs: number }> {
  const text = await (await fetch(`${service.url}/metrics`)).text();
  const read = (stat: string) => {
    const value = new RegExp(`^loupe_process_nodejs_eventloop_lag_${stat}_seconds (\\S+)$`, 'm').exec(text)?.[1];
    if (value === undefined) throw new Error(`no event-loop ${stat} in /metrics`);
    return Math.round(Number(value) * 10_000) / 10;
  };
  return { p99Ms: read('p99'), maxMs: read('max') };
}
/**
 * The most the service's resident memory may grow while the document bombs are read: measured 351 and 424 MB
 * (586 → 937, 557 → 981) for nine bombs, six at once; read whole, one ran the process out of heap (issue 23).
 */
const BOMB_RSS_GROWTH_MB = 768;
/** The slowest /healthz answer allowed while bombs are read, seen from this test process. */
const HEALTH_BOUND_MS = Number(process.env.HOSTILE_HEALTH_MAX_MS ?? 500);
/** Issue 21: a long-signal product does not delay /healthz beyond 50 ms (p99 as its client sees it). */
const LONG_SIGNALS_HEALTH_P99_MS = Number(process.env.HOSTILE_LONG_SIGNALS_HEALTH_P99_MS ?? 50);
const delayLine = (d: { p99Ms: number; maxMs: number }, bounds = LOOP_BOUND_MS) => `event-loop delay p99 ${d.p99Ms} ms, max ${d.maxMs} ms (bounds ${bounds.p99} / ${bounds.max} ms)`;
function expectLoopWithinBounds(d: { p99Ms: number; maxMs: number }, bounds = LOOP_BOUND_MS) {
  expect(d.p99Ms, delayLine(d, bounds)).toBeLessThanOrEqual(bounds.p99);
  expect(d.maxMs, delayLine(d, bounds)).toBeLessThanOrEqual(bounds.max);
}

/** The service process's resident memory now, in MB (it is the process startProcess spawned). */
const rssMb = () => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${service.child.pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

/** /healthz latency and the service's memory, sampled until `stop()`. */
function sampleWhile() {
  const health: number[] = [];
  const rssBefore = rssMb();
  let rss = rssBefore;
  let on = true;
  const probing = (async () => {
    while (on) {
      const started = performance.now();
      await (await fetch(`${service.url}/healthz`)).arrayBuffer();
      health.push(performance.now() - started);
      rss = Math.max(rss, rssMb());
      await new Promise((r) => setTimeout(r, 20));
    }
  })();
  return {
    async stop() {
      on = false;
      await probing;
      const sorted = [...health].sort((a, b) => a - b);
      return { probes: health.length, p99Ms: Math.round(sorted[Math.floor(sorted.length * 0.99)] ?? 0), maxMs: Math.round(sorted.at(-1) ?? 0), rssBeforeMb: rssBefore, rssMaxMb: rss };
    },
  };
}

/** One tools/call with an API key: its JSON-RPC result (or error), with the status. */
async function toolCall(key: string, name: string, args: Record<string, unknown>) {
  const res = await fetch(`${service.url}/api/mcp`, {
    method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
  });
  const body = (await res.json()) as { result?: { isError?: boolean; content: Array<{ text: string }>; structuredContent?: any } };
  return { status: res.status, isError: body.result?.isError === true, text: body.result?.content[0]?.text ?? '', data: body.result?.structuredContent };
}

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
  service = await startProcess({ DATABASE_URL: pg.url, LOUPE_DEMO: '1', PORT: String(await freePort()), REQUEST_TIMEOUT_MS: '2000', LOG_LEVEL: 'error', PER_IP_LIMIT_PER_MINUTE: '100000000' });
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
  apiKeys = keys;
  sourceIds = sources.map((s) => s.id);
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
    await loopDelay();
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
    const delay = await loopDelay();
    console.log(table(`MCP: ${sent} requests sent (${sweep.length} in the argument sweep, ${wrongTypes} of them with a type the schema refuses); health probes ${health.probes}, failed ${health.failures.length}; ${delayLine(delay, GENERATED_LOOP_BOUND_MS)}`, counts));
    expectLoopWithinBounds(delay, GENERATED_LOOP_BOUND_MS);
    const total = [...counts.values()].flatMap((c) => Object.values(c)).reduce((s, n) => s + n, 0);
    expect(total).toBe(sent);
    expect(sent).toBe(RUNS + sweep.length);
    expect(service.child.exitCode).toBeNull();
    expect(health.failures).toEqual([]);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  }, 600_000);

  it(`answers ${Math.round(RUNS / 5)} generated OAuth and page requests without a 500 or a crash, with counts that add up`, async () => {
    const runs = Math.round(RUNS / 5);
    await loopDelay();
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
    const delay = await loopDelay();
    console.log(table(`OAuth and pages: ${sent} requests sent; health probes ${health.probes}, failed ${health.failures.length}; ${delayLine(delay)}`, counts));
    expectLoopWithinBounds(delay);
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

  // Issue 23 item 1: a 138 KB .docx ran the process out of heap, a 128 KB PDF stalled /healthz 11 s.
  it('answers zip and PDF bombs with a tool error within 5 s, /healthz fast and memory bounded meanwhile', async () => {
    const bombs: Array<[string, string, Buffer]> = [
      ['docx inflating to 45 MB', 'bomb.docx', await docxBomb(45)],
      ['docx lying about its sizes', 'liar.docx', lyingAboutSizes(await docxBomb(12))],
      ['PDF stream inflating to 50 MB', 'bomb.pdf', pdfBomb(50)],
    ];
    await loopDelay();
    const sampler = sampleWhile();
    const rows: string[] = [];
    const send = async ([what, filename, bytes]: [string, string, Buffer], key: string) => {
      const started = performance.now();
      const r = await toolCall(key, 'add_source', { project_id: demo.projectId, source_type: 'document', file_base64: bytes.toString('base64'), filename });
      const ms = Math.round(performance.now() - started);
      rows.push(`| ${what.padEnd(30)} | ${String(Math.round(bytes.length / 1024)).padStart(6)} KB | ${String(r.status).padStart(3)} | ${r.isError ? 'tool error' : 'ACCEPTED'} | ${String(ms).padStart(5)} ms | ${r.text.slice(0, 90)}`);
      return { r, ms };
    };
    const one = [];
    for (const bomb of bombs) one.push(await send(bomb, apiKeys[1]!));
    // And all of them at once, twice over.
    const together = await Promise.all([...bombs, ...bombs].map((b, i) => send(b, apiKeys[2 + (i % 2)]!)));
    const health = await sampler.stop();
    const delay = await loopDelay();
    console.log([
      `Document bombs (add_source): /healthz ${health.probes} probes, p99 ${health.p99Ms} ms, max ${health.maxMs} ms; service RSS ${health.rssBeforeMb} MB before, max ${health.rssMaxMb} MB; ${delayLine(delay)}`,
      '| bomb                           |     size |  st | answer     |     time | message',
      ...rows,
    ].join('\n'));
    for (const { r, ms } of [...one, ...together]) {
      expect(r.status).toBe(200);
      expect(r.isError, r.text).toBe(true);
      expect(r.text).toMatch(/^file_base64: /);
      expect(ms).toBeLessThan(5000);
    }
    // What the bombs add, not what the service held before them: the total of the same code reached 945 MB in
    // one CI run and 1,027 MB in the next, with the service's state after the tests above.
    expect(health.rssMaxMb - health.rssBeforeMb).toBeLessThan(BOMB_RSS_GROWTH_MB);
    // /healthz as its client sees it (client and machine noise included): never the seconds-long stalls of before.
    expect(health.maxMs).toBeLessThan(HEALTH_BOUND_MS);
    expectLoopWithinBounds(delay);
    expect(service.child.exitCode).toBeNull();
  }, 180_000);

  // Issue 23 item 2 and issue 21: a product of 400 signals of ~14 KB (an add_signals once froze the
  // whole service 12 s on them). /healthz is asked every 20 ms from the first call until the worker has
  // placed every signal in an opportunity (embedding and clustering run in its semantics thread):
  // while the product is embedded and clustered its p99 stays under 50 ms; the event loop stays within
  // bounds in both windows (the calls themselves are issue 23's guard).
  it('takes 400 signals of ~14 KB through add_signals and clusters them with /healthz under 50 ms', async () => {
    await loopDelay();
    const started = performance.now();
    const sampler = sampleWhile();
    const text = (i: number) => `Signal ${i}: ` + Array.from({ length: 1400 }, (_, j) => ['exports', 'are', 'slow', 'when', 'the', 'report', 'has', 'many', 'rows', `w${(i * 7 + j) % 97}`][j % 10]).join(' ');
    const statuses: number[] = [];
    for (let batch = 0; batch < 4; batch++) {
      const signals = Array.from({ length: 100 }, (_, k) => ({ type: 'problem', title: `Long signal ${batch * 100 + k}`, content: text(batch * 100 + k).slice(0, 14_000) }));
      const r = await toolCall(apiKeys[4]!, 'add_signals', { source_id: sourceIds[0], signals });
      expect(r.isError, r.text).toBe(false);
      statuses.push(r.status);
    }
    const calls = await loopDelay();
    const callsMs = Math.round(performance.now() - started);
    const callsHealth = await sampler.stop();
    // Until the worker has placed every one (the view says how many wait), plus two seconds of the product at rest.
    const clusteringSampler = sampleWhile();
    let view = await toolCall(apiKeys[4]!, 'get_opportunities', { product_id: demo.productId });
    for (let i = 0; i < 600 && view.data?.pending_signals !== 0; i++) {
      await new Promise((r) => setTimeout(r, 200));
      view = await toolCall(apiKeys[4]!, 'get_opportunities', { product_id: demo.productId });
    }
    const placedMs = Math.round(performance.now() - started);
    await new Promise((r) => setTimeout(r, 2_000));
    const health = await clusteringSampler.stop();
    const clustering = await loopDelay();
    console.log([
      `400 signals of ~14 KB in 4 add_signals calls: ${callsMs} ms, statuses ${JSON.stringify(statuses)}; ${delayLine(calls)}`,
      `all placed in opportunities after ${placedMs} ms (get_opportunities ${view.status}, ${JSON.stringify(view.text).length} characters): ${delayLine(clustering)}`,
      `/healthz during the calls (each parses and stores 1.4 MB on the loop): ${callsHealth.probes} probes, p99 ${callsHealth.p99Ms} ms, max ${callsHealth.maxMs} ms`,
      `/healthz while the product is embedded and clustered, and after: ${health.probes} probes, p99 ${health.p99Ms} ms, max ${health.maxMs} ms (bound p99 ${LONG_SIGNALS_HEALTH_P99_MS} ms)`,
    ].join('\n'));
    expect(view.data?.pending_signals).toBe(0);
    expectLoopWithinBounds(calls);
    expectLoopWithinBounds(clustering);
    expect(health.p99Ms).toBeLessThan(LONG_SIGNALS_HEALTH_P99_MS);
  }, 240_000);

  // Issue 23 items 3 and 5: one person farming workspaces (and their welcome credits) and sending invitations.
  it('cuts off workspace-creation loops and invitation loops, granting welcome credits once', async () => {
    const farmer = new WebPerson(service.url, pg.pool, 'farmer@loops.test', '10.23.0.7');
    await farmer.signInToAccount();
    await loopDelay();
    const created: Record<number, number> = {};
    for (let i = 0; i < 20; i++) {
      const res = await farmer.post('/account/workspaces', { _csrf: await farmer.csrf('/account?all=1'), name: `Loop ${i}` });
      created[res.status] = (created[res.status] ?? 0) + 1;
    }
    const { rows: owned } = await pg.pool.query<{ id: string; credit_balance: number }>(
      `SELECT w.id, w.credit_balance FROM workspaces w JOIN memberships m ON m.workspace_id = w.id JOIN users u ON u.id = m.user_id
        WHERE u.email = 'farmer@loops.test' ORDER BY w.created_at`);
    const invited: Record<number, number> = {};
    for (let i = 0; i < 60; i++) {
      const res = await farmer.post(`/account/w/${owned[0]!.id}/members/invite`, { _csrf: await farmer.csrf(`/account/w/${owned[0]!.id}/members`), email: `target${i}@victims.test`, role: 'member' });
      invited[res.status] = (invited[res.status] ?? 0) + 1;
    }
    const { rows: [mail] } = await pg.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM mail_outbox WHERE kind = 'invitation' AND to_address LIKE '%@victims.test'");
    const delay = await loopDelay();
    console.log(`Loops of one person: 20 workspace creations → ${JSON.stringify(created)}, ${owned.length} made, credits ${owned.map((w) => w.credit_balance).join('/')}; 60 invitations → ${JSON.stringify(invited)}, ${mail!.n} mailed; ${delayLine(delay)}`);
    expect(created).toEqual({ 303: 5, 429: 15 });
    expect(owned.map((w) => w.credit_balance)).toEqual([100, 0, 0, 0, 0]);
    expect(invited).toEqual({ 303: 20, 429: 40 });
    expect(mail!.n).toBe(20);
    expectLoopWithinBounds(delay);
  }, 180_000);
});
