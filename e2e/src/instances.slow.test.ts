import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import { createServer, type Server } from 'node:http';
import { freePort } from '@loupe/db';
import { APPS, startApp, startPathProxy, type HttpApp, type RunningApp } from '@loupe/tools/deploy';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledPostgres, FAST_JOBS, type ControlledPostgres } from './cluster';
import { mcpRpc, mcpTool, outcome, tokenRequest } from './mcp-client';
import { admin } from './process';
import { registerClient, WebPerson } from './web-person';

// Issue 47: two instances of every role (four HTTP apps and the worker) as separate processes on one
// PostgreSQL and one bucket, behind one address that takes the instances in turn: limits (per IP and per
// key) and credits hold across them, workspaces stay apart on each, a refresh token rotated on one
// authorization server is a replay on the other, what one instance's worker stored is searched through
// either MCP instance, and killing an API instance and a worker during a load loses no accepted record.
describe('two instances of every role', () => {
  let pg: ControlledPostgres;
  let s3: S3rver;
  let dir: string;
  let files: Server;
  let proxy: Awaited<ReturnType<typeof startPathProxy>>;
  const running: RunningApp[] = [];
  const ports = {} as Record<HttpApp, number[]>;
  let output = '';
  let key: string;
  let mcpKey: string;
  let productId: string;
  let projectId: string;
  let endpoint: string;
  const PER_IP = 60;

  beforeAll(async () => {
    pg = await controlledPostgres();
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-instances-'));
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: path.join(dir, 's3'), configureBuckets: [{ name: 'loupe', configs: [] }] });
    endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
    files = createServer((_req, res) => res.end('a recording'));
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    for (const app of APPS) ports[app] = [await freePort(), await freePort()];
    proxy = await startPathProxy(ports);
    const common = {
      DATABASE_URL: pg.url, PUBLIC_BASE_URL: proxy.url, TRUSTED_PROXIES: 'loopback', ...FAST_JOBS, LOG_LEVEL: 'warn',
      STORAGE_URL: 's3://loupe/attachments', S3_ENDPOINT: endpoint, S3_FORCE_PATH_STYLE: 'true', AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER',
      FETCH_ALLOW_LOOPBACK: 'true', PER_IP_LIMIT_PER_MINUTE: String(PER_IP),
    };
    const log = (text: string) => (output += text);
    // The first one migrates; the others find the schema ready.
    running.push(await startApp('auth-server', { ...common, DATA_DIR: path.join(dir, 'a0'), PORT: String(ports['auth-server'][0]) }, log));
    const rest: Array<Promise<RunningApp>> = [startApp('auth-server', { ...common, DATA_DIR: path.join(dir, 'a1'), PORT: String(ports['auth-server'][1]) }, log)];
    for (const app of ['ingest-api', 'mcp-server', 'web'] as const) {
      for (const i of [0, 1]) rest.push(startApp(app, { ...common, DATA_DIR: path.join(dir, `${app}${i}`), PORT: String(ports[app][i]) }, log));
    }
    for (const i of [0, 1]) rest.push(startApp('worker', { ...common, DATA_DIR: path.join(dir, `w${i}`) }, log));
    running.push(...(await Promise.all(rest)));
    const ws = /Created workspace (\S+)/.exec(await admin(pg.url, 'workspace', 'create', '--name', 'Acme', '--owner', 'owner@acme.test'))![1]!;
    productId = /Created product (\S+)/.exec(await admin(pg.url, 'product', 'create', '--workspace', ws, '--name', 'Acme App'))![1]!;
    projectId = /Created project (\S+)/.exec(await admin(pg.url, 'project', 'create', '--workspace', ws, '--product', productId, '--name', 'Main'))![1]!;
    key = (await admin(pg.url, 'key', 'create', '--workspace', ws, '--name', 'ingest', '--permissions', 'api:read,api:write')).trim().split('\n').at(-1)!;
    mcpKey = (await admin(pg.url, 'key', 'create', '--workspace', ws, '--name', 'mcp', '--permissions', 'mcp:read', '--product', productId)).trim().split('\n').at(-1)!;
    await admin(pg.url, 'credits', 'grant', '--workspace', ws, '--amount', '100000');
  }, 240_000);

  afterAll(async () => {
    await Promise.all(running.map((r) => r.stop()));
    await proxy?.close();
    files?.close();
    await s3?.close();
    await pg?.destroy();
    await rm(dir, { recursive: true, force: true });
  });

  const record = (id: string, text: string, extra: Record<string, unknown> = {}) => ({
    _type: 'email', _schema_version: '1.0.0', _event_at: '2026-11-20T10:00:00Z', _vendor_ids: { run: id },
    _product_id: productId, _project_ids: [projectId], _nature: 'evidence', data: { subject: text, from: 'ana@globex.test', body: text }, ...extra,
  });
  const post = (body: unknown, headers: Record<string, string> = {}, from = '203.0.113.7') => fetch(`${proxy.url}/api/v1/ingest`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key, 'x-forwarded-for': from, ...headers }, body: JSON.stringify(body),
  });

  /** Straight to one instance of an app, as the proxy would send it (the public host, a forwarded client address). */
  const at = (app: HttpApp, i: number) => `http://127.0.0.1:${ports[app][i]}`;
  const publicHost = () => new URL(proxy.url).host;
  const newWorkspace = async (name: string) => {
    const ws = /Created workspace (\S+)/.exec(await admin(pg.url, 'workspace', 'create', '--name', name, '--owner', `owner@${name.toLowerCase()}.test`))![1]!;
    const product = /Created product (\S+)/.exec(await admin(pg.url, 'product', 'create', '--workspace', ws, '--name', `${name} App`))![1]!;
    return { ws, product };
  };

  it('stores through one instance\'s worker into the bucket what both MCP instances then find and either API instance serves', async () => {
    const sent = await post([record('bucket-1', 'The nightly zorbl export fails', { _attachments: [{ type: 'audio', vendor_url: `http://127.0.0.1:${(files.address() as { port: number }).port}/call.mp3` }] })]);
    expect(sent.status).toBe(202);
    for (const port of ports['mcp-server']) {
      let found: any;
      for (let i = 0; i < 120 && !found?.items?.length; i++) {
        await new Promise((r) => setTimeout(r, 500));
        found = (await mcpTool(`http://127.0.0.1:${port}`, { 'x-api-key': mcpKey, host: new URL(proxy.url).host }, 'find_sources', { query: 'zorbl export' })).result?.structuredContent;
      }
      expect(found?.items?.[0]?.title).toMatch(/zorbl/);
    }
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    let objects: string[] = [];
    for (let i = 0; i < 120 && objects.length === 0; i++) {
      objects = ((await client.send(new ListObjectsV2Command({ Bucket: 'loupe', Prefix: 'attachments/' }))).Contents ?? []).map((o) => o.Key!);
      if (!objects.length) await new Promise((r) => setTimeout(r, 250));
    }
    client.destroy();
    expect(objects).toHaveLength(1);
    // Either API instance serves the file from the bucket.
    const { rows: [stored] } = await pg.pool.query<{ id: string }>("SELECT id FROM records WHERE vendor_ids->>'run' = 'bucket-1'");
    for (const i of [0, 1]) {
      const served = await fetch(`${at('ingest-api', i)}/api/v1/records/${stored!.id}/attachments/0`, { headers: { 'x-api-key': key, host: publicHost(), 'x-forwarded-for': '203.0.113.70' } });
      expect(served.status).toBe(200);
      expect(await served.text()).toBe('a recording');
    }
  });

  it('holds the per-IP limit across both instances of the API (one count, in PostgreSQL)', async () => {
    // Ten keys in turn, so no key reaches its own limit (10 a second); one client address for all.
    const keys: string[] = [];
    const ws = /\S+/.exec((await admin(pg.url, 'workspace', 'list')).trim())![0]!;
    for (let i = 0; i < 10; i++) keys.push((await admin(pg.url, 'key', 'create', '--workspace', ws, '--name', `ip ${i}`, '--permissions', 'api:read')).trim().split('\n').at(-1)!);
    // The limit counts per minute: start well inside one, so the burst below stays in it.
    while (new Date().getUTCSeconds() > 45) await new Promise((r) => setTimeout(r, 500));
    const answers: Array<{ status: number; body: string }> = [];
    for (let i = 0; i < PER_IP + 10; i++) {
      const r = await fetch(`${proxy.url}/api/v1/ingest/batches?limit=1`, { headers: { 'x-api-key': keys[i % keys.length]!, 'x-forwarded-for': '198.51.100.9' } });
      answers.push({ status: r.status, body: await r.text() });
    }
    expect(answers.filter((a) => a.status === 200)).toHaveLength(PER_IP);
    const refused = answers.filter((a) => a.status === 429);
    expect(refused).toHaveLength(10);
    expect(refused[0]!.body).toMatch(/Too many requests from your IP address: at most 60 per minute/);
    // Both instances answered: the count is the service's, not one process's.
    expect(proxy.routed.get('ingest-api')).toBeGreaterThanOrEqual(PER_IP + 10);
  });

  it('keeps workspaces apart on every instance: another workspace\'s key finds nothing of this one through either', async () => {
    const sent = await post([record('isolation-1', 'The quarterly zorbl report is late')]);
    expect(sent.status).toBe(202);
    const batchId = ((await sent.json()) as { batchId: string }).batchId;
    const { ws, product } = await newWorkspace('Umbrella');
    const theirKey = (await admin(pg.url, 'key', 'create', '--workspace', ws, '--name', 'api', '--permissions', 'api:read')).trim().split('\n').at(-1)!;
    const theirMcp = (await admin(pg.url, 'key', 'create', '--workspace', ws, '--name', 'mcp', '--permissions', 'mcp:read', '--product', product)).trim().split('\n').at(-1)!;
    await admin(pg.url, 'credits', 'grant', '--workspace', ws, '--amount', '100');
    for (const i of [0, 1]) {
      const headers = (k: string) => ({ 'x-api-key': k, host: publicHost(), 'x-forwarded-for': `203.0.113.${60 + i}` });
      const mine = await fetch(`${at('ingest-api', i)}/api/v1/ingest/batches/${batchId}`, { headers: headers(key) });
      const theirs = await fetch(`${at('ingest-api', i)}/api/v1/ingest/batches/${batchId}`, { headers: headers(theirKey) });
      expect([mine.status, theirs.status]).toEqual([200, 404]);
      const exported = await (await fetch(`${at('ingest-api', i)}/api/v1/export`, { headers: headers(theirKey) })).text();
      expect(exported).not.toContain('zorbl');
      const found = await mcpTool(at('mcp-server', i), { ...headers(theirMcp) }, 'find_sources', { query: 'zorbl report' });
      expect(found.ok).toBe(true);
      expect(found.result?.structuredContent?.items ?? []).toEqual([]);
    }
  });

  it('holds a key\'s rate limit across both instances of the API: 10 a second in all, not 10 each', async () => {
    let allowed: number[] = [];
    // A burst that straddles two windows may be allowed 10 in each: try again in a fresh second, with a fresh key.
    for (let attempt = 0; attempt < 3; attempt++) {
      const ws = /\S+/.exec((await admin(pg.url, 'workspace', 'list')).trim())![0]!;
      const burstKey = (await admin(pg.url, 'key', 'create', '--workspace', ws, '--name', `burst ${attempt}`, '--permissions', 'api:read')).trim().split('\n').at(-1)!;
      while (new Date().getMilliseconds() > 300) await new Promise((r) => setTimeout(r, 20));
      const answers = await Promise.all(Array.from({ length: 24 }, (_, i) => fetch(`${at('ingest-api', i % 2)}/api/v1/ingest/batches?limit=1`, {
        headers: { 'x-api-key': burstKey, 'x-forwarded-for': `198.51.100.${100 + i}`, host: publicHost() },
      }).then(async (r) => ({ status: r.status, instance: i % 2, body: await r.text() }))));
      allowed = [0, 1].map((instance) => answers.filter((a) => a.instance === instance && a.status === 200).length);
      const refused = answers.filter((a) => a.status === 429);
      expect(answers.length).toBe(allowed[0]! + allowed[1]! + refused.length);
      if (allowed[0]! + allowed[1]! === 10) {
        expect(new Set(refused.map((a) => a.instance))).toEqual(new Set([0, 1]));
        expect(JSON.parse(refused[0]!.body)).toMatchObject({ error: 'RATE_LIMITED' });
        break;
      }
    }
    expect(allowed[0]! + allowed[1]!).toBe(10);
  });

  it('spends a workspace\'s credits once across both MCP instances: calls past the balance are refused on either', async () => {
    const { ws, product } = await newWorkspace('Initech');
    const key3 = (await admin(pg.url, 'key', 'create', '--workspace', ws, '--name', 'mcp', '--permissions', 'mcp:read', '--product', product)).trim().split('\n').at(-1)!;
    await admin(pg.url, 'credits', 'grant', '--workspace', ws, '--amount', '3');
    const outcomes: string[] = [];
    for (let i = 0; i < 6; i++) {
      const answer = await mcpTool(at('mcp-server', i % 2), { 'x-api-key': key3, host: publicHost(), 'x-forwarded-for': '203.0.113.50' }, 'find_sources', { query: `credits ${i}` });
      outcomes.push(answer.ok ? 'ok' : /no credits left/.test(answer.message) ? 'paused' : `other: ${outcome(answer)} ${answer.message}`);
    }
    expect(outcomes).toEqual(['ok', 'ok', 'ok', 'paused', 'paused', 'paused']);
  });

  it('rotates a refresh token on one authorization server and refuses its replay on the other, as one would', async () => {
    const { ws } = await newWorkspace('Hooli');
    const person = new WebPerson(proxy.url, pg.pool, 'owner@hooli.test', '10.9.7.1');
    const client = await registerClient(proxy.url, 'Two-instance notebook', '10.9.7.2');
    const tokens = await person.connect(client, ws, 'mcp:read');
    const refresh = (i: number, token: string) => tokenRequest(at('auth-server', i), { grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id }, '10.9.7.3');
    const first = await refresh(0, tokens.refresh_token);
    const retired = await refresh(1, tokens.refresh_token);
    const second = await refresh(1, first.body?.refresh_token as string);
    expect([outcome(first), retired.body?.error, outcome(second)]).toEqual(['200', 'invalid_grant', '200']);
    const bearer = (token: string) => ({ authorization: `Bearer ${token}`, host: publicHost(), 'x-forwarded-for': '10.9.7.4' });
    const calls = await Promise.all([0, 1].map((i) => mcpRpc(at('mcp-server', i), bearer(second.body?.access_token as string), 'tools/list')));
    expect(calls.map((c) => c.status)).toEqual([200, 200]);

    // Past the 30-second grace the retired token is a replay: the family ends, on both instances.
    await new Promise((r) => setTimeout(r, 31_000));
    const replay = await refresh(0, first.body?.refresh_token as string);
    const newest = await refresh(1, second.body?.refresh_token as string);
    const revoked = await Promise.all([0, 1].map((i) => mcpRpc(at('mcp-server', i), bearer(second.body?.access_token as string), 'tools/list')));
    expect([replay.body?.error, newest.body?.error]).toEqual(['invalid_grant', 'invalid_grant']);
    expect(revoked.map(outcome)).toEqual(['401 invalid_token', '401 invalid_token']);
  }, 120_000);

  it('loses no accepted record when an API instance and a worker are killed during a load', async () => {
    const accepted = new Map<string, number>(); // batch id → records
    const sendBatch = async (b: number) => {
      const body = Array.from({ length: 50 }, (_, i) => record(`load-${b}-${i}`, `load batch ${b} record ${i}`));
      for (;;) {
        const r = await post(body, { 'idempotency-key': `load-${b}` }, `192.0.2.${b % 200}`).catch(() => undefined);
        if (r?.status === 202) {
          const answer = (await r.json()) as { batchId: string; acceptedCount: number };
          accepted.set(answer.batchId, answer.acceptedCount);
          return;
        }
        await new Promise((res) => setTimeout(res, 100));
      }
    };
    const load = (async () => {
      for (let b = 0; b < 40; b++) await sendBatch(b);
    })();
    await new Promise((r) => setTimeout(r, 1_500));
    const ingest = running.find((r) => r.app === 'ingest-api')!;
    const worker = running.find((r) => r.app === 'worker')!;
    ingest.child.kill('SIGKILL');
    worker.child.kill('SIGKILL');
    await load;
    expect(accepted.size).toBe(40);
    // Every accepted batch is processed whole by the surviving worker (the killed one's jobs come back after their heartbeat).
    let processed = 0;
    for (let i = 0; i < 240; i++) {
      const { rows } = await pg.pool.query<{ n: number }>("SELECT coalesce(sum(processed_count), 0)::int AS n FROM batches WHERE id = ANY($1) AND status = 'COMPLETE'", [[...accepted.keys()]]);
      processed = rows[0]!.n;
      if (processed === 40 * 50) break;
      await new Promise((r) => setTimeout(r, 500));
    }
    expect(processed).toBe([...accepted.values()].reduce((a, b) => a + b, 0));
    const { rows: [count] } = await pg.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM records WHERE vendor_ids->>'run' LIKE 'load-%'");
    expect(count!.n).toBe(2_000);
  }, 180_000);
});
