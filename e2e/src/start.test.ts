import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@loupe/db';
import pg from 'pg';
import { readSource } from '@loupe/sources';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { launchChromium, openPage, saveScreenshot } from '@loupe/browser-testing';
import { runTool, startProcess, type Started } from './process';

// The foundation's promises, checked on the real `npm start` process with its own embedded PostgreSQL.
describe('npm start', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let first: Started;
  let key: string;
  let productId: string;
  let projectId: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-'));
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
    delete process.env.DATABASE_URL;
    first = await startProcess(env);
    const out = first.output();
    key = /API key:\s+(\S+)/.exec(out)![1]!;
    productId = /Product id:\s+(\S+)/.exec(out)![1]!;
    projectId = /Project id:\s+(\S+)/.exec(out)![1]!;
  });
  async function database(): Promise<pg.Client> {
    const password = (await readFile(path.join(dataDir, 'postgres.password'), 'utf8')).trim();
    const client = new pg.Client({ connectionString: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${env.EMBEDDED_PG_PORT}/loupe` });
    await client.connect();
    return client;
  }
  afterAll(async () => {
    await first?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('prints the demo key once, with the base URL and a curl line, and answers /healthz and /readyz', async () => {
    const out = first.output();
    expect(key).toMatch(/^loupe_sk_/);
    expect(out).toContain(`Base URL:    ${first.url}`);
    expect(out).toMatch(new RegExp(`curl -sS -X POST ${first.url}/api/v1/ingest .*x-api-key: ${key}`));
    expect(await (await fetch(`${first.url}/healthz`)).json()).toMatchObject({ status: 'ok' });
    expect(await (await fetch(`${first.url}/readyz`)).json()).toEqual({ status: 'ready', checks: { database: 'ok', migrations: 'ok' } });
  });

  it('runs the printed curl line: the record is accepted, processed and readable as a source', async () => {
    const curl = /(curl -sS -X POST .*)$/m.exec(first.output())![1]!;
    const body = /-d '(.*)'$/.exec(curl)![1]!;
    const res = await fetch(`${first.url}/api/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body });
    expect(res.status).toBe(202);
    const { batchId } = (await res.json()) as { batchId: string };
    let status = '';
    for (let i = 0; i < 100 && status !== 'COMPLETE'; i++) {
      status = ((await (await fetch(`${first.url}/api/v1/ingest/batches/${batchId}`, { headers: { 'x-api-key': key } })).json()) as { status: string }).status;
      if (status !== 'COMPLETE') await new Promise((r) => setTimeout(r, 200));
    }
    expect(status).toBe('COMPLETE');

    const client = await database();
    try {
      const { rows } = await client.query<{ id: string; workspace_id: string }>(
        'SELECT s.id, s.workspace_id FROM sources s JOIN records r ON r.id = s.record_id WHERE r.batch_id = $1', [batchId],
      );
      expect(rows).toHaveLength(1);
      const source = await readSource(client, rows[0]!.workspace_id, rows[0]!.id);
      const sent = (JSON.parse(body) as { data: { title: string; content: string } }[])[0]!;
      expect(source!.source).toMatchObject({ title: sent.data.title, source_type: 'meeting_notes', status: 'ready' });
      expect(source!.segments.map((s) => [s.heading, s.text])).toEqual([['Pain points', 'Exports take too long.']]);
      expect(sent.data.content).toBe('# Pain points\nExports take too long.');
    } finally {
      await client.end();
    }
  });

  it('stores the key as a hash only', async () => {
    const client = await database();
    const { rows } = await client.query('SELECT secret_hash, display_prefix FROM api_keys');
    await client.end();
    expect(rows).toHaveLength(1);
    expect(rows[0].secret_hash).toBe(createHash('sha256').update(key).digest('hex'));
    expect(JSON.stringify(rows)).not.toContain(key);
  });

  it('lets the admin CLI create a key beside the running service, printed once and listed by prefix', async () => {
    const ws = /Workspace:\s+(\S+)/.exec(first.output())![1]!;
    const created = await runTool('tools/src/admin.ts', ['key', 'create', '--workspace', ws, '--name', 'ci', '--permissions', 'api:read,api:write', '--product', productId], env);
    expect(created.code).toBe(0);
    const newKey = created.stdout.trim().split('\n').pop()!;
    expect(newKey).toMatch(/^loupe_sk_[\w-]{43}$/);
    const listed = await runTool('tools/src/admin.ts', ['key', 'list', '--workspace', ws], env);
    expect(listed.stdout).toContain(`${newKey.slice(0, 15)}…`);
    expect(listed.stdout).not.toContain(newKey);
    const r = await fetch(`${first.url}/api/v1/ingest/batches`, { headers: { 'x-api-key': newKey } });
    expect(r.status).toBe(200);
    const bad = await runTool('tools/src/admin.ts', ['key', 'create', '--workspace', ws, '--name', 'x', '--permissions', 'api:nope'], env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toMatch(/Unknown permission "api:nope"/);
  });

  it('serves Prometheus metrics: requests by route, where MCP requests spend their time, and the service-wide record and batch counts', async () => {
    await fetch(`${first.url}/api/v1/ingest/batches`, { headers: { 'x-api-key': key } });
    const call = await fetch(`${first.url}/api/mcp`, {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_products', arguments: {} } }),
    });
    expect(call.status).toBe(200);
    const text = await (await fetch(`${first.url}/metrics`)).text();
    // get_products writes nothing: it is charged in a shared charge transaction, so it has no `commit` phase of its own.
    // `auth` is the credential with its workspace's standing and the rate limits: one statement (issue 26).
    for (const phase of ['auth', 'build', 'handle', 'tool', 'charge']) {
      expect(text, phase).toMatch(new RegExp(`loupe_mcp_request_phase_seconds_count\\{phase="${phase}"\\} [1-9]`));
    }
    expect(text).not.toMatch(/loupe_mcp_request_phase_seconds_count\{phase="(limits|standing)"\} [1-9]/);
    expect(text).toMatch(/loupe_http_requests_total\{method="GET",route="\/api\/v1\/ingest\/batches",status="200"\} \d+/);
    expect(text).toMatch(/loupe_records_total\{outcome="accepted"\} [1-9]\d*/);
    expect(text).toMatch(/loupe_batches\{status="COMPLETE"\} \d+/);
  });

  // Issue 28 item 4: the workspace's evidence taken away, through the API and the admin CLI alike.
  it('exports the demo workspace as NDJSON through GET /api/v1/export and `admin workspace export`, the same lines', async () => {
    const ws = /Workspace:\s+(\S+)/.exec(first.output())![1]!;
    const created = await runTool('tools/src/admin.ts', ['key', 'create', '--workspace', ws, '--name', 'backup', '--permissions', 'api:read'], env);
    const readKey = created.stdout.trim().split('\n').pop()!;
    const res = await fetch(`${first.url}/api/v1/export`, { headers: { 'x-api-key': readKey } });
    expect(res.status).toBe(200);
    const lines = (await res.text()).trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    const end = lines.at(-1)!;
    expect(end).toMatchObject({ kind: 'end', complete: true });
    expect(end.counts.source).toBeGreaterThan(0);
    expect(lines.filter((l) => l.kind === 'source').some((l) => l.source.segments.some((g: { text: string }) => g.text === 'Exports take too long.'))).toBe(true);
    const file = path.join(dataDir, 'export.ndjson');
    const cli = await runTool('tools/src/admin.ts', ['workspace', 'export', '--workspace', ws, '--out', file], env);
    expect(cli.code, cli.stderr).toBe(0);
    expect(cli.stdout).toContain(`Wrote ${end.counts.source} sources, ${end.counts.signal} signals`);
    expect((await readFile(file, 'utf8')).trimEnd().split('\n').map((l) => JSON.parse(l))).toEqual(lines);
  });

  it('answers / with the front page for a browser and with the addresses as JSON for curl', async () => {
    const page = await fetch(`${first.url}/`, { headers: { accept: 'text/html' } });
    expect(page.status).toBe(200);
    expect(page.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await page.text()).toContain(`claude mcp add --transport http loupe ${first.url}/api/mcp`);
    for (const accept of ['*/*', 'application/json']) {
      const res = await fetch(`${first.url}/`, { headers: { accept } });
      expect(res.status).toBe(200);
      expect(await res.json()).toMatchObject({ name: 'Loupe', mcp: `${first.url}/api/mcp`, openapi: `${first.url}/api/v1/openapi.json`, docs: `${first.url}/docs` });
    }
    expect((await fetch(`${first.url}/`, { method: 'HEAD', headers: { accept: 'text/html' } })).status).toBe(200);
  });

  it('serves the API reference at /docs from its own host, rendered in Chromium with every endpoint', async () => {
    const browser = await launchChromium();
    try {
      const page = await openPage(browser);
      const outside: string[] = [];
      page.on('request', (r) => { if (!r.url().startsWith(first.url)) outside.push(r.url()); });
      await page.goto(`${first.url}/docs`);
      await page.locator('.info .title', { hasText: 'Loupe API' }).first().waitFor();
      await page.locator('.info', { hasText: 'Rate limits.' }).first().waitFor();
      for (const tag of ['Ingestion', 'Batches', 'Export', 'Deletion', 'Privacy']) await page.locator('.opblock-tag', { hasText: tag }).first().waitFor();
      for (const op of ['/api/v1/ingest', '/api/v1/ingest/batches', '/api/v1/ingest/batches/{batchId}', '/api/v1/export']) {
        await expect(page.locator('.opblock-summary-path', { hasText: op }).first().isVisible()).resolves.toBe(true);
      }
      await page.locator('.opblock-summary', { hasText: 'Submit 1 to 1,000 records' }).click();
      await page.locator('option', { hasText: 'Two accepted, one rejected' }).first().waitFor({ state: 'attached' });
      await page.getByText('Unknown product').first().waitFor({ state: 'attached' });
      await saveScreenshot(page, 'docs-api-reference');
      expect(outside, 'nothing is loaded from another host').toEqual([]);
    } finally {
      await browser.close();
    }
  }, 120_000);

  it('keeps the data across a restart and does not seed a second demo workspace', async () => {
    expect(await first.stop()).toBe(0);
    const second = await startProcess(env);
    try {
      expect(second.output()).not.toContain('API key:');
      const r = await fetch(`${second.url}/api/v1/ingest/batches`, { headers: { 'x-api-key': key } });
      // the curl line's batch, beside the demo evidence seeded on the first start
      const batches = ((await r.json()) as { batches: Array<{ source: string }> }).batches;
      expect(batches.filter((b) => b.source === 'api')).toHaveLength(1);
      expect(batches.filter((b) => b.source === 'demo')).toHaveLength(5);
      const again = await fetch(`${second.url}/api/v1/ingest`, {
        method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key },
        body: JSON.stringify([{ _type: 'message', _schema_version: '1.0.0', _event_at: '2026-01-01T00:00:00Z', _vendor_ids: { a: 'b' }, _product_id: productId, _project_ids: [projectId], _nature: 'evidence', data: {} }]),
      });
      expect(again.status).toBe(202);
    } finally {
      expect(await second.stop()).toBe(0);
    }
  });

  it('starts two checkouts side by side with no setting: each embedded PostgreSQL finds a free port and keeps it', async () => {
    const dirs = await Promise.all([0, 1].map((i) => mkdtemp(path.join(os.tmpdir(), `loupe-e2e-side-${i}-`))));
    const started: Started[] = [];
    try {
      const envs = await Promise.all(dirs.map(async (d) => ({ DATA_DIR: d, PORT: String(await freePort()) })));
      for (const e of envs) started.push(await startProcess(e)); // the second one while the first still runs
      const ports = await Promise.all(dirs.map(async (d) => Number((await readFile(path.join(d, 'postgres.port'), 'utf8')).trim())));
      expect(new Set(ports).size).toBe(2);
      for (const s of started) expect((await fetch(`${s.url}/readyz`)).status).toBe(200);
      expect(await started[1]!.stop()).toBe(0);
      started.pop();
      started.push(await startProcess(envs[1]!));
      expect(Number((await readFile(path.join(dirs[1]!, 'postgres.port'), 'utf8')).trim())).toBe(ports[1]);
    } finally {
      for (const s of started) await s.stop();
      for (const d of dirs) await rm(d, { recursive: true, force: true });
    }
  }, 180_000);
});
