import { Ajv2020 } from 'ajv/dist/2020.js';
import { runErasure } from '@loupe/erasure';
import { systemClock } from '@loupe/http';
import { createSourceFromRecord } from '@loupe/sources';
import { createLocalStorage } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, rec, recordsOf, startHarness, type Harness } from './test/harness';

let h: Harness;
let doc: Record<string, any>;
let ajv: Ajv2020;
beforeAll(async () => {
  h = await startHarness();
  doc = (await (await fetch(`${h.base}/api/v1/openapi.json`)).json()) as Record<string, any>;
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
});
afterAll(() => h.close());

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');

/** The answer has the status and the published document's schema of it accepts its body. */
function conforms(path: string, method: string, r: { status: number; body: unknown }, status: number) {
  expect(r.status, JSON.stringify(r.body)).toBe(status);
  expect(doc.paths[path]?.[method]?.responses?.[String(status)], `${method} ${path} ${status} documented`).toBeDefined();
  const validate = ajv.getSchema(`openapi.json#/${pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema')}`)!;
  expect(validate(r.body), `${method} ${path} ${status}: ${ajv.errorsText(validate.errors)}`).toBe(true);
}

async function call(method: string, path: string, key: string | undefined, body?: unknown, headers: Record<string, string> = {}) {
  const res = await fetch(`${h.base}${path}`, {
    method,
    headers: { ...(key ? { 'x-api-key': key } : {}), ...(body !== undefined ? { 'content-type': 'application/json' } : {}), ...headers },
    ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
  });
  return { status: res.status, body: (await res.json()) as any, headers: res.headers };
}

const ana = (tenant: Harness['a'], email = 'ana.planted@globex.test') =>
  rec(tenant, { _participants: [{ id: 'p-ana', role: 'external', name: 'Ana Planted', email }], data: { subject: 'Exports', body: 'Exports are slow' } });

