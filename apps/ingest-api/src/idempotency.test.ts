import { requestFingerprint } from '@loupe/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, rec, startHarness, type Harness } from './test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const batchesOf = async (workspaceId: string) =>
  (await h.t.pool.query('SELECT count(*)::int AS n FROM batches WHERE workspace_id = $1', [workspaceId])).rows[0].n as number;

describe('Idempotency-Key', () => {
  it('replays the first answer for the same key and body, storing nothing again', async () => {
    const body = [rec(h.a), rec(h.a)];
    const first = await post(h.base, h.a.writeKey, body, { headers: { 'idempotency-key': 'k-replay' } });
    const before = await batchesOf(h.a.workspaceId);
    const second = await post(h.base, h.a.writeKey, body, { headers: { 'idempotency-key': 'k-replay' } });
    expect(second.status).toBe(202);
    expect(second.text).toBe(first.text);
    expect(second.headers.get('idempotent-replayed')).toBe('true');
    expect(await batchesOf(h.a.workspaceId)).toBe(before);
  });

  it('replays a 400 too', async () => {
    const body = [rec(h.a, { _type: 'fax' })];
    const first = await post(h.base, h.a.writeKey, body, { headers: { 'idempotency-key': 'k-400' } });
    const second = await post(h.base, h.a.writeKey, body, { headers: { 'idempotency-key': 'k-400' } });
    expect([first.status, second.status]).toEqual([400, 400]);
    expect(second.text).toBe(first.text);
  });

  it('answers 422 for the same key with another body', async () => {
    await post(h.base, h.a.writeKey, [rec(h.a)], { headers: { 'idempotency-key': 'k-diff' } });
    const r = await post(h.base, h.a.writeKey, [rec(h.a)], { headers: { 'idempotency-key': 'k-diff' } });
    expect(r.status).toBe(422);
    expect(r.body.error).toBe('IDEMPOTENCY_KEY_REUSED');
  });

  it('scopes keys to the workspace', async () => {
    const a = await post(h.base, h.a.writeKey, [rec(h.a)], { headers: { 'idempotency-key': 'k-scope' } });
    const b = await post(h.base, h.b.writeKey, [rec(h.b)], { headers: { 'idempotency-key': 'k-scope' } });
    expect([a.status, b.status]).toEqual([202, 202]);
    expect(a.body.batchId).not.toBe(b.body.batchId);
  });

  it('answers 409 while the first request is in flight', async () => {
    const body = JSON.stringify([rec(h.a)]);
    await h.t.pool.query(
      `INSERT INTO idempotency_keys (workspace_id, key, request_hash, state, created_at, expires_at)
       VALUES ($1, 'k-busy', 'other', 'in_flight', now(), now() + interval '1 day')`,
      [h.a.workspaceId],
    );
    const r = await post(h.base, h.a.writeKey, null, { raw: body, headers: { 'idempotency-key': 'k-busy' } });
    expect(r.status).toBe(422); // a different fingerprint is a different body, even in flight
    await h.t.pool.query(`UPDATE idempotency_keys SET request_hash = $2 WHERE workspace_id = $1 AND key = 'k-busy'`, [
      h.a.workspaceId,
      requestFingerprint(['json', '', Buffer.from(body)]),
    ]);
    const busy = await post(h.base, h.a.writeKey, null, { raw: body, headers: { 'idempotency-key': 'k-busy' } });
    expect(busy.status).toBe(409);
    expect(busy.body).toMatchObject({ error: 'IDEMPOTENCY_KEY_IN_USE', retryAfter: 1 });
  });

  it('takes keys of up to 256 characters and refuses longer ones', async () => {
    expect((await post(h.base, h.a.writeKey, [rec(h.a)], { headers: { 'idempotency-key': 'k'.repeat(256) } })).status).toBe(202);
    const r = await post(h.base, h.a.writeKey, [rec(h.a)], { headers: { 'idempotency-key': 'k'.repeat(257) } });
    expect(r.status).toBe(400);
    expect(r.body.message).toMatch(/Idempotency-Key/);
  });

  it('keeps keys 24 hours', async () => {
    await post(h.base, h.a.writeKey, [rec(h.a)], { headers: { 'idempotency-key': 'k-ttl' } });
    const { rows } = await h.t.pool.query(
      `SELECT extract(epoch FROM expires_at - created_at)::int AS s FROM idempotency_keys WHERE workspace_id = $1 AND key = 'k-ttl'`,
      [h.a.workspaceId],
    );
    expect(rows[0].s).toBe(24 * 3600);
  });

  it('makes exactly one batch of 50 concurrent identical requests', async () => {
    const body = JSON.stringify(Array.from({ length: 50 }, () => rec(h.b)));
    const before = await batchesOf(h.b.workspaceId);
    const send = () => post(h.base, h.b.writeKey, null, { raw: body, headers: { 'idempotency-key': 'k-50' } });
    const answers = await Promise.all(Array.from({ length: 50 }, send));
    expect(answers.every((a) => a.status === 202 || a.status === 409)).toBe(true);
    const accepted = answers.filter((a) => a.status === 202);
    expect(new Set(accepted.map((a) => a.body.batchId)).size).toBe(1);
    const retried = await send();
    expect(retried.status).toBe(202);
    expect(retried.body.batchId).toBe(accepted[0]?.body.batchId ?? retried.body.batchId);
    expect(await batchesOf(h.b.workspaceId)).toBe(before + 1);
  });
});
