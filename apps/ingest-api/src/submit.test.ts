import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, rec, startHarness, type Harness } from './test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const firstError = (r: { body: Record<string, any> }) => r.body.errors?.[0]?.message as string;

describe('body forms and content types', () => {
  it('accepts an array and stores the batch', async () => {
    const r = await post(h.base, h.a.writeKey, [rec(h.a), rec(h.a)]);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ acceptedCount: 2, rejectedCount: 0, totalErrorCount: 0, duplicateCount: 0 });
    expect(r.body.batchId).toMatch(/^bat_/);
    const { rows } = await h.t.pool.query('SELECT status, accepted_count FROM batches WHERE id = $1', [r.body.batchId]);
    expect(rows[0]).toEqual({ status: 'LANDED', accepted_count: 2 });
  });

  it('accepts an object whose only property is records', async () => {
    expect((await post(h.base, h.a.writeKey, { records: [rec(h.a)] })).status).toBe(202);
  });

  it('refuses a wrapper with another property, and a single record object', async () => {
    const extra = await post(h.base, h.a.writeKey, { records: [rec(h.a)], meta: 1 });
    expect(extra.status).toBe(400);
    expect(extra.body.message).toMatch(/"meta"/);
    const single = await post(h.base, h.a.writeKey, rec(h.a));
    expect(single.status).toBe(400);
    expect(single.body.error).toBe('INVALID_BODY');
  });

  it('reads NDJSON, ignores blank lines, and rejects a line that is not JSON at its index', async () => {
    const lines = [JSON.stringify(rec(h.a)), '', '{not json', '   ', JSON.stringify(rec(h.a)), ''].join('\n');
    const r = await post(h.base, h.a.writeKey, null, { raw: lines, contentType: 'application/x-ndjson' });
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ acceptedCount: 2, rejectedCount: 1, totalErrorCount: 1 });
    expect(r.body.errors).toEqual([expect.objectContaining({ index: 1, code: 'INVALID_JSON' })]);
  });

  it('answers 415 for other content types, with an error body', async () => {
    const r = await post(h.base, h.a.writeKey, [rec(h.a)], { contentType: 'text/plain' });
    expect(r.status).toBe(415);
    expect(r.body).toMatchObject({ error: 'UNSUPPORTED_MEDIA_TYPE' });
    expect(r.body.message).toMatch(/text\/plain/);
  });

  it('accepts a charset parameter', async () => {
    expect((await post(h.base, h.a.writeKey, [rec(h.a)], { contentType: 'application/json; charset=utf-8' })).status).toBe(202);
  });

  it('answers 400 for malformed JSON', async () => {
    const r = await post(h.base, h.a.writeKey, null, { raw: '[{"_type":' });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('INVALID_JSON');
  });
});

describe('record counts and body size', () => {
  it('refuses 0 records and takes 1,000 but not 1,001', async () => {
    expect((await post(h.base, h.a.writeKey, [])).status).toBe(400);
    const thousand = Array.from({ length: 1000 }, () => rec(h.a, { data: {} }));
    const ok = await post(h.base, h.a.writeKey, thousand);
    expect(ok.status).toBe(202);
    expect(ok.body.acceptedCount).toBe(1000);
    const over = await post(h.base, h.a.writeKey, [...thousand, rec(h.a)]);
    expect(over.status).toBe(400);
    expect(over.body.error).toBe('TOO_MANY_RECORDS');
    expect(over.body.errors).toEqual([{ index: 1000, code: 'TOO_MANY_RECORDS', message: expect.stringMatching(/^record 1000: beyond the first 1000 records/) }]);
    expect(over.body.details).toEqual({ totalErrorCount: 1 });
    const nd = await post(h.base, h.a.writeKey, null, {
      raw: Array.from({ length: 1001 }, () => JSON.stringify(rec(h.a, { data: {} }))).join('\n'), contentType: 'application/x-ndjson',
    });
    expect(nd.status).toBe(400);
    expect(nd.body.error).toBe('TOO_MANY_RECORDS');
  });

  it('takes a body of exactly 5 MB and refuses one byte more with 413', async () => {
    const limit = 5 * 1024 * 1024;
    const shell = JSON.stringify([rec(h.a, { data: { pad: '' } })]);
    const exact = shell.replace('"pad":""', `"pad":"${'x'.repeat(limit - Buffer.byteLength(shell))}"`);
    expect(Buffer.byteLength(exact)).toBe(limit);
    expect((await post(h.base, h.a.writeKey, null, { raw: exact })).status).toBe(202);
    const over = exact.replace('"pad":"', '"pad":"x');
    const r = await post(h.base, h.a.writeKey, null, { raw: over });
    expect(r.status).toBe(413);
    expect(r.body.error).toBe('PAYLOAD_TOO_LARGE');
  });

  it('answers 413 to a streamed body that grows past 5 MB without a Content-Length', async () => {
    let sent = 0;
    const stream = new ReadableStream({
      pull(controller) {
        if (sent > 8 * 1024 * 1024) return controller.close();
        sent += 64 * 1024;
        controller.enqueue(new TextEncoder().encode('x'.repeat(64 * 1024)));
      },
    });
    const res = await fetch(`${h.base}/api/v1/ingest`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': h.a.writeKey }, body: stream, duplex: 'half',
    } as RequestInit);
    expect(res.status).toBe(413);
    expect(await res.json()).toMatchObject({ error: 'PAYLOAD_TOO_LARGE' });
  });
});

