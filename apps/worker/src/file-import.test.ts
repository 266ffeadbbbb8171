import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createFileImport, getFileImport, importStorageKey, setImportMapping, startFileImport, type Mapping } from '@loupe/file-import';
import type { Boss } from '@loupe/jobs';
import { createLocalStorage, type Storage } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, type Worker } from './app';
import { createWorkspace, FAST_OPTIONS, silentLog, startBoss, testConfig } from './test/helpers';

// The worker takes the console's file.import jobs: a stored CSV streamed in slices through the accept path, its
// records then processed into sources like any batch's.
let t: TestDatabase;
let boss: Boss;
let dir: string;
let storage: Storage;
let worker: Worker;

beforeAll(async () => {
  t = await createTestDatabase();
  boss = await startBoss(t.url);
  dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-worker-import-'));
  storage = createLocalStorage(path.join(dir, 'attachments'));
  worker = createWorker({ pool: t.pool, db: t.db, boss, clock: { now: () => Date.now() }, log: silentLog, config: testConfig(dir), storage, options: FAST_OPTIONS });
  await worker.start();
});
afterAll(async () => {
  await worker?.stop();
  await boss?.stop({ graceful: false, close: true });
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const ROWS = 2500;
function csv(): string {
  const lines = ['Review ID,Date,Stars,Review'];
  for (let i = 1; i <= ROWS; i++) lines.push(i === 1234 ? `R-${i},31/02/2026,1,Crashes` : `R-${i},${String((i % 28) + 1).padStart(2, '0')}/11/2026,${(i % 5) + 1},"Review number ${i}, with a comma"`);
  return `${lines.join('\n')}\n`;
}

const mapping: Mapping = {
  type: 'message', event_at: { column: 'Date', format: 'DD/MM/YYYY' }, vendor_ids: { appstore: { column: 'Review ID' } },
  data: { text: { column: 'Review' }, stars: { column: 'Stars', as: 'number' } },
};

async function importOnce(ws: string, productId: string, projectId: string) {
  const id = newId('imp');
  const key = importStorageKey(ws, id);
  const stored = await storage.put(key, Readable.from([Buffer.from(csv())]), { maxBytes: 1e8 });
  await createFileImport(t.pool, { id, workspaceId: ws, fileName: 'reviews.csv', storageKey: key, sizeBytes: stored.size, format: 'csv', createdBy: null }, new Date());
  await setImportMapping(t.pool, ws, id, { mapping, productId, projectId }, new Date());
  expect(await startFileImport(t.pool, boss, ws, id, new Date())).toBe(true);
  for (let i = 0; i < 600; i++) {
    const job = (await getFileImport(t.pool, ws, id))!;
    if (job.status === 'done' || job.status === 'failed') return job;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error('the import did not finish in 60 s');
}

describe('the file.import job', () => {
  it('imports a stored CSV in slices, refuses the bad row by line, and a second import of the file stores nothing new', async () => {
    const ws = await createWorkspace(t.pool, 100_000);
    const productId = `prod_${ws}`;
    const projectId = `proj_${ws}`;
    await t.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [productId, ws, 'App']);
    await t.pool.query('INSERT INTO projects (id, workspace_id, product_id, name) VALUES ($1, $2, $3, $4)', [projectId, ws, productId, 'Reviews']);
    const first = await importOnce(ws, productId, projectId);
    expect(first).toMatchObject({ status: 'done', rowsRead: ROWS, stored: ROWS - 1, duplicates: 0, refused: 1 });
    expect(first.refusals).toEqual([{ where: { line: 1235 }, problems: ['_event_at: "31/02/2026" in column "Date" does not fit the format DD/MM/YYYY'] }]);
    const { rows: batches } = await t.pool.query<{ n: number; source: string }>('SELECT count(*)::int AS n, min(source) AS source FROM batches WHERE workspace_id = $1', [ws]);
    expect(batches[0]).toEqual({ n: 3, source: 'file-import' });
    const second = await importOnce(ws, productId, projectId);
    expect(second).toMatchObject({ status: 'done', rowsRead: ROWS, stored: 0, duplicates: ROWS - 1, refused: 1 });
    expect((await t.pool.query('SELECT count(*)::int AS n FROM records WHERE workspace_id = $1', [ws])).rows[0].n).toBe(ROWS - 1);
    // and the worker made them sources, as for any batch
    for (let i = 0; i < 300; i++) {
      const { rows } = await t.pool.query("SELECT count(*)::int AS n FROM batches WHERE workspace_id = $1 AND status NOT IN ('COMPLETE', 'FAILED')", [ws]);
      if (rows[0].n === 0) break;
      await new Promise((r) => setTimeout(r, 200));
    }
    expect((await t.pool.query('SELECT count(*)::int AS n FROM sources WHERE workspace_id = $1', [ws])).rows[0].n).toBe(ROWS - 1);
  }, 120_000);
});
