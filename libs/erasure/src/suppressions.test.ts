import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId, withTransaction } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { addSuppression, findSuppressed, listSuppressions, type Candidate } from './index';

// Issue 41 finding 7: a suppression must not let the erased person back in through escapes or case.
let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

const now = () => new Date();

async function workspace(): Promise<string> {
  const ws = newId('ws');
  await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, 'W']);
  return ws;
}

const suppress = (ws: string, kind: 'email' | 'participant_id', value: string) =>
  withTransaction(t.pool, (c) => addSuppression(c, { workspaceId: ws, kind, value, by: 'owner', now: now() }));

const hitsOf = async (ws: string, candidates: Candidate[]) => {
  const hits = await findSuppressed(t.pool, ws, candidates);
  return candidates.map((_, i) => hits.get(i)?.field ?? null);
};

describe('suppressions', () => {
  it('find an address in a record\'s parsed data however its JSON escaped it, keys included', async () => {
    const ws = await workspace();
    await suppress(ws, 'email', 'ana@globex.test');
    // what common encoders write: <, > and @ as \u escapes
    const data = (json: string) => ({ data: JSON.parse(json) as unknown });
    expect(await hitsOf(ws, [
      data('{"from":"Ana \\u003cana@globex.test\\u003e"}'),
      data('{"body":"write to ana\\u0040globex.test"}'),
      data('{"cc":{"ANA\\u0040GLOBEX.TEST":"cc"}}'),
      data('{"thread":[{"text":"fine"},{"text":["deep", {"to":"\\u0061na@globex.test"}]}]}'),
      data('{"body":"write to bob\\u0040globex.test"}'),
    ])).toEqual(['data', 'data', 'data', 'data', null]);
  });

  it('compare participant ids case-insensitively, as the erasure finds them', async () => {
    const ws = await workspace();
    const sup = await suppress(ws, 'participant_id', 'P-Ana-7');
    expect(await hitsOf(ws, [
      { participants: [{ id: 'p-ana-7' }] },
      { participants: [{ id: ' P-ANA-7 ' }] },
      { ids: [{ field: 'signals[0].participant_id', value: 'p-ANA-7' }] },
      { participants: [{ id: 'p-ana-8' }] },
    ])).toEqual(['_participants[0].id', '_participants[0].id', 'signals[0].participant_id', null]);
    // the same id in another case is the same suppression
    expect((await suppress(ws, 'participant_id', 'p-ana-7')).id).toBe(sup.id);
  });

  it('keep matching rows hashed before ids were case-folded, and fold them when the id is suppressed again', async () => {
    const ws = await workspace();
    // a row as the earlier code wrote it: SHA-256 of the id trimmed, in the case asked for
    const legacy = createHash('sha256').update(`${ws}\nparticipant_id\nP-Old-1`).digest('hex');
    const id = newId('sup');
    await t.pool.query(
      `INSERT INTO suppressions (id, workspace_id, kind, value_hash, created_by, created_at) VALUES ($1, $2, 'participant_id', $3, 'owner', now())`,
      [id, ws, legacy],
    );
    expect(await hitsOf(ws, [{ participants: [{ id: 'P-Old-1' }] }, { participants: [{ id: 'p-old-1' }] }])).toEqual(['_participants[0].id', null]);
    // suppressed again as it was asked (another erasure, or its own erasure's end): the same row, now in any case
    expect((await suppress(ws, 'participant_id', 'P-Old-1')).id).toBe(id);
    expect(await hitsOf(ws, [{ participants: [{ id: 'P-Old-1' }] }, { participants: [{ id: 'p-old-1' }] }])).toEqual(['_participants[0].id', '_participants[0].id']);
    expect((await listSuppressions(t.pool, ws)).map((s) => s.id)).toEqual([id]);
  });
});