describe('erasures and suppressions over the ingestion API', () => {
  it('asks for an erasure (202), refuses records naming the person with a record error, shows progress, lifts the suppression', async () => {
    const accepted = await post(h.base, h.a.writeKey, [ana(h.a)]);
    expect(accepted.status).toBe(202);

    const created = await call('POST', '/api/v1/erasures', h.a.writeKey, { email: 'Ana.Planted@globex.test' });
    conforms('/api/v1/erasures', 'post', created, 202);
    expect(created.body).toMatchObject({ status: 'queued', subjectKind: 'email', requestedBy: expect.stringMatching(/^API key key_/) });
    // "ana" starting a word (her name, email, participant id): a random id can hold it inside (era_…qana0…).
    expect(JSON.stringify(created.body)).not.toMatch(/\bana/i);
    expect(created.headers.get('location')).toBe(`/api/v1/erasures/${created.body.id}`);

    // one record naming her in another case, one mentioning her address in its text, one about someone else
    const mixed = await post(h.base, h.a.writeKey, [
      ana(h.a, 'ANA.PLANTED@GLOBEX.TEST'),
      rec(h.a, { data: { body: 'Forwarded by ana.planted@globex.test' } }),
      rec(h.a, { data: { body: 'Bob is fine' } }),
    ]);
    expect(mixed.status).toBe(202);
    expect(mixed.body).toMatchObject({ acceptedCount: 1, rejectedCount: 2 });
    expect(mixed.body.errors).toEqual([
      { index: 0, code: 'PERSON_SUPPRESSED', message: expect.stringMatching(/^_participants\[0\]\.email: names a person erased from this workspace \(suppression sup_/) },
      { index: 1, code: 'PERSON_SUPPRESSED', message: expect.stringMatching(/^data: names a person erased/) },
    ]);
    expect(JSON.stringify(mixed.body)).not.toMatch(/\bana/i);
    const all = await post(h.base, h.a.writeKey, [ana(h.a)]);
    expect(all.status).toBe(400);
    expect(all.body.errors[0].code).toBe('PERSON_SUPPRESSED');
    // another workspace is not affected
    expect((await post(h.base, h.b.writeKey, [ana(h.b)])).status).toBe(202);

    const storage = createLocalStorage(await import('node:os').then((os) => os.tmpdir()));
    expect((await runErasure({ pool: h.t.pool, boss: h.boss, storage, clock: systemClock }, h.a.workspaceId, created.body.id)).status).toBe('complete');
    const progress = await call('GET', `/api/v1/erasures/${created.body.id}`, h.a.readKey);
    conforms('/api/v1/erasures/{erasureId}', 'get', progress, 200);
    expect(progress.body).toMatchObject({ status: 'complete', phase: 'done', counts: { records: 1 } });
    const { rows } = await h.t.pool.query(`SELECT data::text AS d, participants::text AS p FROM records WHERE workspace_id = $1`, [h.a.workspaceId]);
    expect(JSON.stringify(rows)).not.toMatch(/\bana/i);
    conforms('/api/v1/erasures', 'get', await call('GET', '/api/v1/erasures', h.a.readKey), 200);

    const list = await call('GET', '/api/v1/suppressions', h.a.readKey);
    conforms('/api/v1/suppressions', 'get', list, 200);
    // the email asked for, and the participant id the erasure found with it
    expect(list.body.suppressions.map((x: { kind: string }) => x.kind).sort()).toEqual(['email', 'participant_id']);
    const id = list.body.suppressions[0].id;
    conforms('/api/v1/suppressions/{suppressionId}', 'delete', await call('DELETE', `/api/v1/suppressions/${id}`, h.a.readKey), 403);
    conforms('/api/v1/suppressions/{suppressionId}', 'delete', await call('DELETE', `/api/v1/suppressions/${id}`, h.b.writeKey), 404);
    const lifted = await call('DELETE', `/api/v1/suppressions/${id}`, h.a.writeKey);
    conforms('/api/v1/suppressions/{suppressionId}', 'delete', lifted, 200);
    expect(lifted.body).toMatchObject({ id, liftedBy: expect.stringMatching(/^API key /) });
    conforms('/api/v1/suppressions/{suppressionId}', 'delete', await call('DELETE', `/api/v1/suppressions/${id}`, h.a.writeKey), 404);
    const left = (await call('GET', '/api/v1/suppressions', h.a.readKey)).body.suppressions;
    expect(left).toHaveLength(1);
    expect((await call('GET', '/api/v1/suppressions?include=lifted', h.a.readKey)).body.suppressions).toHaveLength(2);
    expect((await post(h.base, h.a.writeKey, [ana(h.a)])).status).toBe(400); // still suppressed by the other
    expect((await call('DELETE', `/api/v1/suppressions/${left[0].id}`, h.a.writeKey)).status).toBe(200);
    expect((await post(h.base, h.a.writeKey, [ana(h.a)])).status).toBe(202);
  });

  it('answers every documented error', async () => {
    const path = '/api/v1/erasures';
    conforms(path, 'post', await call('POST', path, h.a.writeKey, {}), 400);
    conforms(path, 'post', await call('POST', path, h.a.writeKey, { email: 'not-an-email' }), 400);
    conforms(path, 'post', await call('POST', path, h.a.writeKey, { email: 'a@b.test', name: 'x' }), 400);
    conforms(path, 'post', await call('POST', path, h.a.writeKey, '[1'), 400);
    conforms(path, 'post', await call('POST', path, h.a.writeKey, JSON.stringify({ email: `${'a'.repeat(5000)}@b.test` })), 413);
    conforms(path, 'post', await call('POST', path, h.a.writeKey, 'email=a', { 'content-type': 'text/plain' }), 415);
    conforms(path, 'post', await call('POST', path, undefined, { email: 'a@b.test' }), 401);
    conforms(path, 'post', await call('POST', path, h.a.readKey, { email: 'a@b.test' }), 403);
    conforms(path, 'get', await call('GET', path, h.mcpOnlyKey), 403);
    const created = await call('POST', path, h.a.writeKey, { participant_id: 'p-77' });
    expect(created.status).toBe(202);
    const one = '/api/v1/erasures/{erasureId}';
    conforms(one, 'get', await call('GET', `/api/v1/erasures/${created.body.id}`, h.b.readKey), 404);
    conforms(one, 'get', await call('GET', '/api/v1/erasures/era_missing', h.a.readKey), 404);
    conforms(one, 'get', await call('GET', `/api/v1/erasures/${'e'.repeat(129)}`, h.a.readKey), 400);
    conforms(one, 'get', await call('GET', `/api/v1/erasures/${created.body.id}`, h.a.writeKey), 200);
    conforms('/api/v1/suppressions', 'get', await call('GET', '/api/v1/suppressions?include=all', h.a.readKey), 400);
    expect((await call('GET', '/api/v1/suppressions', h.b.readKey)).body.suppressions).toEqual([]);
    conforms('/api/v1/suppressions/{suppressionId}', 'delete', await call('DELETE', `/api/v1/suppressions/${'s'.repeat(129)}`, h.a.writeKey), 400);
    // the job carries only the request's id
    const { rows } = await h.t.pool.query(`SELECT data FROM pgboss.job WHERE name = 'person.erase' AND data->>'erasureId' = $1`, [created.body.id]);
    expect(rows.map((r) => r.data)).toEqual([{ workspaceId: h.a.workspaceId, erasureId: created.body.id }]);
  });
});

describe('who is erased (issue 41 finding 3)', () => {
  const eraseDeps = () => ({ pool: h.t.pool, boss: h.boss, storage: h.storage, clock: systemClock });
  const callRecord = (id: string, words: string) => rec(h.a, {
    _type: 'call', _participants: [{ id, role: 'external', name: 'Customer' }], data: { title: 'Support call', transcript: [{ speaker: 'Customer', text: words }] },
  });
  /** The records of a batch and the sources the worker makes of them. */
  async function landCalls(...records: Array<Record<string, unknown>>) {
    const sent = await post(h.base, h.a.writeKey, records);
    expect(sent.status).toBe(202);
    const out: Array<{ record: string; source: string }> = [];
    for (const id of await recordsOf(h, sent.body.batchId as string)) {
      const { rows: [r] } = await h.t.pool.query('SELECT * FROM records WHERE id = $1', [id]);
      const { sourceId } = await createSourceFromRecord(h.t.pool, {
        id, workspaceId: r.workspace_id, productId: r.product_id, projectIds: r.project_ids, type: r.type, nature: r.nature, eventAt: r.event_at,
        data: r.data, participants: r.participants, tags: r.tags ?? [], threadId: r.thread_id,
      });
      out.push({ record: id, source: sourceId });
    }
    return out;
  }
  const snapshot = async (c: { record: string; source: string }) => JSON.stringify((await h.t.pool.query(
    `SELECT (SELECT row_to_json(r) FROM records r WHERE r.id = $1) AS record, (SELECT row_to_json(s) FROM sources s WHERE s.id = $2) AS source,
            (SELECT json_agg(g ORDER BY g.position) FROM source_segments g WHERE g.source_id = $2) AS segments`, [c.record, c.source])).rows[0]);

  it('erasing cust-1 leaves cust-2\'s call exactly as it was: a dry run previews it ("Customer" shared, nothing changed), the confirmation erases', async () => {
    const [one, two] = await landCalls(callRecord('cust-1', 'The walrus export is broken.'), callRecord('cust-2', 'Please keep my heron dashboard.'));
    const before = { one: await snapshot(one!), two: await snapshot(two!) };

    const dry = await call('POST', '/api/v1/erasures', h.a.writeKey, { participant_id: 'cust-1', dry_run: true });
    conforms('/api/v1/erasures', 'post', dry, 202);
    expect(dry.body).toMatchObject({ status: 'queued', dryRun: true });
    expect((await runErasure(eraseDeps(), h.a.workspaceId, dry.body.id)).status).toBe('previewed');
    const previewed = await call('GET', `/api/v1/erasures/${dry.body.id}`, h.a.readKey);
    conforms('/api/v1/erasures/{erasureId}', 'get', previewed, 200);
    expect(previewed.body).toMatchObject({
      status: 'previewed', dryRun: true, counts: { records: 1, sources: 1, segments: 1 },
      preview: { names: [{ name: 'Customer', shared: true, sharedWith: 1, mentions: null }], identifiers: [] },
    });
    expect(previewed.body.preview.samples).toContainEqual({ kind: 'source', id: one!.source, field: 'segment', before: 'Customer: The walrus export is broken.', after: '[erased]: [erased]' });
    // nothing changed, no one suppressed
    expect({ one: await snapshot(one!), two: await snapshot(two!) }).toEqual(before);
    expect((await call('GET', '/api/v1/suppressions', h.a.readKey)).body.suppressions.filter((x: { erasureId?: string }) => x.erasureId === dry.body.id)).toEqual([]);
    // the list does not carry previews
    expect((await call('GET', '/api/v1/erasures', h.a.readKey)).body.erasures.find((e: { id: string }) => e.id === dry.body.id).preview).toBeUndefined();

    const confirmPath = '/api/v1/erasures/{erasureId}/confirm';
    const shared = await call('POST', `/api/v1/erasures/${dry.body.id}/confirm`, h.a.writeKey, { names: ['Customer'] });
    conforms(confirmPath, 'post', shared, 400);
    expect(shared.body.message).toBe('names[0]: "Customer" is shared with 1 other participant and is never looked for');
    const confirmed = await call('POST', `/api/v1/erasures/${dry.body.id}/confirm`, h.a.writeKey, {});
    conforms(confirmPath, 'post', confirmed, 202);
    expect(confirmed.body).toMatchObject({ id: dry.body.id, status: 'queued', dryRun: false, counts: {} });
    conforms(confirmPath, 'post', await call('POST', `/api/v1/erasures/${dry.body.id}/confirm`, h.a.writeKey, {}), 409);
    expect((await runErasure(eraseDeps(), h.a.workspaceId, dry.body.id)).status).toBe('complete');

    expect(await snapshot(two!)).toBe(before.two);
    const { rows: [erased] } = await h.t.pool.query('SELECT participants, data FROM records WHERE id = $1', [one!.record]);
    expect(erased).toEqual({ participants: [], data: { title: 'Support call', transcript: [{ speaker: '[erased]', text: '[erased]' }] } });
    const { rows: segs } = await h.t.pool.query('SELECT speaker, text FROM source_segments WHERE source_id = $1', [two!.source]);
    expect(segs).toEqual([{ speaker: 'Customer', text: 'Please keep my heron dashboard.' }]);
  });

  it('refuses a participant id shorter than 3 characters, naming the field and the minimum; and answers confirm\'s documented errors', async () => {
    const short = await call('POST', '/api/v1/erasures', h.a.writeKey, { participant_id: '42' });
    conforms('/api/v1/erasures', 'post', short, 400);
    expect(short.body.message).toMatch(/^participant_id: must be at least 3 characters \(this one has 2\)/);
    conforms('/api/v1/erasures', 'post', await call('POST', '/api/v1/erasures', h.a.writeKey, { email: 'a@b.test', dry_run: 'yes' }), 400);
    expect((await h.t.pool.query("SELECT 1 FROM erasure_requests WHERE workspace_id = $1 AND subject->'given'->'ids' ? '42'", [h.a.workspaceId])).rowCount).toBe(0);

    const path = '/api/v1/erasures/{erasureId}/confirm';
    const dry = await call('POST', '/api/v1/erasures', h.a.writeKey, { email: 'zed@globex.test', dry_run: true });
    const url = `/api/v1/erasures/${dry.body.id}/confirm`;
    conforms(path, 'post', await call('POST', url, h.a.writeKey, {}), 409); // not previewed yet
    await runErasure(eraseDeps(), h.a.workspaceId, dry.body.id);
    conforms(path, 'post', await call('POST', url, h.a.writeKey, { names: 'Zed' }), 400);
    conforms(path, 'post', await call('POST', url, h.a.writeKey, { names: ['Zed'], extra: 1 }), 400);
    conforms(path, 'post', await call('POST', url, h.a.writeKey, { names: ['Zed'] }), 400); // not offered
    conforms(path, 'post', await call('POST', url, h.a.writeKey, 'names=Zed', { 'content-type': 'text/plain' }), 415);
    conforms(path, 'post', await call('POST', url, h.a.writeKey, JSON.stringify({ names: ['x'.repeat(5000)] })), 413);
    conforms(path, 'post', await call('POST', url, h.a.readKey, {}), 403);
    conforms(path, 'post', await call('POST', url, undefined, {}), 401);
    conforms(path, 'post', await call('POST', url, h.b.writeKey, {}), 404);
    conforms(path, 'post', await call('POST', `/api/v1/erasures/${'e'.repeat(129)}/confirm`, h.a.writeKey, {}), 400);
    expect((await call('GET', `/api/v1/erasures/${dry.body.id}`, h.a.readKey)).body.status).toBe('previewed');
  });
});
