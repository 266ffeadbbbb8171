import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { freePort } from '@loupe/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledPostgres, demoFrom, FAST_JOBS, records, serviceOn, settle, submit, type ControlledPostgres, type Demo } from './cluster';
import { startProcess, type Started } from './process';

// Fault tests on the real service process. Each prints what it sent and what it found.

describe('PostgreSQL stopped and started while a client sends batches', () => {
  let pg: ControlledPostgres;
  let service: Started;
  let demo: Demo;
  beforeAll(async () => {
    pg = await controlledPostgres();
    service = await serviceOn(pg.url);
    demo = demoFrom(service.output());
  });
  afterAll(async () => {
    await service?.stop();
    await pg?.destroy();
  });

  it('never answers 202 for data it did not store, and completes every accepted batch', async () => {
    const accepted: { batchId: string; run: string }[] = [];
    const outcomes: Record<string, number> = {};
    let sending = true;
    const client = (async () => {
      while (sending) {
        const body = records(demo, 20);
        const run = (body[0]!._vendor_ids as { run: string }).run;
        const r = await submit(service.url, demo.key, body).catch(() => ({ status: 0, body: {} as Record<string, any> }));
        const label = r.status === 0 ? 'connection error' : String(r.status);
        outcomes[label] = (outcomes[label] ?? 0) + 1;
        if (r.status === 202) accepted.push({ batchId: r.body.batchId, run });
        await new Promise((res) => setTimeout(res, 120)); // stay under the 10 requests/s of the key
      }
    })();
    await new Promise((r) => setTimeout(r, 2000));
    await pg.stop();
    await new Promise((r) => setTimeout(r, 3000));
    await pg.start();
    await new Promise((r) => setTimeout(r, 4000));
    sending = false;
    await client;
    expect(service.child.exitCode, `the service died during the outage:\n${service.output().slice(-4000)}`).toBeNull();

    const runs = accepted.map((a) => a.run);
    const { rows } = await pg.pool.query<{ run: string; n: number }>(
      `SELECT vendor_ids->>'run' AS run, count(*)::int AS n FROM records WHERE vendor_ids->>'run' = ANY($1) GROUP BY 1`, [runs],
    );
    const found = rows.reduce((n, r) => n + r.n, 0);
    const statuses = await settle(pg.pool, accepted.map((a) => a.batchId));
    console.log(`postgres restart: ${Object.values(outcomes).reduce((a, b) => a + b, 0)} requests ${JSON.stringify(outcomes)}; ` +
      `${accepted.length} batches accepted with ${accepted.length * 20} records; ${found} records found; batches ${JSON.stringify(statuses)}`);
    expect(Object.keys(outcomes).some((k) => k !== '202')).toBe(true); // the outage was seen
    expect(Object.keys(outcomes).every((k) => ['202', '503', 'connection error'].includes(k))).toBe(true);
    expect(accepted.length).toBeGreaterThan(10);
    expect(found).toBe(accepted.length * 20);
    expect(statuses).toEqual({ COMPLETE: accepted.length });
  });
});

describe('two service instances on one database', () => {
  let pg: ControlledPostgres;
  let one: Started;
  let two: Started;
  let demo: Demo;
  beforeAll(async () => {
    pg = await controlledPostgres();
    one = await serviceOn(pg.url);
    demo = demoFrom(one.output());
    two = await serviceOn(pg.url);
  });
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await pg?.destroy();
  });

  it('holds the rate limit across them', async () => {
    const list = (url: string) => fetch(`${url}/api/v1/ingest/batches?limit=1`, { headers: { 'x-api-key': demo.key } }).then((r) => r.status);
    let ok = 0;
    for (let attempt = 0; attempt < 3; attempt++) {
      while (Date.now() % 1000 > 100) await new Promise((r) => setTimeout(r, 5));
      const started = Date.now();
      const statuses = await Promise.all(Array.from({ length: 24 }, (_, i) => list(i % 2 ? one.url : two.url)));
      if (Date.now() - started > 800) continue; // the burst straddled two windows; try again
      ok = statuses.filter((s) => s === 200).length;
      console.log(`rate limit across instances: ${JSON.stringify(statuses.reduce<Record<number, number>>((m, s) => ({ ...m, [s]: (m[s] ?? 0) + 1 }), {}))}`);
      break;
    }
    expect(ok).toBe(10);
  });

  it('keeps idempotency and dedup across them, and processes each record once', async () => {
    await new Promise((r) => setTimeout(r, 1100));
    const body = records(demo, 200);
    const same = await Promise.all(Array.from({ length: 10 }, (_, i) => submit(i % 2 ? one.url : two.url, demo.key, body, { 'idempotency-key': 'across' })));
    const ids = new Set(same.filter((r) => r.status === 202).map((r) => r.body.batchId));
    expect(same.every((r) => [202, 409, 429].includes(r.status))).toBe(true);
    expect(ids.size).toBeLessThanOrEqual(1);
    await new Promise((r) => setTimeout(r, 1100));
    const dup = await Promise.all([submit(one.url, demo.key, body), submit(two.url, demo.key, body)]);
    expect(dup.map((r) => r.status)).toEqual([202, 202]);
    expect(dup.reduce((n, r) => n + r.body.duplicateCount, 0)).toBe(ids.size ? 400 : 200);
    const batchIds = [...ids, ...dup.map((r) => r.body.batchId)];
    const statuses = await settle(pg.pool, batchIds);
    const run = (body[0]!._vendor_ids as { run: string }).run;
    const { rows } = await pg.pool.query(
      `SELECT count(*)::int AS records, count(s.id)::int AS sources, count(*) FILTER (WHERE r.processed_at IS NOT NULL)::int AS processed,
              (SELECT count(*)::int FROM credit_ledger l WHERE l.reference = ANY(array_agg('record:' || r.id))) AS charges
         FROM records r LEFT JOIN sources s ON s.record_id = r.id WHERE r.vendor_ids->>'run' = $1`, [run],
    );
    console.log(`two instances: ${batchIds.length} batches ${JSON.stringify(statuses)}; ${JSON.stringify(rows[0])}`);
    expect(rows[0]).toEqual({ records: 200, sources: 200, processed: 200, charges: 200 });
    expect(statuses.COMPLETE).toBe(batchIds.length);
  });
});

