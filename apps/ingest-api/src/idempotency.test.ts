import { IDEMPOTENCY_STALE_MS, createIdempotencyStore, requestFingerprint } from '@loupe/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchesOf as countBatches, post, rec, startHarness, type Harness } from './test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const batchesOf = (workspaceId: string) => countBatches(h, workspaceId);

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

  it('fences a stale claim taken over by a later request: the first can neither complete nor release it', async () => {
    let now = Date.parse('2026-06-01T00:00:00Z');
    const store = createIdempotencyStore(h.t.pool, { now: () => now });
    const ws = h.a.workspaceId;
    for (const [key, secondBody] of [['k-stale-same', 'body'], ['k-stale-other', 'other body']] as const) {
      const first = await store.claim(ws, key, requestFingerprint(['body']));
      expect(first.kind).toBe('owner');
      now += IDEMPOTENCY_STALE_MS + 1;
      const second = await store.claim(ws, key, requestFingerprint([secondBody]));
      expect(second.kind).toBe('owner');
      const firstToken = (first as { token: string }).token;
      await expect(store.complete(h.t.pool, ws, key, firstToken, 202, '{"first":true}')).rejects.toMatchObject({ status: 409 });
      await store.release(ws, key, firstToken);
      const { rows } = await h.t.pool.query('SELECT state, owner_token FROM idempotency_keys WHERE workspace_id = $1 AND key = $2', [ws, key]);
      expect(rows).toEqual([{ state: 'in_flight', owner_token: (second as { token: string }).token }]);
      await store.complete(h.t.pool, ws, key, (second as { token: string }).token, 202, '{"second":true}');
      expect(await store.claim(ws, key, requestFingerprint([secondBody]))).toEqual({ kind: 'replay', status: 202, body: '{"second":true}' });
    }
  });

  it('rolls back the batch of a request whose claim was taken over, and answers 409', async () => {
    const body = JSON.stringify([rec(h.a)]);
    const before = await batchesOf(h.a.workspaceId);
    const taken = createIdempotencyStore(h.t.pool, { now: () => Date.now() });
    const fenced = { ...taken, claim: async (...args: Parameters<typeof taken.claim>) => {
      const claim = await taken.claim(...args);
      // Another request takes the key over while this one is still landing.
      await h.t.pool.query(`UPDATE idempotency_keys SET owner_token = 'someone else' WHERE workspace_id = $1 AND key = $2`, [args[0], args[1]]);
      return claim;
    } };
    const base = await h.startApp({ idempotency: fenced });
    const r = await post(base, h.a.writeKey, null, { raw: body, headers: { 'idempotency-key': 'k-fenced' } });
    expect(r.status).toBe(409);
    expect(r.body.error).toBe('IDEMPOTENCY_KEY_IN_USE');
    expect(await batchesOf(h.a.workspaceId)).toBe(before);
  });
});
