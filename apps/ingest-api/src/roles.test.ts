import { createApiKey } from '@loupe/api-keys';
import { newId } from '@loupe/db';
import { addSuppression } from '@loupe/erasure';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { get, post, rec, recordsOf, sourceOf, startHarness, type Harness } from './test/harness';

// Issue 41 finding 6: a key acts as the person who created it, so it can do no more than the account
// pages let that person do, by their role now: erasing a person and lifting a suppression are for
// owners, deleting a source (or its record) for owners and admins.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

type Role = 'owner' | 'admin' | 'member';

/** A person of workspace A with `role`, and an api:read + api:write key they created. */
async function personWithKey(role: Role) {
  const userId = newId('usr');
  await h.t.pool.query('INSERT INTO users (id, email, email_verified) VALUES ($1, $2, true)', [userId, `${userId}@acme.test`]);
  await h.t.pool.query('INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)', [h.a.workspaceId, userId, role]);
  const { key } = await createApiKey(h.t.db, { workspaceId: h.a.workspaceId, name: `${role}'s key`, permissions: ['api:read', 'api:write'], createdByUserId: userId, servicePrefix: 'loupe_' });
  return { userId, key };
}

async function call(method: 'POST' | 'DELETE', path: string, key: string, body?: unknown) {
  const res = await fetch(`${h.base}${path}`, {
    method, headers: { 'x-api-key': key, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** A source with its record in workspace A (sent with `key`, made a source as the worker would). */
async function aSource(key: string) {
  const sent = await post(h.base, key, [rec(h.a)]);
  expect(sent.status).toBe(202);
  const [record] = await recordsOf(h, sent.body.batchId);
  return { record: record!, source: await sourceOf(h, record!) };
}

const aSuppression = async () =>
  (await addSuppression(h.t.pool, { workspaceId: h.a.workspaceId, kind: 'email', value: `${newId('p')}@globex.test`, by: 'test', now: new Date() })).id;
const erasures = async () => (await h.t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM erasure_requests WHERE workspace_id = $1', [h.a.workspaceId])).rows[0]!.n;
const exists = async (table: 'sources' | 'records', id: string) => (await h.t.pool.query(`SELECT 1 FROM ${table} WHERE id = $1`, [id])).rows.length === 1;
const active = async (id: string) => (await h.t.pool.query('SELECT 1 FROM suppressions WHERE id = $1 AND lifted_at IS NULL', [id])).rows.length === 1;

const refusal = (roles: 'owners' | 'owners and admins', what: string, creator: string, creatorRole: Role | null) => ({
  error: 'FORBIDDEN',
  message: `Only ${roles} can ${what}: this API key acts as the person who created it, ${creator}. Ask one of the workspace's ${roles} to do it, or to create a key for it.`,
  details: { requiredRoles: roles === 'owners' ? ['owner'] : ['owner', 'admin'], creatorRole },
});
const ERASE = ['owners', 'erase a person'] as const;
const LIFT = ['owners', 'lift a suppression'] as const;
const DELETE = ['owners and admins', 'delete sources (or the records they were built from)'] as const;

describe('API keys act with their creator\'s role now (issue 41 finding 6)', () => {
  it('refuses a member\'s api:write key on erasures, lifting a suppression and deleting a source or record, naming the role; nothing changes', async () => {
    const member = await personWithKey('member');
    const { record, source } = await aSource(member.key);
    const suppression = await aSuppression();
    const asMember = 'who is a member of this workspace';
    expect(await call('POST', '/api/v1/erasures', member.key, { email: 'ana@globex.test' })).toEqual({ status: 403, body: refusal(...ERASE, asMember, 'member') });
    expect(await call('DELETE', `/api/v1/suppressions/${suppression}`, member.key)).toEqual({ status: 403, body: refusal(...LIFT, asMember, 'member') });
    expect(await call('DELETE', `/api/v1/sources/${source}`, member.key)).toEqual({ status: 403, body: refusal(...DELETE, asMember, 'member') });
    expect(await call('DELETE', `/api/v1/records/${record}`, member.key)).toEqual({ status: 403, body: refusal(...DELETE, asMember, 'member') });
    expect(await erasures()).toBe(0);
    expect(await active(suppression)).toBe(true);
    expect(await exists('sources', source)).toBe(true);
    expect(await exists('records', record)).toBe(true);
    // What every member may do, the key still does: send records (above), read batches, export, follow erasures.
    expect((await get(h.base, member.key, '/api/v1/ingest/batches')).status).toBe(200);
    expect((await get(h.base, member.key, '/api/v1/suppressions')).status).toBe(200);
  });

  it('lets an owner\'s key erase, lift and delete', async () => {
    const owner = await personWithKey('owner');
    const { record, source } = await aSource(owner.key);
    const suppression = await aSuppression();
    expect((await call('POST', '/api/v1/erasures', owner.key, { email: 'owner.erases@globex.test' })).status).toBe(202);
    expect((await call('DELETE', `/api/v1/suppressions/${suppression}`, owner.key)).status).toBe(200);
    expect((await call('DELETE', `/api/v1/sources/${source}`, owner.key)).status).toBe(200);
    expect(await exists('records', record)).toBe(false);
    const other = await aSource(owner.key);
    expect((await call('DELETE', `/api/v1/records/${other.record}`, owner.key)).status).toBe(200);
  });

  it('lets an admin\'s key delete a source or a record, but not erase a person or lift a suppression', async () => {
    const admin = await personWithKey('admin');
    const one = await aSource(admin.key);
    const two = await aSource(admin.key);
    expect((await call('DELETE', `/api/v1/sources/${one.source}`, admin.key)).status).toBe(200);
    expect((await call('DELETE', `/api/v1/records/${two.record}`, admin.key)).status).toBe(200);
    const asAdmin = 'who is an admin of this workspace';
    const before = await erasures();
    expect(await call('POST', '/api/v1/erasures', admin.key, { email: 'ana@globex.test' })).toEqual({ status: 403, body: refusal(...ERASE, asAdmin, 'admin') });
    const suppression = await aSuppression();
    expect(await call('DELETE', `/api/v1/suppressions/${suppression}`, admin.key)).toEqual({ status: 403, body: refusal(...LIFT, asAdmin, 'admin') });
    expect(await erasures()).toBe(before);
    expect(await active(suppression)).toBe(true);
  });

  it('refuses a key on the very next request once its creator is demoted, and once they have left the workspace', async () => {
    const owner = await personWithKey('owner');
    const first = await aSource(owner.key);
    expect((await call('DELETE', `/api/v1/sources/${first.source}`, owner.key)).status).toBe(200);
    const suppression = await aSuppression();
    await h.t.pool.query("UPDATE memberships SET role = 'admin' WHERE workspace_id = $1 AND user_id = $2", [h.a.workspaceId, owner.userId]);
    expect(await call('DELETE', `/api/v1/suppressions/${suppression}`, owner.key)).toEqual({ status: 403, body: refusal(...LIFT, 'who is an admin of this workspace', 'admin') });
    await h.t.pool.query("UPDATE memberships SET role = 'member' WHERE workspace_id = $1 AND user_id = $2", [h.a.workspaceId, owner.userId]);
    const second = await aSource(owner.key);
    expect(await call('DELETE', `/api/v1/sources/${second.source}`, owner.key)).toEqual({ status: 403, body: refusal(...DELETE, 'who is a member of this workspace', 'member') });
    // Gone from the workspace (removed without the page, which would also revoke the key).
    await h.t.pool.query('DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2', [h.a.workspaceId, owner.userId]);
    expect(await call('DELETE', `/api/v1/sources/${second.source}`, owner.key)).toEqual({ status: 403, body: refusal(...DELETE, 'who no longer belongs to this workspace', null) });
    expect(await call('POST', '/api/v1/erasures', owner.key, { email: 'ana@globex.test' })).toEqual({ status: 403, body: refusal(...ERASE, 'who no longer belongs to this workspace', null) });
    expect(await exists('sources', second.source)).toBe(true);
    expect(await active(suppression)).toBe(true);
  });

  it('lets a key made by the admin CLI (no creator) act as the workspace', async () => {
    const { record, source } = await aSource(h.a.writeKey);
    expect((await call('DELETE', `/api/v1/sources/${source}`, h.a.writeKey)).status).toBe(200);
    expect(await exists('records', record)).toBe(false);
  });
});
