import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BATCH_TRANSITIONS, CursorError, TransitionError, assertBatchTransition, decodeCursor, encodeCursor, finalDownloadStatus,
  transitionBatch,
} from './index';

describe('batch transitions', () => {
  it('allows only the moves of the table, and nothing out of a final state', () => {
    expect(() => assertBatchTransition('LANDED', 'PROCESSING')).not.toThrow();
    expect(() => assertBatchTransition('COMPLETE', 'PROCESSING')).toThrow(TransitionError);
    expect(() => assertBatchTransition('LANDED', 'COMPLETE')).toThrow(/LANDED to COMPLETE/);
    expect(BATCH_TRANSITIONS.COMPLETE).toEqual([]);
    expect(BATCH_TRANSITIONS.FAILED).toEqual([]);
  });

  it('ends downloads in COMPLETE, PARTIAL_FAILURE or FAILED once nothing is pending', () => {
    expect(finalDownloadStatus(3, 2, 0)).toBeUndefined();
    expect(finalDownloadStatus(3, 3, 0)).toBe('COMPLETE');
    expect(finalDownloadStatus(3, 2, 1)).toBe('PARTIAL_FAILURE');
    expect(finalDownloadStatus(3, 0, 3)).toBe('FAILED');
  });

  describe('in the database', () => {
    let t: TestDatabase;
    beforeAll(async () => {
      t = await createTestDatabase();
      await t.pool.query(`INSERT INTO workspaces (id, name) VALUES ('ws_1', 'w')`);
      await t.pool.query(
        `INSERT INTO batches (id, workspace_id, product_id, source, type, status, accepted_count, rejected_count, total_error_count)
         VALUES ('bat_1', 'ws_1', 'p', 'api', 'call', 'LANDED', 1, 0, 0)`,
      );
    });
    afterAll(() => t.close());

    it('lets exactly one of two concurrent movers win, and records the reason of a failure', async () => {
      const wins = await Promise.all([
        transitionBatch(t.pool, 'bat_1', 'LANDED', 'PROCESSING'),
        transitionBatch(t.pool, 'bat_1', 'LANDED', 'PROCESSING'),
      ]);
      expect(wins.sort()).toEqual([false, true]);
      const reason = { index: 0, code: 'PROCESSING_FAILED', message: 'boom' };
      expect(await transitionBatch(t.pool, 'bat_1', 'PROCESSING', 'FAILED', { errors: [reason] })).toBe(true);
      const { rows } = await t.pool.query(`SELECT status, errors, completed_at FROM batches WHERE id = 'bat_1'`);
      expect(rows[0]).toMatchObject({ status: 'FAILED', errors: [reason], completed_at: expect.any(Date) });
    });
  });
});

describe('cursors', () => {
  it('round-trip and refuse anything else', () => {
    const c = encodeCursor(new Date(1_700_000_000_123), 'bat_01m7zx46xx71f8sy9aztaag173');
    expect(decodeCursor(c)).toEqual({ createdAt: new Date(1_700_000_000_123), id: 'bat_01m7zx46xx71f8sy9aztaag173' });
    expect(() => decodeCursor('garbage')).toThrow(CursorError);
    expect(() => decodeCursor(Buffer.from("1.bat_x' OR 1=1").toString('base64url'))).toThrow(CursorError);
  });
});
