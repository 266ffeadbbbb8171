import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, rec, startHarness, type Harness } from './test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('GET /api/v1/ingest/batches/{batchId}', () => {
  it('shows every field of a batch', async () => {
    const r = await post(h.base, h.a.writeKey, [rec(h.a), rec(h.a, { _type: 'fax' })], { query: '?format=text' });
    const b = await get(h.base, h.a.readKey, `/api/v1/ingest/batches/${r.body.batchId}`);
    expect(b.status).toBe(200);
    expect(b.body).toEqual({
      batchId: r.body.batchId,
      status: 'LANDED',
      createdAt: expect.any(Number),
      acceptedCount: 1,
      rejectedCount: 1,
      duplicateCount: 0,
      totalErrorCount: 1,
      errors: [expect.objectContaining({ index: 1, code: 'VALIDATION_ERROR' })],
      source: 'api',
      type: 'email',
      format: 'text',
      billing: { totalCreditsCharged: 0 },
    });
    expect(Math.abs(b.body.createdAt - Date.now())).toBeLessThan(60_000);
  });

  it('shows download counters only for batches with attachments to download', async () => {
    const r = await post(h.base, h.a.writeKey, [rec(h.a, { _attachments: [{ type: 'audio', vendor_url: 'https://files.example/a.mp3' }, { type: 'file', upload_intent_id: 'u' }] })]);
    const b = await get(h.base, h.a.readKey, `/api/v1/ingest/batches/${r.body.batchId}`);
    expect(b.body).toMatchObject({ attachmentDownloadTotal: 1, attachmentDownloadComplete: 0, attachmentDownloadFailed: 0, attachmentDownloadStatus: 'PENDING' });
  });

  it('answers 404 with an error body for an unknown id, 400 for one over 128 characters', async () => {
    const r = await get(h.base, h.a.readKey, '/api/v1/ingest/batches/bat_nope');
    expect(r.status).toBe(404);
    expect(r.body).toEqual({ error: 'NOT_FOUND', message: 'Batch "bat_nope" not found' });
    expect((await get(h.base, h.a.readKey, `/api/v1/ingest/batches/${'b'.repeat(129)}`)).status).toBe(400);
    expect((await get(h.base, h.a.readKey, `/api/v1/ingest/batches/${'b'.repeat(128)}`)).status).toBe(404);
  });
});

describe('GET /api/v1/ingest/batches', () => {
  it('pages newest first with limit and cursor, stable while batches arrive, without nextCursor at the end', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 7; i++) ids.push((await post(h.base, h.b.writeKey, [rec(h.b)])).body.batchId);
    const newestFirst = [...ids].reverse();
    const p1 = await get(h.base, h.b.readKey, '/api/v1/ingest/batches?limit=3');
    expect(p1.body.batches.map((b: { batchId: string }) => b.batchId)).toEqual(newestFirst.slice(0, 3));
    await post(h.base, h.b.writeKey, [rec(h.b)]); // a new batch must not shift the next page
    const p2 = await get(h.base, h.b.readKey, `/api/v1/ingest/batches?limit=3&cursor=${p1.body.nextCursor}`);
    expect(p2.body.batches.map((b: { batchId: string }) => b.batchId)).toEqual(newestFirst.slice(3, 6));
    const p3 = await get(h.base, h.b.readKey, `/api/v1/ingest/batches?limit=3&cursor=${p2.body.nextCursor}`);
    expect(p3.body.batches.map((b: { batchId: string }) => b.batchId)).toEqual(newestFirst.slice(6));
    expect(p3.body).not.toHaveProperty('nextCursor');
  });

  it('defaults to 20 and allows 1 to 100', async () => {
    for (let i = 0; i < 21; i++) await post(h.base, h.a.writeKey, [rec(h.a)]);
    expect((await get(h.base, h.a.readKey, '/api/v1/ingest/batches')).body.batches).toHaveLength(20);
    expect((await get(h.base, h.a.readKey, '/api/v1/ingest/batches?limit=1')).body.batches).toHaveLength(1);
    expect((await get(h.base, h.a.readKey, '/api/v1/ingest/batches?limit=100')).status).toBe(200);
  });

  it.each(['0', '101', 'abc', '1.5', '-1', ''])('refuses limit=%s with 400', async (limit) => {
    const r = await get(h.base, h.a.readKey, `/api/v1/ingest/batches?limit=${limit}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/limit/);
  });

  it('refuses a cursor it did not issue, or one over 256 characters', async () => {
    expect((await get(h.base, h.a.readKey, '/api/v1/ingest/batches?cursor=garbage')).status).toBe(400);
    const r = await get(h.base, h.a.readKey, `/api/v1/ingest/batches?cursor=${'a'.repeat(257)}`);
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/cursor/);
  });

  it('refuses a well-formed cursor whose time lies outside the valid date range with 400, not 500', async () => {
    for (const ms of ['9999999999999999', '8640000000000001']) {
      const crafted = Buffer.from(`${ms}.bat_${'0'.repeat(26)}`).toString('base64url');
      const r = await get(h.base, h.a.readKey, `/api/v1/ingest/batches?cursor=${crafted}`);
      expect(r.status, ms).toBe(400);
      expect(r.body.message).toMatch(/cursor/);
    }
  });
});

describe('published documents', () => {
  it('serves the OpenAPI document and the record JSON Schema generated from the validators', async () => {
    const doc = await (await fetch(`${h.base}/api/v1/openapi.json`)).json() as Record<string, any>;
    expect(doc.openapi).toBe('3.1.0');
    expect(Object.keys(doc.paths)).toEqual(['/api/v1/ingest', '/api/v1/ingest/batches', '/api/v1/ingest/batches/{batchId}', '/api/v1/export', '/api/v1/sources/{sourceId}', '/api/v1/records/{recordId}', '/api/v1/records/{recordId}/attachments/{position}',
      '/api/v1/erasures', '/api/v1/erasures/{erasureId}', '/api/v1/erasures/{erasureId}/confirm', '/api/v1/suppressions', '/api/v1/suppressions/{suppressionId}',
      '/api/v1/companies', '/api/v1/companies:batch', '/api/v1/companies/{external_id}', '/api/v1/people', '/api/v1/people:batch', '/api/v1/people/{external_id}',
      '/api/v1/connections', '/api/v1/connections/{connectionId}', '/api/v1/connections/{connectionId}/pause', '/api/v1/connections/{connectionId}/resume',
      '/api/v1/connections/{connectionId}/sync', '/api/v1/email-forwarding',
    ]);
    expect(doc.components.schemas.Record.required).toEqual(expect.arrayContaining(['_type', '_event_at', '_vendor_ids', 'data']));
    const schema = await (await fetch(`${h.base}/api/v1/schemas/record.json`)).json() as Record<string, any>;
    expect(schema.additionalProperties).toBe(false);
    expect(schema.properties._product_id.maxLength).toBe(128);
    expect(schema.properties._tags.maxItems).toBe(200);
    expect(new RegExp(schema.properties._event_at.pattern).test('2026-01-01T00:00:00.123Z')).toBe(true);
    expect(new RegExp(schema.properties._event_at.pattern).test('2026-01-01T00:00:00.1234Z')).toBe(false);
  });
});