describe('field rules', () => {
  const cases: [string, Record<string, unknown>, RegExp][] = [
    ['_product_id over 128', { _product_id: 'p'.repeat(129) }, /_product_id/],
    ['project id over 128', { _project_ids: ['j'.repeat(129)] }, /_project_ids\[0\]/],
    ['no project', { _project_ids: [] }, /_project_ids/],
    ['_thread_id over 512', { _thread_id: 't'.repeat(513) }, /_thread_id/],
    ['201 tags', { _tags: Array.from({ length: 201 }, (_, i) => `t${i}`) }, /_tags/],
    ['a tag over 64', { _tags: ['x'.repeat(65)] }, /_tags\[0\]/],
    ['5,001 participants', { _participants: Array.from({ length: 5001 }, (_, i) => ({ id: `p${i}`, role: 'external' })) }, /_participants/],
    ['a bad participant email', { _participants: [{ id: 'a', role: 'internal', email: 'not-an-email' }] }, /_participants\[0\]\.email/],
    ['an unknown participant property', { _participants: [{ id: 'a', role: 'internal', age: 3 }] }, /_participants\[0\].*"age"/],
    ['an unknown participant role', { _participants: [{ id: 'a', role: 'boss' }] }, /_participants\[0\]\.role/],
    ['11 attachments', { _attachments: Array.from({ length: 11 }, () => ({ type: 'file' })) }, /_attachments/],
    ['a negative attachment size', { _attachments: [{ type: 'file', size: -1 }] }, /_attachments\[0\]\.size/],
    ['a fractional attachment size', { _attachments: [{ type: 'file', size: 1.5 }] }, /_attachments\[0\]\.size/],
    ['a vendor_url that is not a URI', { _attachments: [{ type: 'file', vendor_url: 'not a url' }] }, /vendor_url/],
    ['an unknown property', { extra: true }, /"extra"/],
    ['an unknown _type', { _type: 'fax' }, /_type/],
    ['another schema version', { _schema_version: '1.0.1' }, /_schema_version/],
    ['4 fraction digits', { _event_at: '2026-03-04T05:06:07.1234Z' }, /_event_at/],
    ['an offset instead of Z', { _event_at: '2026-03-04T05:06:07+01:00' }, /_event_at/],
    ['no Z', { _event_at: '2026-03-04T05:06:07' }, /_event_at/],
    ['an impossible date', { _event_at: '2026-02-30T05:06:07Z' }, /_event_at/],
    ['empty _vendor_ids', { _vendor_ids: {} }, /_vendor_ids/],
    ['a non-string vendor id', { _vendor_ids: { crm: 5 } }, /_vendor_ids\.crm/],
    ['an unknown nature', { _nature: 'gossip' }, /_nature/],
    ['data that is not an object', { data: [1, 2] }, /data/],
    ['sensitive_score over 1', { _pii: { sensitive_score: 1.01 } }, /_pii\.sensitive_score/],
    ['a PII entity type over 64', { _pii: { detected_entities: [{ type: 'x'.repeat(65) }] } }, /_pii\.detected_entities\[0\]\.type/],
    ['an unknown redaction status', { _pii: { redaction_status: 'shredded' } }, /_pii\.redaction_status/],
    ['a NUL character', { _thread_id: 'a\u0000b' }, /_thread_id/],
  ];
  it.each(cases)('rejects %s, naming the field', async (_name, override, where) => {
    const r = await post(h.base, h.a.writeKey, [rec(h.a, override)]);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('VALIDATION_ERROR');
    expect(r.body.errors[0]).toMatchObject({ index: 0 });
    expect(firstError(r)).toMatch(where);
  });

  it('names a missing required field', async () => {
    const { _nature: _, ...noNature } = rec(h.a);
    const r = await post(h.base, h.a.writeKey, [noNature]);
    expect(firstError(r)).toBe('_nature: is required');
  });

  const limits: [string, Record<string, unknown>][] = [
    ['_product_id of 128 (an existing one cannot be longer, so the product check answers)', {}],
    ['a project id of exactly 128 is checked for existence, not length', {}],
    ['_thread_id of 512', { _thread_id: 't'.repeat(512) }],
    ['200 tags of 64', { _tags: Array.from({ length: 200 }, (_, i) => `${i}`.padEnd(64, 'x')) }],
    ['5,000 participants', { _participants: Array.from({ length: 5000 }, (_, i) => ({ id: `p${i}`, role: 'external' })) }],
    ['10 attachments', { _attachments: Array.from({ length: 10 }, () => ({ type: 'file', upload_intent_id: 'u' })) }],
    ['3 fraction digits', { _event_at: '2026-03-04T05:06:07.123Z' }],
    ['1 fraction digit', { _event_at: '2026-03-04T05:06:07.1Z' }],
    ['sensitive_score of 0 and 1', { _pii: { sensitive_score: 1, detected_entities: [{ type: 'email', confidence: 0 }] } }],
    ['any properties inside data', { data: { anything: { nested: [1, 'two', null] }, extra: true } }],
    // data is kept as the JSON text sent; landing it failed with "unsupported Unicode escape sequence".
    ['a NUL character and a lone surrogate inside data', { data: { text: 'a\u0000b \ud800 c' } }],
  ];
  it.each(limits)('accepts %s', async (_name, override) => {
    const r = await post(h.base, h.a.writeKey, [rec(h.a, override)]);
    expect(r.status).toBe(202);
  });

  it('checks the length of _product_id and of project ids at 128 against the workspace', async () => {
    const r = await post(h.base, h.a.writeKey, [rec(h.a, { _product_id: 'p'.repeat(128) })]);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('UNKNOWN_PRODUCT');
    const j = await post(h.base, h.a.writeKey, [rec(h.a, { _project_ids: ['j'.repeat(128)] })]);
    expect(j.body.errors[0]).toMatchObject({ index: 0, code: 'UNKNOWN_PROJECT' });
  });

  it('reports every error of every record, the first 20 in the body, and still accepts the good ones', async () => {
    const bad = Array.from({ length: 15 }, () => rec(h.a, { _type: 'fax', _nature: 'gossip' }));
    const r = await post(h.base, h.a.writeKey, [rec(h.a), ...bad, rec(h.a)]);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ acceptedCount: 2, rejectedCount: 15, totalErrorCount: 30 });
    expect(r.body.errors).toHaveLength(20);
    expect(r.body.errors.map((e: { index: number }) => e.index)).toEqual([...r.body.errors.map((e: { index: number }) => e.index)].sort((x, y) => x - y));
    expect(r.body.errors[0].index).toBe(1);
  });

  it('answers 400 with the rejected records when none is accepted', async () => {
    const r = await post(h.base, h.a.writeKey, [rec(h.a, { _type: 'fax' }), rec(h.a, { _nature: 'x' })]);
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'VALIDATION_ERROR', details: { acceptedCount: 0, rejectedCount: 2, totalErrorCount: 2 } });
    expect(r.body.errors.map((e: { index: number }) => e.index)).toEqual([0, 1]);
  });
});

