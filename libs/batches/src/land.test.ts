import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createBoss, ensureQueues, type Boss } from '@loupe/jobs';
import { parseBody, validateItems, type AcceptedRecord } from '@loupe/records';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { landBatch } from './index';

describe('landing', () => {
  let t: TestDatabase;
  let boss: Boss;
  beforeAll(async () => {
    t = await createTestDatabase();
    boss = createBoss({ connectionString: t.url, supervise: false });
    boss.on('error', () => {});
    await boss.start();
    await ensureQueues(boss);
    await t.pool.query(`INSERT INTO workspaces (id, name) VALUES ('ws_1', 'w')`);
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, close: true });
    await t.close();
  });

  const recordsOf = (round: number, n: number): AcceptedRecord[] => {
    const body = Array.from({ length: n }, (_, i) => ({
      _type: 'call', _schema_version: '1.0.0', _event_at: '2026-01-02T03:04:05Z', _vendor_ids: { id: `${round}-${i}` },
      _product_id: 'p', _project_ids: ['j'], _nature: 'evidence', data: { i },
    }));
    return validateItems(parseBody('json', Buffer.from(JSON.stringify(body)))).accepted;
  };
  const land = (accepted: AcceptedRecord[]) =>
    landBatch(t.pool, boss, {
      workspaceId: 'ws_1', apiKeyId: null, productId: 'p', type: 'call', source: 'api', format: undefined,
      accepted, rejectedCount: 0, totalErrorCount: 0, errors: [], now: Date.now(),
    });

  it('lands two requests carrying the same records in opposite order without a deadlock, each record once', async () => {
    for (let round = 0; round < 15; round++) {
      const accepted = recordsOf(round, 400);
      const results = await Promise.allSettled([land(accepted), land([...accepted].reverse())]);
      const failures = results.filter((r) => r.status === 'rejected').map((r) => String((r as PromiseRejectedResult).reason));
      expect(failures, `round ${round}`).toEqual([]);
      const landed = results.map((r) => (r as PromiseFulfilledResult<{ insertedCount: number; duplicateCount: number }>).value);
      expect(landed[0]!.insertedCount + landed[1]!.insertedCount).toBe(400);
      expect(landed[0]!.duplicateCount + landed[1]!.duplicateCount).toBe(400);
    }
  }, 120_000);

  it('keeps a NUL character and a lone surrogate in data exactly as sent (json_to_recordset would refuse to de-escape them)', async () => {
    const text = '{"_type":"call","_schema_version":"1.0.0","_event_at":"2026-01-02T03:04:05Z","_vendor_ids":{"id":"nul"},"_product_id":"p","_project_ids":["j"],"_nature":"evidence","data":{"text":"a\\u0000b \\ud800 c"}}';
    const accepted = validateItems(parseBody('json', Buffer.from(`[${text}]`))).accepted;
    expect(accepted).toHaveLength(1);
    await land(accepted);
    const { rows } = await t.pool.query(`SELECT data::text AS data FROM records WHERE vendor_ids @> '{"id":"nul"}'`);
    expect(rows[0].data).toBe('{"text":"a\\u0000b \\ud800 c"}');
  });
});
