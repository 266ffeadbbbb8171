import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@loupe/db';
import { addSuppression, requestErasure, runErasure } from '@loupe/erasure';
import { systemClock } from '@loupe/http';
import { dedupKeyOf } from '@loupe/records';
import { post, rec, startHarness, type Harness } from './test/harness';

// Issue 41 finding 7: POST /api/v1/ingest lets no record naming an erased person in, whatever its JSON
// escapes, the case of an id, or the moment the suppression is made.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const codes = (body: Record<string, any>) => (body.errors ?? []).map((e: { index: number; code: string; message: string }) => [e.index, e.code, e.message.split(':')[0]]);

/** Polls until `check` is true (a backend waiting on a lock, a request settled), failing after 10 s. */
async function until(what: string, check: () => Promise<boolean> | boolean) {
  for (let waited = 0; waited < 10_000; waited += 20) {
    if (await check()) return;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`timed out waiting for ${what}`);
}

/** Whether a backend of the test database is waiting on `event` (advisory, transactionid, …) in a statement like `like`. */
async function waitingOn(event: string, like = '%') {
  const { rows } = await h.t.pool.query(
    `SELECT 1 FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock' AND wait_event = $1 AND query LIKE $2`,
    [event, like],
  );
  return rows.length > 0;
}

function settled<T>(p: Promise<T>) {
  const state = { done: false, value: undefined as T | undefined };
  void p.then((v) => Object.assign(state, { done: true, value: v }), () => Object.assign(state, { done: true }));
  return state;
}