describe('the service killed with SIGKILL in the middle of a large batch', () => {
  let pg: ControlledPostgres;
  let demo: Demo;
  beforeAll(async () => {
    pg = await controlledPostgres();
  });
  afterAll(() => pg?.destroy());

  it('completes after a restart, every record processed and charged exactly once', async () => {
    const first = await serviceOn(pg.url, { WORKER_CONCURRENCY: '1' });
    demo = demoFrom(first.output());
    const batches: string[] = [];
    for (let i = 0; i < 5; i++) {
      const r = await submit(first.url, demo.key, records(demo, 1000));
      expect(r.status).toBe(202);
      batches.push(r.body.batchId);
    }
    for (;;) {
      const { rows } = await pg.pool.query('SELECT coalesce(sum(processed_count), 0)::int AS n FROM batches WHERE id = ANY($1)', [batches]);
      if (rows[0].n > 0) break;
      await new Promise((r) => setTimeout(r, 20));
    }
    first.child.kill('SIGKILL');
    await new Promise((r) => first.child.once('exit', r));
    expect(await fetch(`${first.url}/healthz`).then(() => 'answered', () => 'gone')).toBe('gone');
    const { rows: atKill } = await pg.pool.query('SELECT coalesce(sum(processed_count), 0)::int AS n FROM batches WHERE id = ANY($1)', [batches]);
    const second = await serviceOn(pg.url);
    try {
      const statuses = await settle(pg.pool, batches);
      const { rows } = await pg.pool.query(
        `SELECT count(*)::int AS records, count(*) FILTER (WHERE processed_at IS NOT NULL)::int AS processed,
                (SELECT count(*)::int FROM sources WHERE record_id IN (SELECT id FROM records WHERE batch_id = ANY($1))) AS sources,
                (SELECT count(*)::int FROM credit_ledger WHERE reference IN (SELECT 'record:' || id FROM records WHERE batch_id = ANY($1))) AS charges,
                (SELECT sum(credits_charged)::int FROM batches WHERE id = ANY($1)) AS billed
           FROM records WHERE batch_id = ANY($1)`, [batches],
      );
      console.log(`worker SIGKILL: 5000 records sent in 5 batches; ${atKill[0].n} processed when killed; after restart ${JSON.stringify(rows[0])}, batches ${JSON.stringify(statuses)}`);
      expect(statuses).toEqual({ COMPLETE: 5 });
      expect(rows[0]).toEqual({ records: 5000, processed: 5000, sources: 5000, charges: 5000, billed: 5000 });
    } finally {
      await second.stop();
    }
  });
});

describe('a storage error while downloading an attachment', () => {
  let pg: ControlledPostgres;
  let files: ReturnType<typeof createServer>;
  let fileUrl: string;
  let dataDir: string;
  beforeAll(async () => {
    pg = await controlledPostgres();
    files = createServer((_req, res) => res.end('recording bytes'));
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    fileUrl = `http://127.0.0.1:${(files.address() as { port: number }).port}/call.mp3`;
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-fault-disk-'));
    await writeFile(path.join(dataDir, 'attachments'), 'a file where the attachment directory should be');
  });
  afterAll(async () => {
    files?.close();
    await pg?.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('fails the attachment cleanly: the batch completes with its download status FAILED instead of hanging', async () => {
    const service = await startProcess({
      DATABASE_URL: pg.url, LOUPE_DEMO: '1', DATA_DIR: dataDir, PORT: String(await freePort()), FETCH_ALLOW_LOOPBACK: 'true', ...FAST_JOBS,
    });
    try {
      const demo = demoFrom(service.output());
      const r = await submit(service.url, demo.key, records(demo, 2, { _attachments: [{ type: 'audio', vendor_url: fileUrl }] }));
      expect(r.status).toBe(202);
      let batch: Record<string, any> = {};
      for (let i = 0; i < 240 && !['COMPLETE', 'PARTIAL_FAILURE', 'FAILED'].includes(batch.attachmentDownloadStatus); i++) {
        await new Promise((res) => setTimeout(res, 500));
        batch = (await (await fetch(`${service.url}/api/v1/ingest/batches/${r.body.batchId}`, { headers: { 'x-api-key': demo.key } })).json()) as Record<string, any>;
      }
      console.log(`storage error: batch ${batch.status}, downloads ${batch.attachmentDownloadStatus} (${batch.attachmentDownloadComplete} ok, ${batch.attachmentDownloadFailed} failed of ${batch.attachmentDownloadTotal})`);
      expect(batch).toMatchObject({ status: 'COMPLETE', attachmentDownloadStatus: 'FAILED', attachmentDownloadTotal: 2, attachmentDownloadFailed: 2 });
    } finally {
      await service.stop();
    }
  });
});
