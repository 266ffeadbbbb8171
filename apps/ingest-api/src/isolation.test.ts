import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { del, get, post, rec, recordsOf, sourceOf, startHarness, type Harness } from './test/harness';

// Workspace isolation on every endpoint: a key of workspace B never reaches workspace A's data,
// and an answer about A's data is indistinguishable from an answer about data that does not exist.
let h: Harness;
let aBatchId: string;
let aRecord: Record<string, unknown>;
const sharedIdempotencyKey = 'order-sync-2026-11-21';
const NO_CONNECTION = 'conn_0000000000000000000000zzzz';
beforeAll(async () => {
  h = await startHarness();
  aRecord = rec(h.a);
  const r = await post(h.base, h.a.writeKey, [aRecord], { headers: { 'idempotency-key': sharedIdempotencyKey } });
  expect(r.status).toBe(202);
  aBatchId = r.body.batchId;
});
afterAll(() => h.close());

/** GET /api/v1/export: its status, and the error body or the NDJSON lines. */
async function exportOf(key?: string) {
  const res = await fetch(`${h.base}/api/v1/export`, { headers: key ? { 'x-api-key': key } : {} });
  const text = await res.text();
  return { status: res.status, body: (res.ok ? { lines: text.trimEnd().split('\n').map((l) => JSON.parse(l)) } : JSON.parse(text)) as Record<string, any> };
}

