import {
  BATCH_TRANSITIONS, DOWNLOAD_TRANSITIONS, TransitionError, assertBatchTransition, assertDownloadTransition, finalDownloadStatus,
  transitionBatch, transitionDownloads, type BatchStatus, type DownloadStatus,
} from '@loupe/batches';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorkspace } from './test/helpers';

const BATCH_STATES = Object.keys(BATCH_TRANSITIONS) as BatchStatus[];
const DOWNLOAD_STATES = Object.keys(DOWNLOAD_TRANSITIONS) as DownloadStatus[];

describe('batch and download state machines', () => {
  let t: TestDatabase;
  let workspaceId: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    workspaceId = await createWorkspace(t.pool);
  });
  afterAll(() => t.close());

  async function batch(status: BatchStatus, downloads: DownloadStatus | null = null): Promise<string> {
    const id = newId('bat');
    await t.pool.query(
      `INSERT INTO batches (id, workspace_id, product_id, source, type, status, accepted_count, rejected_count, total_error_count,
                            attachment_download_status)
       VALUES ($1, $2, 'p', 'api', 'call', $3, 0, 0, 0, $4)`,
      [id, workspaceId, status, downloads],
    );
    return id;
  }

  it('allows exactly the moves of the tables and nothing else', () => {
    const allowed: string[] = [];
    for (const from of BATCH_STATES) {
      for (const to of BATCH_STATES) {
        try {
          assertBatchTransition(from, to);
          allowed.push(`${from}>${to}`);
        } catch (error) {
          expect(error).toBeInstanceOf(TransitionError);
          expect((error as Error).message).toBe(`A batch cannot move from ${from} to ${to}`);
        }
      }
    }
    expect(allowed.sort()).toEqual(
      ['LANDING>LANDED', 'LANDING>FAILED', 'LANDED>PROCESSING', 'LANDED>FAILED', 'PROCESSING>COMPLETE', 'PROCESSING>FAILED'].sort(),
    );
    for (const final of ['COMPLETE', 'PARTIAL_FAILURE', 'FAILED'] as const) {
      for (const to of DOWNLOAD_STATES) expect(() => assertDownloadTransition(final, to)).toThrow(TransitionError);
    }
    expect(() => assertDownloadTransition('IN_PROGRESS', 'PENDING')).toThrow(/cannot move from IN_PROGRESS to PENDING/);
  });

  it('refuses an illegal move before touching the database, and a move from the wrong state', async () => {
    const id = await batch('COMPLETE');
    await expect(transitionBatch(t.pool, id, 'COMPLETE', 'PROCESSING')).rejects.toThrow(TransitionError);
    expect(await transitionBatch(t.pool, id, 'LANDED', 'PROCESSING')).toBe(false);
    const { rows } = await t.pool.query('SELECT status FROM batches WHERE id = $1', [id]);
    expect(rows[0].status).toBe('COMPLETE');
  });

  it('lets exactly one of many concurrent identical moves win', async () => {
    for (let round = 0; round < 5; round++) {
      const id = await batch('LANDED', 'PENDING');
      const moves = await Promise.all(Array.from({ length: 8 }, () => transitionBatch(t.pool, id, 'LANDED', 'PROCESSING')));
      expect(moves.filter(Boolean)).toHaveLength(1);
      const downloads = await Promise.all([
        transitionDownloads(t.pool, id, 'PENDING', 'IN_PROGRESS'),
        transitionDownloads(t.pool, id, 'PENDING', 'FAILED'),
        transitionDownloads(t.pool, id, 'PENDING', 'COMPLETE'),
      ]);
      expect(downloads.filter(Boolean)).toHaveLength(1);
    }
  });

  it('records completion time and appends errors on a final move', async () => {
    const id = await batch('PROCESSING');
    expect(await transitionBatch(t.pool, id, 'PROCESSING', 'FAILED', { errors: [{ index: 3, code: 'X', message: 'why' }] })).toBe(true);
    const { rows } = await t.pool.query('SELECT status, completed_at, errors FROM batches WHERE id = $1', [id]);
    expect(rows[0]).toMatchObject({ status: 'FAILED', errors: [{ index: 3, code: 'X', message: 'why' }] });
    expect(rows[0].completed_at).toBeInstanceOf(Date);
  });

  it('derives the final download status from the counters', () => {
    expect(finalDownloadStatus(3, 2, 0)).toBeUndefined();
    expect(finalDownloadStatus(3, 3, 0)).toBe('COMPLETE');
    expect(finalDownloadStatus(3, 2, 1)).toBe('PARTIAL_FAILURE');
    expect(finalDownloadStatus(3, 0, 3)).toBe('FAILED');
  });
});