describe('request rules', () => {
  it('refuses records of different _type or _product_id as a whole, naming them', async () => {
    const r = await post(h.base, h.a.writeKey, [rec(h.a), rec(h.a, { _type: 'call' }), rec(h.a, { _product_id: 'other' })]);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('MIXED_REQUEST');
    expect(r.body.errors).toEqual([
      expect.objectContaining({ index: 1, code: 'TYPE_MISMATCH' }),
      expect.objectContaining({ index: 2, code: 'PRODUCT_MISMATCH' }),
    ]);
    const { rows } = await h.t.pool.query('SELECT count(*)::int AS n FROM batches WHERE workspace_id = $1 AND type = $2', [h.a.workspaceId, 'call']);
    expect(rows[0].n).toBe(0);
  });

  it('refuses a product of another workspace, listing every record that names it', async () => {
    const other = () => rec(h.a, { _product_id: h.b.productId, _project_ids: [h.b.projectId] });
    const r = await post(h.base, h.a.writeKey, [other(), rec(h.a, { _type: 'fax' }), other()]);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('UNKNOWN_PRODUCT');
    expect(r.body.errors).toEqual([
      { index: 0, code: 'UNKNOWN_PRODUCT', message: `_product_id: product "${h.b.productId}" not found in this workspace` },
      { index: 2, code: 'UNKNOWN_PRODUCT', message: `_product_id: product "${h.b.productId}" not found in this workspace` },
    ]);
    expect(r.body.details).toEqual({ totalErrorCount: 2 });
  });

  it('rejects per record a project that is not in the product', async () => {
    const r = await post(h.base, h.a.writeKey, [rec(h.a), rec(h.a, { _project_ids: [h.a.projectId, h.b.projectId] })]);
    expect(r.status).toBe(202);
    expect(r.body).toMatchObject({ acceptedCount: 1, rejectedCount: 1 });
    expect(r.body.errors[0]).toMatchObject({ index: 1, code: 'UNKNOWN_PROJECT' });
    expect(r.body.errors[0].message).toContain(h.b.projectId);
  });

  it('allows 1,000 attachments per request but not 1,001', async () => {
    const att = (n: number) => Array.from({ length: n }, () => ({ type: 'file', upload_intent_id: 'u1' }));
    const records = Array.from({ length: 100 }, () => rec(h.a, { _attachments: att(10), data: {} }));
    expect((await post(h.base, h.a.writeKey, records)).status).toBe(202);
    const over = Array.from({ length: 100 }, () => rec(h.a, { _attachments: att(10), data: {} }));
    over.push(rec(h.a, { _attachments: att(1) }));
    const r = await post(h.base, h.a.writeKey, over);
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('TOO_MANY_ATTACHMENTS');
    expect(r.body.errors).toHaveLength(20);
    expect(r.body.errors[0]).toMatchObject({ index: 0, code: 'TOO_MANY_ATTACHMENTS', message: expect.stringMatching(/^_attachments: 10 of the request's 1001 attachments/) });
    expect(r.body.details).toEqual({ totalErrorCount: 101 });
  });

  it('validates format, stores it, and lets it change nothing else', async () => {
    const bad = await post(h.base, h.a.writeKey, [rec(h.a)], { query: '?format=pdf' });
    expect(bad.status).toBe(400);
    expect(bad.body.message).toMatch(/format/);
    const ok = await post(h.base, h.a.writeKey, [rec(h.a)], { query: '?format=audio' });
    expect(ok.status).toBe(202);
    const { rows } = await h.t.pool.query('SELECT format FROM batches WHERE id = $1', [ok.body.batchId]);
    expect(rows[0].format).toBe('audio');
  });
});

describe('storage', () => {
  it('stores data exactly as sent and _event_at truncated to the second', async () => {
    const vendor = `exact-${Date.now()}`;
    const data = '{"zeta":1,"alpha":12345678901234567890123,"n":1.50,"s":"caf\\u00e9","nested":{"b":[],"a":{}}}';
    const raw = `[{"_type":"email","_schema_version":"1.0.0","_event_at":"2026-03-04T05:06:07.999Z","_vendor_ids":{"v":"${vendor}"},"_product_id":"${h.a.productId}","_project_ids":["${h.a.projectId}"],"_nature":"evidence","data": ${data} }]`;
    const r = await post(h.base, h.a.writeKey, null, { raw });
    expect(r.status).toBe(202);
    const { rows } = await h.t.pool.query(
      `SELECT data::text AS data, to_char(event_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS') AS at FROM records WHERE batch_id = $1`,
      [r.body.batchId],
    );
    expect(rows[0]).toEqual({ data, at: '2026-03-04T05:06:07.000' });
  });

  it('stores the batch, records and processing job together', async () => {
    const r = await post(h.base, h.a.writeKey, [rec(h.a), rec(h.a)]);
    const { rows } = await h.t.pool.query(
      `SELECT (SELECT count(*)::int FROM records WHERE batch_id = $1) AS records,
              (SELECT count(*)::int FROM pgboss.job WHERE name = 'batch.process' AND data->>'batchId' = $1) AS jobs`,
      [r.body.batchId],
    );
    expect(rows[0]).toEqual({ records: 2, jobs: 1 });
  });
});

describe('dedup', () => {
  it('stores a record once however often it is sent, and says how many were duplicates', async () => {
    const records = Array.from({ length: 1000 }, (_, i) => rec(h.a, { _vendor_ids: { crm: `dup-${i}`, thread: `t-${i}` }, data: { i } }));
    const first = await post(h.base, h.a.writeKey, records);
    expect(first.body).toMatchObject({ acceptedCount: 1000, duplicateCount: 0 });
    const again = await post(h.base, h.a.writeKey, records.map((r) => ({ ...r, _vendor_ids: { thread: (r._vendor_ids as any).thread, crm: (r._vendor_ids as any).crm } })));
    expect(again.status).toBe(202);
    expect(again.body).toMatchObject({ acceptedCount: 1000, duplicateCount: 1000 });
    const { rows } = await h.t.pool.query(`SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND vendor_ids->>'crm' LIKE 'dup-%'`, [h.a.workspaceId]);
    expect(rows[0].n).toBe(1000);
    const batch = await h.t.pool.query('SELECT duplicate_count FROM batches WHERE id = $1', [again.body.batchId]);
    expect(batch.rows[0].duplicate_count).toBe(1000);
  });

  it('treats milliseconds of the same second as the same record, and other types or workspaces as different', async () => {
    const ids = { crm: `ms-${Date.now()}` };
    const r1 = await post(h.base, h.a.writeKey, [rec(h.a, { _vendor_ids: ids, _event_at: '2026-03-04T05:06:07.100Z' })]);
    const r2 = await post(h.base, h.a.writeKey, [rec(h.a, { _vendor_ids: ids, _event_at: '2026-03-04T05:06:07.900Z' })]);
    const r3 = await post(h.base, h.a.writeKey, [rec(h.a, { _vendor_ids: ids, _type: 'call' })]);
    const r4 = await post(h.base, h.b.writeKey, [rec(h.b, { _vendor_ids: ids })]);
    expect([r1, r2, r3, r4].map((r) => r.body.duplicateCount)).toEqual([0, 1, 0, 0]);
  });

  it('counts a record repeated within one request as a duplicate', async () => {
    const one = rec(h.a);
    const r = await post(h.base, h.a.writeKey, [one, one]);
    expect(r.body).toMatchObject({ acceptedCount: 2, duplicateCount: 1 });
  });
});

describe('unexpected failures', () => {
  it('answers 500 in the error shape, without internals, and stores nothing', async () => {
    const failing = { ...h.boss, send: async () => { throw new Error('queue exploded at /secret/path.ts:12'); } } as unknown as typeof h.boss;
    Object.setPrototypeOf(failing, Object.getPrototypeOf(h.boss));
    const base = await h.startApp({ boss: failing });
    const vendor = `fail-${Date.now()}`;
    const r = await post(base, h.a.writeKey, [rec(h.a, { _vendor_ids: { v: vendor } })]);
    expect(r.status).toBe(500);
    expect(r.body.error).toBe('INTERNAL_ERROR');
    expect(r.text).not.toMatch(/exploded|secret|\.ts/);
    const { rows } = await h.t.pool.query(`SELECT count(*)::int AS n FROM records WHERE vendor_ids->>'v' = $1`, [vendor]);
    expect(rows[0].n).toBe(0);
  });
});
