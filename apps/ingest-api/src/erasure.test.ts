import { Ajv2020 } from 'ajv/dist/2020.js';
import { runErasure } from '@loupe/erasure';
import { systemClock } from '@loupe/http';
import { createLocalStorage } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, rec, startHarness, type Harness } from './test/harness';

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
    expect(JSON.stringify(created.body)).not.toMatch(/ana/i);
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
    expect(JSON.stringify(mixed.body)).not.toMatch(/ana/i);
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
    expect(JSON.stringify(rows)).not.toMatch(/ana/i);
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
