import express from 'express';
import parsePrometheusTextFormat from 'parse-prometheus-text-format';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMetrics } from './index';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
  await t.pool.query(`INSERT INTO workspaces (id, name) VALUES ('ws_m', 'M')`);
  await t.pool.query(
    `INSERT INTO batches (id, workspace_id, product_id, source, type, status, accepted_count, rejected_count, total_error_count, duplicate_count)
     VALUES ('bat_1', 'ws_m', 'p', 'api', 'call', 'COMPLETE', 10, 2, 2, 3), ('bat_2', 'ws_m', 'p', 'api', 'call', 'LANDED', 5, 0, 0, 0)`,
  );
  await t.pool.query(
    `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status)
     VALUES ('src_1', 'ws_m', 'p', '{}', 'call', 'evidence', 'A', now(), 'ready'), ('src_2', 'ws_m', 'p', '{}', 'call', 'evidence', 'B', now(), 'ready')`,
  );
  await t.pool.query(`UPDATE source_semantics SET pending = false, version = 'model-a' WHERE source_id = 'src_2'`);
  await t.pool.query(`INSERT INTO credit_ledger (id, workspace_id, kind, amount, reference, tool) VALUES ('cl_1', 'ws_m', 'charge', -4, 'r1', NULL), ('cl_2', 'ws_m', 'charge', -1, 't1', 'get_products')`);
});
afterAll(() => t.close());

async function serve(token?: string, embeddingVersion?: string) {
  const metrics = createMetrics({ pool: t.pool, token, embeddingVersion });
  const app = express();
  app.use(metrics.requests);
  app.get('/things/:id', (_req, res) => void res.json({ ok: true }));
  app.use(metrics.router);
  const server = app.listen(0, '127.0.0.1');
  await new Promise((r) => server.once('listening', r));
  return { base: `http://127.0.0.1:${(server.address() as { port: number }).port}`, close: () => new Promise((r) => server.close(r)) };
}

describe('metrics', () => {
  it('serves the Prometheus text format: requests by route pattern, and service-wide figures from the database', async () => {
    const s = await serve();
    for (const id of ['a', 'b']) await fetch(`${s.base}/things/${id}`);
    const res = await fetch(`${s.base}/metrics`);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const families = parsePrometheusTextFormat(await res.text());
    const family = (name: string) => families.find((f) => f.name === name)!;
    const value = (name: string, labels: Record<string, string>) =>
      Number((family(name).metrics as Array<{ labels?: Record<string, string>; value?: string }>).find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v))?.value);
    expect(value('loupe_http_requests_total', { route: '/things/:id', status: '200', method: 'GET' })).toBe(2);
    expect(family('loupe_http_request_duration_seconds').type).toBe('HISTOGRAM');
    expect(value('loupe_records_total', { outcome: 'accepted' })).toBe(15);
    expect(value('loupe_records_total', { outcome: 'rejected' })).toBe(2);
    expect(value('loupe_records_total', { outcome: 'duplicate' })).toBe(3);
    expect(value('loupe_batches', { status: 'LANDED' })).toBe(1);
    expect(value('loupe_batches', { status: 'FAILED' })).toBe(0);
    expect(value('loupe_search_backlog', { kind: 'sources_not_embedded' })).toBe(1);
    expect(value('loupe_search_backlog', { kind: 'signals_not_placed' })).toBe(0);
    expect(value('loupe_credits_charged_total', { kind: 'records' })).toBe(4);
    expect(value('loupe_credits_charged_total', { kind: 'tool_calls' })).toBe(1);
    expect(families.some((f) => f.name.startsWith('loupe_process_'))).toBe(true);
    await s.close();
  });

  it('counts the sources and signals not yet embedded with the configured model', async () => {
    const left = async (version: string) => {
      const s = await serve(undefined, version);
      const families = parsePrometheusTextFormat(await (await fetch(`${s.base}/metrics`)).text());
      await s.close();
      const metrics = families.find((f) => f.name === 'loupe_embeddings_left')!.metrics as Array<{ labels: { kind: string }; value: string }>;
      return Object.fromEntries(metrics.map((m) => [m.labels.kind, Number(m.value)]));
    };
    // src_1 waits for its first vector; src_2 has one of model-a.
    expect(await left('model-a')).toEqual({ sources: 1, signals: 0 });
    expect(await left('model-b')).toEqual({ sources: 2, signals: 0 });
  });

  it('asks for the bearer token when one is configured', async () => {
    const s = await serve('s3cret-metrics-token');
    expect((await fetch(`${s.base}/metrics`)).status).toBe(401);
    expect((await fetch(`${s.base}/metrics`, { headers: { authorization: 'Bearer wrong' } })).status).toBe(401);
    expect((await fetch(`${s.base}/metrics`, { headers: { authorization: 'Bearer s3cret-metrics-token' } })).status).toBe(200);
    await s.close();
  });
});
