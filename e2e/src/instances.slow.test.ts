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
import { mcpTool } from './mcp-client';
import { admin } from './process';

// Issue 47: two instances of every role (four HTTP apps and the worker) as separate processes on one
// PostgreSQL and one bucket, behind one address that takes the instances in turn: limits hold across
// them, what one instance's worker stored is searched through either MCP instance, and killing an API
// instance and a worker during a load loses no accepted record.
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

  it('stores through one instance\'s worker into the bucket what both MCP instances then find', async () => {
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
