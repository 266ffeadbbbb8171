import { Readable } from 'node:stream';
import { appShell, createLogger, listen, systemClock } from '@loupe/http';
import { createIngestClient, IngestApiError } from '@loupe/ingest-client';
import { createMetrics } from '@loupe/metrics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createIngestApp } from './app';
import { del, get, post, rec, recordsOf, sourceOf, startHarness, type Harness } from './test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function submit(n: number): Promise<{ batchId: string; records: string[] }> {
  const r = await post(h.base, h.a.writeKey, Array.from({ length: n }, () => rec(h.a)));
  expect(r.status).toBe(202);
  return { batchId: r.body.batchId, records: await recordsOf(h, r.body.batchId) };
}

describe('DELETE /api/v1/sources/{sourceId} and /api/v1/records/{recordId}', () => {
  it('deletes a source with its record and files, answers {id, object, deleted}, then 404; the batch counts it', async () => {
    const { batchId, records } = await submit(2);
    const src = await sourceOf(h, records[0]!);
    const att = 'att_deletiontest1';
    await h.t.pool.query(
      `INSERT INTO attachments (id, workspace_id, batch_id, record_id, position, type, status, storage_key) VALUES ($1, $2, $3, $4, 0, 'file', 'COMPLETE', $2 || '/' || $3 || '/' || $1)`,
      [att, h.a.workspaceId, batchId, records[0]],
    );
    await h.storage.put(`${h.a.workspaceId}/${batchId}/${att}`, Readable.from([Buffer.from('a file')]), { maxBytes: 100 });

    expect((await del(h.base, h.a.readKey, `/api/v1/sources/${src}`)).status).toBe(403);
    const r = await del(h.base, h.a.writeKey, `/api/v1/sources/${src}`);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ id: src, object: 'source', deleted: true, recordId: records[0] });
    expect(await h.storage.exists(`${h.a.workspaceId}/${batchId}/${att}`)).toBe(false);
    const { rows } = await h.t.pool.query('SELECT id FROM records WHERE batch_id = $1', [batchId]);
    expect(rows).toEqual([{ id: records[1] }]);

    // Deleting again: the same answer as an id that never existed.
    const again = await del(h.base, h.a.writeKey, `/api/v1/sources/${src}`);
    expect(again.status).toBe(404);
    expect(again.body).toEqual({ error: 'NOT_FOUND', message: `Source "${src}" not found` });
    expect((await del(h.base, h.a.writeKey, `/api/v1/records/${records[0]}`)).status).toBe(404);

    // The batch keeps what it received and processed, and counts the deletion.
    const batch = await get(h.base, h.a.readKey, `/api/v1/ingest/batches/${batchId}`);
    expect(batch.body).toMatchObject({ acceptedCount: 2, deletedCount: 1 });
  });

  it('deletes a record with its source, or alone when it has none; too long an id is a 400', async () => {
    const { records } = await submit(2);
    const src = await sourceOf(h, records[0]!);
    expect((await del(h.base, h.a.writeKey, `/api/v1/records/${records[0]}`)).body).toEqual({ id: records[0], object: 'record', deleted: true, sourceId: src });
    expect((await del(h.base, h.a.writeKey, `/api/v1/sources/${src}`)).status).toBe(404);
    expect((await del(h.base, h.a.writeKey, `/api/v1/records/${records[1]}`)).body).toEqual({ id: records[1], object: 'record', deleted: true, sourceId: null });
    const long = await del(h.base, h.a.writeKey, `/api/v1/records/${'r'.repeat(129)}`);
    expect(long.status).toBe(400);
    expect(long.body.error).toBe('INVALID_REQUEST');
  });

  it('another workspace\'s source or record is a 404 identical to a missing one, and stays', async () => {
    const { records } = await submit(1);
    const src = await sourceOf(h, records[0]!);
    const theirs = await del(h.base, h.b.writeKey, `/api/v1/sources/${src}`);
    const missing = await del(h.base, h.b.writeKey, '/api/v1/sources/src_doesnotexist');
    expect(theirs.status).toBe(404);
    expect(theirs.body.message.replace(src, '<id>')).toBe(missing.body.message.replace('src_doesnotexist', '<id>'));
    expect((await del(h.base, h.b.writeKey, `/api/v1/records/${records[0]}`)).status).toBe(404);
    const { rowCount } = await h.t.pool.query('SELECT 1 FROM sources WHERE id = $1', [src]);
    expect(rowCount).toBe(1);
  });

  it('through the generated client', async () => {
    const { records } = await submit(1);
    const src = await sourceOf(h, records[0]!);
    const client = createIngestClient({ baseUrl: h.base, apiKey: h.a.writeKey, sleep: async () => {} });
    expect(await client.deleteSource(src)).toEqual({ id: src, object: 'source', deleted: true, recordId: records[0] });
    const error = await client.deleteRecord(records[0]!).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IngestApiError);
    expect((error as IngestApiError).status).toBe(404);
  });

  it('/metrics labels requests by route pattern: a deleted id is never a label', async () => {
    const { records } = await submit(1);
    const src = await sourceOf(h, records[0]!);
    const metrics = createMetrics({ pool: h.t.pool });
    const app = appShell(createLogger('silent'), (a) => {
      a.use(metrics.requests);
      a.use(metrics.router);
      a.use(createIngestApp({ pool: h.t.pool, boss: h.boss, clock: systemClock, servicePrefix: 'loupe_', baseUrl: () => '', storage: h.storage }));
    });
    const server = await listen(app, 0, '127.0.0.1');
    try {
      const base = `http://127.0.0.1:${server.port}`;
      expect((await del(base, h.a.writeKey, `/api/v1/sources/${src}`)).status).toBe(200);
      expect((await del(base, h.a.writeKey, `/api/v1/sources/${src}`)).status).toBe(404);
      expect((await del(base, h.a.writeKey, `/api/v1/records/${records[0]}`)).status).toBe(404);
      const text = await (await fetch(`${base}/metrics`)).text();
      expect(text).toContain('route="/api/v1/sources/:sourceId",status="200"');
      expect(text).toContain('route="/api/v1/sources/:sourceId",status="404"');
      expect(text).not.toContain(src);
      expect(text).not.toContain(records[0]);
    } finally {
      await server.close(0);
    }
  });
});