async function jsonCall(method: string, path: string, key: string | undefined, body: unknown) {
  const res = await fetch(`${h.base}${path}`, { method, headers: { 'content-type': 'application/json', ...(key ? { 'x-api-key': key } : {}) }, body: JSON.stringify(body) });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** Replaces ids in an answer so answers about different ids can be compared. */
const shape = (body: unknown, ids: string[]) => ids.reduce((s, id) => s.split(id).join('<id>'), JSON.stringify(body));

describe('isolation matrix', () => {
  const matrix: string[] = [];
  afterAll(() => console.log(`isolation matrix:\n${matrix.join('\n')}`));
  const note = (endpoint: string, caller: string, status: number) => matrix.push(`  ${endpoint.padEnd(46)} ${caller.padEnd(34)} ${status}`);

  it('GET /api/v1/ingest/batches/{id}: another workspace\'s batch is a 404 identical to a missing one', async () => {
    const theirs = await get(h.base, h.b.readKey, `/api/v1/ingest/batches/${aBatchId}`);
    const missing = await get(h.base, h.b.readKey, '/api/v1/ingest/batches/bat_doesnotexist');
    note('GET /api/v1/ingest/batches/{A batch}', 'B api:read', theirs.status);
    expect(theirs.status).toBe(404);
    expect(shape(theirs.body, [aBatchId, 'bat_doesnotexist'])).toBe(shape(missing.body, [aBatchId, 'bat_doesnotexist']));
    const viaWrite = await get(h.base, h.b.writeKey, `/api/v1/ingest/batches/${aBatchId}`);
    note('GET /api/v1/ingest/batches/{A batch}', 'B api:write', viaWrite.status);
    expect(viaWrite.status).toBe(404);
    expect(JSON.stringify(viaWrite.body)).not.toContain(h.a.workspaceId);
    expect((await get(h.base, h.a.readKey, `/api/v1/ingest/batches/${aBatchId}`)).status).toBe(200);
  });

  it('GET /api/v1/ingest/batches: lists only the caller\'s batches, even with a cursor taken from another workspace', async () => {
    for (let i = 0; i < 3; i++) expect((await post(h.base, h.a.writeKey, [rec(h.a)])).status).toBe(202);
    const aPage = await get(h.base, h.a.readKey, '/api/v1/ingest/batches?limit=1');
    expect(aPage.body.nextCursor).toEqual(expect.any(String));
    const bList = await get(h.base, h.b.readKey, '/api/v1/ingest/batches?limit=100');
    const bWithACursor = await get(h.base, h.b.readKey, `/api/v1/ingest/batches?limit=100&cursor=${encodeURIComponent(aPage.body.nextCursor)}`);
    note('GET /api/v1/ingest/batches', 'B api:read', bList.status);
    note('GET /api/v1/ingest/batches?cursor={A cursor}', 'B api:read', bWithACursor.status);
    for (const page of [bList, bWithACursor]) {
      expect([200, 400]).toContain(page.status);
      expect(JSON.stringify(page.body)).not.toContain(h.a.workspaceId);
      expect(JSON.stringify(page.body)).not.toContain(aBatchId);
    }
    expect(bList.body.batches.every((b: { workspaceId?: string }) => b.workspaceId === undefined || b.workspaceId === h.b.workspaceId)).toBe(true);
  });

  it('POST /api/v1/ingest: another workspace\'s product is refused exactly like a product that does not exist', async () => {
    const theirs = await post(h.base, h.b.writeKey, [rec(h.b, { _product_id: h.a.productId, _project_ids: [h.a.projectId] })]);
    const missing = await post(h.base, h.b.writeKey, [rec(h.b, { _product_id: 'prod_doesnotexist', _project_ids: [h.a.projectId] })]);
    note('POST /api/v1/ingest  (A product)', 'B api:write', theirs.status);
    expect(theirs.status).toBe(400);
    expect(theirs.body.error).toBe('UNKNOWN_PRODUCT');
    expect(shape(theirs.body, [h.a.productId, 'prod_doesnotexist'])).toBe(shape(missing.body, [h.a.productId, 'prod_doesnotexist']));
  });

  it('POST /api/v1/ingest: another workspace\'s project is refused exactly like a project that does not exist', async () => {
    const theirs = await post(h.base, h.b.writeKey, [rec(h.b, { _project_ids: [h.a.projectId] })]);
    const missing = await post(h.base, h.b.writeKey, [rec(h.b, { _project_ids: ['proj_doesnotexist'] })]);
    note('POST /api/v1/ingest  (A project)', 'B api:write', theirs.status);
    expect(theirs.status).toBe(400);
    expect(theirs.body.errors[0].code).toBe('UNKNOWN_PROJECT');
    expect(shape(theirs.body, [h.a.projectId, 'proj_doesnotexist'])).toBe(shape(missing.body, [h.a.projectId, 'proj_doesnotexist']));
  });

  it('POST /api/v1/ingest: an Idempotency-Key used by another workspace neither replays nor blocks', async () => {
    const r = await post(h.base, h.b.writeKey, [rec(h.b)], { headers: { 'idempotency-key': sharedIdempotencyKey } });
    note('POST /api/v1/ingest  (A idempotency key)', 'B api:write', r.status);
    expect(r.status).toBe(202);
    expect(r.body.batchId).not.toBe(aBatchId);
    expect(r.headers.get('idempotent-replayed')).toBeNull();
  });

  it('POST /api/v1/ingest: a record identical to another workspace\'s is stored, not reported as a duplicate', async () => {
    const copy = { ...aRecord, _product_id: h.b.productId, _project_ids: [h.b.projectId] };
    const r = await post(h.base, h.b.writeKey, [copy]);
    note('POST /api/v1/ingest  (A record\'s dedup key)', 'B api:write', r.status);
    expect(r.status).toBe(202);
    expect(r.body.duplicateCount).toBe(0);
    const { rows } = await h.t.pool.query('SELECT workspace_id FROM records WHERE batch_id = $1', [r.body.batchId]);
    expect(rows).toEqual([{ workspace_id: h.b.workspaceId }]);
  });

  it('DELETE /api/v1/sources/{id} and /api/v1/records/{id}: another workspace\'s source or record is a 404 identical to a missing one, and stays', async () => {
    const [recordId] = await recordsOf(h, aBatchId);
    const sourceId = await sourceOf(h, recordId!);
    for (const [path, id, missingId] of [['/api/v1/sources/', sourceId, 'src_doesnotexist'], ['/api/v1/records/', recordId!, 'rec_doesnotexist']] as const) {
      const theirs = await del(h.base, h.b.writeKey, `${path}${id}`);
      const missing = await del(h.base, h.b.writeKey, `${path}${missingId}`);
      note(`DELETE ${path}{A ${path.includes('sources') ? 'source' : 'record'}}`, 'B api:write', theirs.status);
      expect(theirs.status).toBe(404);
      expect(shape(theirs.body, [id, missingId])).toBe(shape(missing.body, [id, missingId]));
    }
    const { rowCount } = await h.t.pool.query('SELECT 1 FROM sources s JOIN records r ON r.id = s.record_id WHERE s.id = $1', [sourceId]);
    expect(rowCount).toBe(1);
  });

  it('erasures and suppressions: another workspace\'s request or suppression is a 404 identical to a missing one; lists hold only the caller\'s', async () => {
    const asked = await jsonCall('POST', '/api/v1/erasures', h.a.writeKey, { email: 'isolated.person@globex.test' });
    expect(asked.status).toBe(202);
    const [sup] = (await get(h.base, h.a.readKey, '/api/v1/suppressions')).body.suppressions as Array<{ id: string }>;
    const theirs = await get(h.base, h.b.readKey, `/api/v1/erasures/${asked.body.id}`);
    const missing = await get(h.base, h.b.readKey, '/api/v1/erasures/era_doesnotexist');
    note('GET /api/v1/erasures/{A erasure}', 'B api:read', theirs.status);
    expect(theirs.status).toBe(404);
    expect(shape(theirs.body, [asked.body.id, 'era_doesnotexist'])).toBe(shape(missing.body, [asked.body.id, 'era_doesnotexist']));
    // A's dry run cannot be confirmed from B
    const dry = await jsonCall('POST', '/api/v1/erasures', h.a.writeKey, { email: 'isolated.person@globex.test', dry_run: true });
    const confirm = await jsonCall('POST', `/api/v1/erasures/${dry.body.id}/confirm`, h.b.writeKey, {});
    const confirmMissing = await jsonCall('POST', '/api/v1/erasures/era_doesnotexist/confirm', h.b.writeKey, {});
    note('POST /api/v1/erasures/{A erasure}/confirm', 'B api:write', confirm.status);
    expect(confirm.status).toBe(404);
    expect(shape(confirm.body, [dry.body.id, 'era_doesnotexist'])).toBe(shape(confirmMissing.body, [dry.body.id, 'era_doesnotexist']));
    const lift = await del(h.base, h.b.writeKey, `/api/v1/suppressions/${sup!.id}`);
    const liftMissing = await del(h.base, h.b.writeKey, '/api/v1/suppressions/sup_doesnotexist');
    note('DELETE /api/v1/suppressions/{A suppression}', 'B api:write', lift.status);
    expect(lift.status).toBe(404);
    expect(shape(lift.body, [sup!.id, 'sup_doesnotexist'])).toBe(shape(liftMissing.body, [sup!.id, 'sup_doesnotexist']));
    for (const path of ['/api/v1/erasures', '/api/v1/suppressions']) {
      const list = await get(h.base, h.b.readKey, path);
      expect(JSON.stringify(list.body)).not.toContain(asked.body.id);
      expect(JSON.stringify(list.body)).not.toContain(sup!.id);
    }
    // B's records about the person A erased are B's business
    expect((await post(h.base, h.b.writeKey, [rec(h.b, { _participants: [{ id: 'x', role: 'external', email: 'isolated.person@globex.test' }] })])).status).toBe(202);
    expect((await get(h.base, h.a.readKey, '/api/v1/suppressions')).body.suppressions).toHaveLength(1);
  });

  it('companies and people: another workspace\'s are 404s identical to missing ones, stay untouched, and are absent from lists and checks', async () => {
    expect((await jsonCall('PUT', '/api/v1/companies/iso-co', h.a.writeKey, { name: 'A Co', domains: ['a-co.example'], arr: 1000 })).status).toBe(201);
    expect((await jsonCall('PUT', '/api/v1/people/iso-p', h.a.writeKey, { email: 'ana@a-co.example', company_external_id: 'iso-co' })).status).toBe(201);
    for (const [noun, id] of [['companies', 'iso-co'], ['people', 'iso-p']] as const) {
      for (const [caller, key] of [['B api:read', h.b.readKey], ['B api:write', h.b.writeKey]] as const) {
        const theirs = await get(h.base, key, `/api/v1/${noun}/${id}`);
        const missing = await get(h.base, key, `/api/v1/${noun}/iso-missing`);
        note(`GET /api/v1/${noun}/{A ${noun === 'companies' ? 'company' : 'person'}}`, caller, theirs.status);
        expect(theirs.status).toBe(404);
        expect(shape(theirs.body, [id, 'iso-missing'])).toBe(shape(missing.body, [id, 'iso-missing']));
      }
      const gone = await del(h.base, h.b.writeKey, `/api/v1/${noun}/${id}`);
      const goneMissing = await del(h.base, h.b.writeKey, `/api/v1/${noun}/iso-missing`);
      note(`DELETE /api/v1/${noun}/{A ${noun === 'companies' ? 'company' : 'person'}}`, 'B api:write', gone.status);
      expect(gone.status).toBe(404);
      expect(shape(gone.body, [id, 'iso-missing'])).toBe(shape(goneMissing.body, [id, 'iso-missing']));
      const list = await get(h.base, h.b.readKey, `/api/v1/${noun}?limit=100`);
      expect(JSON.stringify(list.body)).not.toContain(id);
    }
    // B's own company of the same id, the same domain, and a person of the same email are B's, and change nothing of A's
    const same = await jsonCall('PUT', '/api/v1/companies/iso-co', h.b.writeKey, { name: 'B Co', domains: ['a-co.example'] });
    note('PUT /api/v1/companies/{A company\'s id, A domain}', 'B api:write', same.status);
    expect(same.status).toBe(201);
    const batch = await jsonCall('POST', '/api/v1/people:batch', h.b.writeKey, [{ external_id: 'iso-p', email: 'ana@a-co.example', company_external_id: 'iso-co' }]);
    note('POST /api/v1/people:batch  (A person\'s id and email)', 'B api:write', batch.status);
    expect(batch.body).toMatchObject({ createdCount: 1, rejectedCount: 0 });
    expect((await get(h.base, h.a.readKey, '/api/v1/companies/iso-co')).body).toMatchObject({ name: 'A Co', arr: 1000 });
    expect((await get(h.base, h.a.readKey, '/api/v1/people/iso-p')).body).toMatchObject({ email: 'ana@a-co.example', company_external_id: 'iso-co' });
    // A's company is unknown to B's people: refused exactly like a company that does not exist
    await del(h.base, h.b.writeKey, '/api/v1/companies/iso-co');
    const unknown = await jsonCall('PUT', '/api/v1/people/iso-q', h.b.writeKey, { company_external_id: 'iso-co' });
    const unknownMissing = await jsonCall('PUT', '/api/v1/people/iso-q', h.b.writeKey, { company_external_id: 'iso-missing' });
    note('PUT /api/v1/people/{id}  (A company)', 'B api:write', unknown.status);
    expect(unknown.body.error).toBe('UNKNOWN_COMPANY');
    expect(shape(unknown.body, ['iso-co', 'iso-missing'])).toBe(shape(unknownMissing.body, ['iso-co', 'iso-missing']));
    expect((await get(h.base, h.a.readKey, '/api/v1/companies/iso-co')).status).toBe(200);
  });

  it('/api/v1/connections: another workspace\'s connection is a 404 identical to a missing one on every route, and never listed', async () => {
    const created = await jsonCall('POST', '/api/v1/connections', h.a.writeKey, {
      kind: 'zendesk', product_id: h.a.productId, project_id: h.a.projectId, base_url: 'https://acme-iso.zendesk.com', credentials: { access_token: 'iso-secret' },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    const missing = 'conn_0000000000000000000000zzzz';
    const routes: Array<[string, string, unknown]> = [
      ['GET', '', undefined], ['PATCH', '', { sync_interval_minutes: 30 }], ['POST', '/pause', {}], ['POST', '/resume', {}], ['POST', '/sync', {}], ['DELETE', '', undefined],
    ];
    for (const [method, suffix, body] of routes) {
      const theirs = await jsonCall(method, `/api/v1/connections/${id}${suffix}`, h.b.writeKey, body);
      const none = await jsonCall(method, `/api/v1/connections/${missing}${suffix}`, h.b.writeKey, body);
      note(`${method} /api/v1/connections/{A connection}${suffix}`, 'B api:write', theirs.status);
      expect(theirs.status).toBe(404);
      expect(shape(theirs.body, [id, missing])).toBe(shape(none.body, [id, missing]));
    }
    const list = await get(h.base, h.b.readKey, '/api/v1/connections');
    note('GET /api/v1/connections', 'B api:read', list.status);
    expect(list.body).toEqual({ connections: [] });
    const mine = await get(h.base, h.a.readKey, `/api/v1/connections/${id}`);
    expect(mine.body).toMatchObject({ id, status: 'active' });
  });

  const endpoints = [
    { name: 'POST /api/v1/ingest', call: (key?: string) => post(h.base, key, [rec(h.a)]) },
    { name: 'GET /api/v1/ingest/batches', call: (key?: string) => get(h.base, key, '/api/v1/ingest/batches') },
    { name: 'GET /api/v1/ingest/batches/{id}', call: (key?: string) => get(h.base, key, `/api/v1/ingest/batches/${aBatchId}`) },
    { name: 'GET /api/v1/export', call: (key?: string) => exportOf(key) },
    // Deleting: ids that do not exist, so a key allowed to delete gets its 404 and nothing of A goes.
    { name: 'DELETE /api/v1/sources/{id}', call: (key?: string) => del(h.base, key, '/api/v1/sources/src_doesnotexist') },
    { name: 'DELETE /api/v1/records/{id}', call: (key?: string) => del(h.base, key, '/api/v1/records/rec_doesnotexist') },
    // An attachment's file is what customers sent: reading it needs api:read, as the export does.
    { name: 'GET /api/v1/records/{id}/attachments/{position}', call: (key?: string) => get(h.base, key, '/api/v1/records/rec_doesnotexist/attachments/0') },
    // Erasing a person: asking and lifting need api:write; ids that do not exist answer 404 to a key allowed to ask.
    { name: 'POST /api/v1/erasures', call: (key?: string) => jsonCall('POST', '/api/v1/erasures', key, { participant_id: 'p-isolation' }) },
    { name: 'GET /api/v1/erasures', call: (key?: string) => get(h.base, key, '/api/v1/erasures') },
    { name: 'GET /api/v1/erasures/{id}', call: (key?: string) => get(h.base, key, '/api/v1/erasures/era_doesnotexist') },
    { name: 'POST /api/v1/erasures/{id}/confirm', call: (key?: string) => jsonCall('POST', '/api/v1/erasures/era_doesnotexist/confirm', key, {}) },
    { name: 'GET /api/v1/suppressions', call: (key?: string) => get(h.base, key, '/api/v1/suppressions') },
    { name: 'DELETE /api/v1/suppressions/{id}', call: (key?: string) => del(h.base, key, '/api/v1/suppressions/sup_doesnotexist') },
    // Companies and people: writes need api:write; ids that do not exist answer 404 to a key allowed to read or delete.
    { name: 'PUT /api/v1/companies/{id}', call: (key?: string) => jsonCall('PUT', '/api/v1/companies/iso-matrix', key, { name: 'M' }) },
    { name: 'POST /api/v1/companies:batch', call: (key?: string) => jsonCall('POST', '/api/v1/companies:batch', key, [{ external_id: 'iso-matrix-b', name: 'M' }]) },
    { name: 'GET /api/v1/companies', call: (key?: string) => get(h.base, key, '/api/v1/companies') },
    { name: 'GET /api/v1/companies/{id}', call: (key?: string) => get(h.base, key, '/api/v1/companies/iso-doesnotexist') },
    { name: 'DELETE /api/v1/companies/{id}', call: (key?: string) => del(h.base, key, '/api/v1/companies/iso-doesnotexist') },
    { name: 'PUT /api/v1/people/{id}', call: (key?: string) => jsonCall('PUT', '/api/v1/people/iso-matrix', key, { name: 'M' }) },
    { name: 'POST /api/v1/people:batch', call: (key?: string) => jsonCall('POST', '/api/v1/people:batch', key, [{ external_id: 'iso-matrix-b' }]) },
    { name: 'GET /api/v1/people', call: (key?: string) => get(h.base, key, '/api/v1/people') },
    { name: 'GET /api/v1/people/{id}', call: (key?: string) => get(h.base, key, '/api/v1/people/iso-doesnotexist') },
    { name: 'DELETE /api/v1/people/{id}', call: (key?: string) => del(h.base, key, '/api/v1/people/iso-doesnotexist') },
    // Connections: writes need api:write; a connection that does not exist answers 404 to a key allowed to read or write it.
    {
      name: 'POST /api/v1/connections',
      call: (key?: string) => jsonCall('POST', '/api/v1/connections', key, {
        kind: 'zendesk', product_id: h.a.productId, project_id: h.a.projectId, base_url: 'https://acme-matrix.zendesk.com', credentials: { access_token: 'matrix-secret' },
      }),
    },
    { name: 'GET /api/v1/connections', call: (key?: string) => get(h.base, key, '/api/v1/connections') },
    { name: 'GET /api/v1/connections/{id}', call: (key?: string) => get(h.base, key, `/api/v1/connections/${NO_CONNECTION}`) },
    { name: 'PATCH /api/v1/connections/{id}', call: (key?: string) => jsonCall('PATCH', `/api/v1/connections/${NO_CONNECTION}`, key, { sync_interval_minutes: 30 }) },
    { name: 'DELETE /api/v1/connections/{id}', call: (key?: string) => del(h.base, key, `/api/v1/connections/${NO_CONNECTION}`) },
    { name: 'POST /api/v1/connections/{id}/pause', call: (key?: string) => jsonCall('POST', `/api/v1/connections/${NO_CONNECTION}/pause`, key, {}) },
    { name: 'POST /api/v1/connections/{id}/resume', call: (key?: string) => jsonCall('POST', `/api/v1/connections/${NO_CONNECTION}/resume`, key, {}) },
    { name: 'POST /api/v1/connections/{id}/sync', call: (key?: string) => jsonCall('POST', `/api/v1/connections/${NO_CONNECTION}/sync`, key, {}) },
  ];
  const connections = { read: [403, 200, 404, 403, 403, 403, 403, 403], write: [201, 200, 404, 404, 404, 404, 404, 404] };
  const directory = { read: [403, 403, 200, 404, 403], write: [201, 200, 200, 404, 404] };
  const callers = () => [
    { name: 'no key', key: undefined, expected: Array(endpoints.length).fill(401) },
    { name: 'unknown key', key: 'loupe_sk_0000000000000000000000000000', expected: Array(endpoints.length).fill(401) },
    { name: 'revoked A key', key: h.revokedKey, expected: Array(endpoints.length).fill(401) },
    { name: 'A key with mcp:read only', key: h.mcpOnlyKey, expected: Array(endpoints.length).fill(403) },
    // Deleting needs api:write.
    { name: 'A key with api:read only', key: h.a.readKey, expected: [403, 200, 200, 200, 403, 403, 404, 403, 200, 404, 403, 200, 403, ...directory.read, ...directory.read, ...connections.read] },
    // The export is everything a workspace holds: a key that only sends records cannot take it.
    { name: 'A key with api:write only', key: h.a.writeKey, expected: [202, 200, 200, 403, 404, 404, 403, 202, 200, 404, 404, 200, 404, ...directory.write, ...directory.write, ...connections.write] },
  ];

  it('refuses revoked, unknown and permission-lacking keys on every endpoint, without data', async () => {
    for (const caller of callers()) {
      for (const [i, endpoint] of endpoints.entries()) {
        const r = await endpoint.call(caller.key);
        note(endpoint.name, caller.name, r.status);
        expect({ endpoint: endpoint.name, caller: caller.name, status: r.status }).toEqual({ endpoint: endpoint.name, caller: caller.name, status: caller.expected[i] });
        if (r.status >= 400) {
          expect(Object.keys(r.body).sort()).toEqual(['error', 'message']);
          expect(JSON.stringify(r.body)).not.toContain(aBatchId);
        }
      }
    }
  });
});