describe('suppressed people in POST /api/v1/ingest', () => {
  it('refuses an address written with JSON escapes (\\u003c…\\u003e, \\u0040) in data, like a plain one', async () => {
    await requestErasure(h.t.pool, h.boss, { workspaceId: h.a.workspaceId, email: 'esc.ana@globex.test', by: { label: 'owner' }, now: new Date() });
    const plain = JSON.stringify([rec(h.a, { data: { body: 'nothing of her' } })]).slice(1, -1);
    const body = `[${[
      JSON.stringify(rec(h.a, { data: { from: 'ESCAPED_LT' } })).replace('ESCAPED_LT', 'Ana \\u003cesc.ana@globex.test\\u003e'),
      JSON.stringify(rec(h.a, { data: { body: 'ESCAPED_AT' } })).replace('ESCAPED_AT', 'write to esc.ana\\u0040globex.test'),
      JSON.stringify(rec(h.a, { data: { ESCAPED_KEY: 'cc' } })).replace('ESCAPED_KEY', 'Esc.Ana\\u0040Globex.test'),
      plain,
    ].join(',')}]`;
    expect(body).toContain('\\u003cesc.ana@globex.test\\u003e');
    const r = await post(h.base, h.a.writeKey, undefined, { raw: body });
    expect(r.status, r.text).toBe(202);
    expect(r.body).toMatchObject({ acceptedCount: 1, rejectedCount: 3 });
    expect(codes(r.body)).toEqual([[0, 'PERSON_SUPPRESSED', 'data'], [1, 'PERSON_SUPPRESSED', 'data'], [2, 'PERSON_SUPPRESSED', 'data']]);
    // "ana" starting a word (her name, email, participant id): a random id can hold it inside (era_…qana0…).
    expect(r.text).not.toMatch(/\bana/i);
  });

  it('refuses a participant id that differs from the erased one only in case', async () => {
    await requestErasure(h.t.pool, h.boss, { workspaceId: h.a.workspaceId, participantId: 'Case-Ana-9', by: { label: 'owner' }, now: new Date() });
    const r = await post(h.base, h.a.writeKey, [
      rec(h.a, { _participants: [{ id: 'case-ana-9', role: 'external' }] }),
      rec(h.a, { _participants: [{ id: 'CASE-ANA-9', role: 'external' }] }),
      rec(h.a, { _participants: [{ id: 'case-bob-9', role: 'external' }] }),
    ]);
    expect(r.status, r.text).toBe(202);
    expect(codes(r.body)).toEqual([[0, 'PERSON_SUPPRESSED', '_participants[0].id'], [1, 'PERSON_SUPPRESSED', '_participants[0].id']]);
  });

  it('a record sent while a suppression of its person is being made waits for it and is refused', async () => {
    const client = await h.t.pool.connect();
    try {
      await client.query('BEGIN');
      // the suppression made, not yet committed (as inside POST /api/v1/erasures)
      await addSuppression(client, { workspaceId: h.a.workspaceId, kind: 'email', value: 'race1.ana@globex.test', by: 'owner', now: new Date() });
      const sent = settled(post(h.base, h.a.writeKey, [rec(h.a, { _participants: [{ id: 'p-race1', role: 'external', email: 'race1.ana@globex.test' }] })]));
      await until('the landing to wait for the suppression, or to answer', async () => sent.done || (await waitingOn('advisory')));
      await client.query('COMMIT');
      await until('the answer', () => sent.done);
      const r = sent.value!;
      expect(r.status, r.text).toBe(400);
      expect(codes(r.body)).toEqual([[0, 'PERSON_SUPPRESSED', '_participants[0].email']]);
    } finally {
      await client.query('ROLLBACK').catch(() => {});
      client.release();
    }
    const { rows } = await h.t.pool.query(`SELECT 1 FROM records WHERE workspace_id = $1 AND participants::text ILIKE '%race1%'`, [h.a.workspaceId]);
    expect(rows).toEqual([]);
  });

  it('an erasure asked for while a record naming the person lands waits for it, and erases it', async () => {
    const record = rec(h.a, { _participants: [{ id: 'p-race2', role: 'external', name: 'Racy Planted', email: 'race2.ana@globex.test' }], data: { body: 'Racy Planted says hi' } });
    // Holds the landing between its suppression check and its commit: another transaction inserts the
    // same dedup key first, so the landing's INSERT waits for it (the blocker then rolls back).
    const blocker = await h.t.pool.connect();
    const batch = newId('bat');
    try {
      await blocker.query('BEGIN');
      await blocker.query(
        `INSERT INTO batches (id, workspace_id, product_id, source, type, status, accepted_count, rejected_count, total_error_count)
         VALUES ($1, $2, $3, 'api', 'email', 'LANDING', 1, 0, 0)`, [batch, h.a.workspaceId, h.a.productId]);
      await blocker.query(
        `INSERT INTO records (id, workspace_id, batch_id, position, dedup_key, type, nature, product_id, project_ids, event_at, vendor_ids, data)
         VALUES ($1, $2, $3, 0, $4, 'email', 'evidence', $5, $6, now(), '{}', '{}')`,
        [newId('rec'), h.a.workspaceId, batch, dedupKeyOf('email', record._vendor_ids as Record<string, string>, '2026-03-04T05:06:07Z'), h.a.productId, [h.a.projectId]]);
      const sent = settled(post(h.base, h.a.writeKey, [record]));
      await until('the landing to wait on the same dedup key', () => waitingOn('transactionid', '%INSERT INTO records%'));
      const erased = settled((async () => {
        const erasure = await requestErasure(h.t.pool, h.boss, { workspaceId: h.a.workspaceId, email: 'race2.ana@globex.test', by: { label: 'owner' }, now: new Date() });
        return runErasure({ pool: h.t.pool, boss: h.boss, storage: h.storage, clock: systemClock }, h.a.workspaceId, erasure.id);
      })());
      // either the erasure ends before the record lands (the hole this closes) or it waits for the landing
      await until('the erasure to wait for the landing, or to end', async () => erased.done || (await waitingOn('advisory')));
      await blocker.query('ROLLBACK');
      await until('the answer and the erasure', () => sent.done && erased.done);
      expect(erased.value?.status).toBe('complete');
      const r = sent.value!;
      // landed before the suppression, so the erasure found it
      expect(r.status, r.text).toBe(202);
      const { rows } = await h.t.pool.query(`SELECT data::text AS d, participants::text AS p FROM records WHERE batch_id = $1`, [r.body.batchId]);
      expect(rows).toHaveLength(1);
      // Her address, id and participant entry are gone; a name is erased only when confirmed after a preview.
      expect(JSON.stringify(rows)).not.toMatch(/race2/i);
      expect(rows[0].p).not.toMatch(/racy/i);
    } finally {
      await blocker.query('ROLLBACK').catch(() => {});
      blocker.release();
    }
    // and from now on it is refused
    const again = await post(h.base, h.a.writeKey, [rec(h.a, { _participants: [{ id: 'p-x', role: 'external', email: 'race2.ana@globex.test' }] })]);
    expect(again.status).toBe(400);
  });
});
