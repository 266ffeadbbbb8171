import { createReadStream } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createLogger, systemClock } from '@loupe/http';
import { createBoss, ensureQueues, QUEUES, type Boss } from '@loupe/jobs';
import { createLocalStorage, type Storage } from '@loupe/storage';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  createFileImport, deleteMapping, discardDraft, DRAFT_TTL_MS, purgeStaleDrafts, findMapping, formatOf, getFileImport, importStorageKey, listMappings, MappingError, runFileImport, saveMapping, setImportMapping,
  startFileImport, type Mapping,
} from './index';

// The console's import job: a stored upload streamed through the ingestion API's accept path, on a real PostgreSQL and pg-boss.
let t: TestDatabase;
let boss: Boss;
let dir: string;
let storage: Storage;
let workspaceId: string;
let productId: string;
let projectId: string;
const log = createLogger('silent');

beforeAll(async () => {
  t = await createTestDatabase();
  boss = createBoss({ connectionString: t.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-file-import-'));
  storage = createLocalStorage(path.join(dir, 'storage'));
  workspaceId = (await createWorkspace(t.db, { name: 'Import' })).id;
  productId = (await createProduct(t.db, workspaceId, { name: 'App' })).id;
  projectId = (await createProject(t.db, workspaceId, productId, { name: 'Feedback' })).id;
});
afterAll(async () => {
  await boss?.stop({ graceful: false, close: true });
  await t?.close();
  await rm(dir, { recursive: true, force: true });
});

const deps = () => ({ pool: t.pool, boss, storage, clock: systemClock, log });

const tickets: Mapping = {
  type: 'conversation',
  event_at: { column: 'Created at' },
  vendor_ids: { helpdesk: { column: 'Ticket ID' } },
  participants: [{ email: { column: 'Email' }, role: 'external' }],
  data: { subject: { column: 'Subject' }, text: { column: 'Body' } },
};

/** Uploads `file` as the console does (streamed into storage) and queues its import with `mapping`. */
async function queueImport(file: string, mapping: Mapping, ws = workspaceId): Promise<string> {
  const id = newId('imp');
  const key = importStorageKey(ws, id);
  const stored = await storage.put(key, createReadStream(file), { maxBytes: 1e9 });
  await createFileImport(t.pool, { id, workspaceId: ws, fileName: path.basename(file), storageKey: key, sizeBytes: stored.size, format: await formatOf(file), createdBy: null }, new Date());
  expect(await setImportMapping(t.pool, ws, id, { mapping, productId, projectId }, new Date())).toBe(true);
  expect(await startFileImport(t.pool, boss, ws, id, new Date())).toBe(true);
  const { rows } = await t.pool.query("SELECT data FROM pgboss.job WHERE name = $1 AND data->>'importId' = $2", [QUEUES.importFile, id]);
  expect(rows.map((r) => r.data)).toEqual([{ workspaceId: ws, importId: id }]);
  return id;
}

const storedRecords = async (system: string) =>
  (await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND vendor_ids ? $2', [workspaceId, system])).rows[0]!.n;

describe('saved mappings', () => {
  it('are checked by the mapping schema, named once per workspace, and never seen from another workspace', async () => {
    const other = (await createWorkspace(t.db, { name: 'Other' })).id;
    await expect(saveMapping(t.pool, workspaceId, { name: '  ', mapping: { type: 'tweet' }, userId: null }, new Date())).rejects.toThrow(MappingError);
    try {
      await saveMapping(t.pool, workspaceId, { name: '', mapping: { ...tickets, data: {} }, userId: null }, new Date());
    } catch (error) {
      expect((error as MappingError).problems).toEqual(['name: must not be empty', 'data: must map at least one key (e.g. "text")']);
    }
    const saved = await saveMapping(t.pool, workspaceId, { name: 'Help desk', mapping: tickets, userId: null }, new Date('2026-11-20T10:00:00Z'));
    const again = await saveMapping(t.pool, workspaceId, { name: 'Help desk', mapping: { ...tickets, type: 'message' }, userId: null }, new Date('2026-11-21T10:00:00Z'));
    expect(again.id).toBe(saved.id);
    expect(again.mapping.type).toBe('message');
    expect(again.updatedAt.toISOString()).toBe('2026-11-21T10:00:00.000Z');
    expect((await listMappings(t.pool, workspaceId)).map((m) => m.name)).toEqual(['Help desk']);
    expect(await listMappings(t.pool, other)).toEqual([]);
    expect(await findMapping(t.pool, other, saved.id)).toBeUndefined();
    expect(await findMapping(t.pool, workspaceId, 'Help desk')).toMatchObject({ id: saved.id });
    expect(await deleteMapping(t.pool, other, saved.id)).toBe(false);
    expect(await deleteMapping(t.pool, workspaceId, saved.id)).toBe(true);
    // another workspace's import is not this one's either
    const id = await queueImport(await csv('iso.csv', ['1,2026-11-20,a@x.example,S,B']), tickets, other);
    expect(await getFileImport(t.pool, workspaceId, id)).toBeUndefined();
    expect(await runFileImport(deps(), workspaceId, id)).toEqual({ status: 'skipped', reason: 'not found' });
  });
});

async function csv(name: string, lines: string[]): Promise<string> {
  const file = path.join(dir, name);
  await writeFile(file, ['Ticket ID,Created at,Email,Subject,Body', ...lines].join('\n') + '\n');
  return file;
}

describe('uploads never imported', () => {
  it('are discarded with their file on request, or after a week by the sweep; started ones stay', async () => {
    const file = await csv('draft.csv', ['D-1,2026-11-20,a@x.example,S,B']);
    const draft = async (at: Date) => {
      const id = newId('imp');
      const key = importStorageKey(workspaceId, id);
      await storage.put(key, createReadStream(file), { maxBytes: 1e6 });
      await createFileImport(t.pool, { id, workspaceId, fileName: 'draft.csv', storageKey: key, sizeBytes: 10, format: 'csv', createdBy: null }, at);
      return { id, key };
    };
    const now = new Date();
    const old = await draft(new Date(now.getTime() - DRAFT_TTL_MS - 60_000));
    const recent = await draft(new Date(now.getTime() - 3600_000));
    const started = await queueImport(file, { ...tickets, vendor_ids: { draft: { column: 'Ticket ID' } } });
    await t.pool.query('UPDATE file_imports SET created_at = $2 WHERE id = $1', [started, new Date(now.getTime() - 2 * DRAFT_TTL_MS)]);
    expect(await purgeStaleDrafts(t.pool, storage, now)).toBe(1);
    expect(await getFileImport(t.pool, workspaceId, old.id)).toBeUndefined();
    expect(await storage.exists(old.key)).toBe(false);
    expect(await getFileImport(t.pool, workspaceId, started)).toMatchObject({ status: 'queued' });
    const other = (await createWorkspace(t.db, { name: 'Elsewhere' })).id;
    expect(await discardDraft(t.pool, storage, other, recent.id)).toBe(false);
    expect(await discardDraft(t.pool, storage, workspaceId, started)).toBe(false);
    expect(await discardDraft(t.pool, storage, workspaceId, recent.id)).toBe(true);
    expect(await storage.exists(recent.key)).toBe(false);
  });
});

describe('an import', () => {
  it('refuses bad rows by line, stores the rest once, resumes after a stop, and stores nothing new the second time', async () => {
    const lines = Array.from({ length: 25 }, (_, i) => `T-${i + 1},2026-11-${String((i % 28) + 1).padStart(2, '0')},p${i}@globex.example,Subject ${i},Body ${i}`);
    lines[4] = 'T-5,yesterday,p4@globex.example,Subject,Body'; // line 6
    lines[9] = 'T-10,2026-11-10,not-an-email,Subject,Body'; // line 11
    lines[19] = ',2026-11-20,p19@globex.example,Subject,"two\nlines"'; // lines 21-22
    const file = await csv('tickets.csv', lines);
    const first = await queueImport(file, tickets);
    const stop = new AbortController();
    stop.abort();
    // A worker stopping: the first slice of 10 rows lands, then the job fails and is retried later.
    await expect(runFileImport({ ...deps(), rowsPerSlice: 10 }, workspaceId, first, { signal: stop.signal })).rejects.toThrow(/stopped after 10 rows/);
    expect(await getFileImport(t.pool, workspaceId, first)).toMatchObject({ status: 'running', rowsRead: 10, stored: 8, refused: 2 });
    expect(await runFileImport({ ...deps(), rowsPerSlice: 10 }, workspaceId, first)).toEqual({ status: 'done', rowsRead: 25, stored: 22, duplicates: 0, refused: 3 });
    const done = (await getFileImport(t.pool, workspaceId, first))!;
    expect(done.refusals).toEqual([
      { where: { line: 6 }, problems: ['_event_at: "yesterday" in column "Created at" does not fit the format iso (like 2026-11-20 or 2026-11-20 10:05)'] },
      { where: { line: 11 }, problems: [expect.stringMatching(/^_participants\[0\]\.email: /)] },
      { where: { line: 22 }, problems: ['_vendor_ids.helpdesk: column "Ticket ID" is empty'] },
    ]);
    expect(done.bytesRead).toBe(done.sizeBytes);
    expect(await storage.exists(done.storageKey)).toBe(false);
    expect(await storedRecords('helpdesk')).toBe(22);
    // Done: a job run again does nothing.
    expect(await runFileImport(deps(), workspaceId, first)).toEqual({ status: 'skipped', reason: 'done' });

    const second = await queueImport(file, tickets);
    expect(await runFileImport(deps(), workspaceId, second)).toEqual({ status: 'done', rowsRead: 25, stored: 0, duplicates: 22, refused: 3 });
    expect(await storedRecords('helpdesk')).toBe(22);
  });

  it('refuses rows holding what PostgreSQL cannot store outside data, and names them without failing', async () => {
    const file = await csv('nul.csv', ['N-\u00001,2026-11-20,a@x.example,Subject,Body', 'N-2,2026-11-20\u0000,b@x.example,Subject,Body', 'N-3,2026-11-20,c@x.example,Sub\u0000ject,Body']);
    const id = await queueImport(file, { ...tickets, vendor_ids: { nul: { column: 'Ticket ID' } } });
    expect(await runFileImport(deps(), workspaceId, id)).toEqual({ status: 'done', rowsRead: 3, stored: 1, duplicates: 0, refused: 2 });
    expect((await getFileImport(t.pool, workspaceId, id))!.refusals).toEqual([
      { where: { line: 2 }, problems: [expect.stringMatching(/^_vendor_ids\.nul: contains a NUL character/)] },
      { where: { line: 3 }, problems: ['_event_at: "2026-11-20\ufffd" in column "Created at" does not fit the format iso (like 2026-11-20 or 2026-11-20 10:05)'] },
    ]);
  });

  it('ends as failed, saying so, when its uploaded file is gone from storage', async () => {
    const id = await queueImport(await csv('gone.csv', ['G-1,2026-11-20,a@x.example,S,B']), { ...tickets, vendor_ids: { gone: { column: 'Ticket ID' } } });
    await storage.delete((await getFileImport(t.pool, workspaceId, id))!.storageKey);
    expect(await runFileImport(deps(), workspaceId, id)).toMatchObject({ status: 'failed', rowsRead: 0, error: expect.stringMatching(/^The uploaded file is not in storage any more/) });
  });

  it('ends as failed, naming where, when the file breaks halfway; the rows before it stay stored', async () => {
    const file = path.join(dir, 'broken.json');
    await writeFile(file, '[{"id":"a1","at":"2026-11-20","text":"one"},{"id":"a2","at":"2026-11-21","text":"two"},{"id":"a3","at":');
    const id = await queueImport(file, { type: 'message', event_at: { column: 'at' }, vendor_ids: { broken: { column: 'id' } }, data: { text: { column: 'text' } } });
    const outcome = await runFileImport(deps(), workspaceId, id);
    expect(outcome).toMatchObject({ status: 'failed', stored: 2, rowsRead: 2 });
    expect((await getFileImport(t.pool, workspaceId, id))!.lastError).toMatch(/^The file cannot be read after item 2: .*\. The 2 rows before it were imported\.$/);
    expect(await storedRecords('broken')).toBe(2);
  });

  it('streams a 100,000-row CSV: bad rows refused by line, the rest stored once, also when imported twice', async () => {
    const file = path.join(dir, 'big.csv');
    const bad = new Map<number, string>(); // line → why
    async function* lines() {
      yield 'Ticket ID,Created at,Email,Subject,Body\n';
      for (let i = 1; i <= 100_000; i++) {
        const line = i + 1;
        if (i % 1000 === 7) {
          bad.set(line, 'date');
          yield `B-${i},not a date,x${i}@globex.example,Subject ${i},Body ${i}\n`;
        } else if (i % 5000 === 11) {
          bad.set(line, 'email');
          yield `B-${i},2026-11-20T10:00:00Z,not an email,Subject ${i},Body ${i}\n`;
        } else {
          yield `B-${i},2026-11-${String((i % 28) + 1).padStart(2, '0')}T10:00:00Z,x${i % 300}@globex.example,Subject ${i},"Body ${i}, with a comma"\n`;
        }
      }
    }
    const { createWriteStream } = await import('node:fs');
    const { pipeline } = await import('node:stream/promises');
    await pipeline(Readable.from(lines()), createWriteStream(file));
    const mapping = { ...tickets, vendor_ids: { big: { column: 'Ticket ID' } } };
    const first = await queueImport(file, mapping);
    const progress: number[] = [];
    const watch = setInterval(() => void getFileImport(t.pool, workspaceId, first).then((i) => i && progress.push(i.rowsRead)), 200);
    const outcome = await runFileImport(deps(), workspaceId, first).finally(() => clearInterval(watch));
    expect(outcome).toEqual({ status: 'done', rowsRead: 100_000, stored: 100_000 - bad.size, duplicates: 0, refused: bad.size });
    // progress moved while it ran, a slice at a time
    expect(progress.some((n) => n > 0 && n < 100_000)).toBe(true);
    expect(progress.every((n) => n % 1000 === 0)).toBe(true);
    const done = (await getFileImport(t.pool, workspaceId, first))!;
    expect(done.refusals.map((r) => ('line' in r.where ? r.where.line : 0))).toEqual([...bad.keys()].sort((a, b) => a - b));
    expect(done.refusals.find((r) => 'line' in r.where && r.where.line === 1008)!.problems).toEqual(['_event_at: "not a date" in column "Created at" does not fit the format iso (like 2026-11-20 or 2026-11-20 10:05)']);
    expect(await storedRecords('big')).toBe(100_000 - bad.size);

    const second = await queueImport(file, mapping);
    expect(await runFileImport(deps(), workspaceId, second)).toEqual({ status: 'done', rowsRead: 100_000, stored: 0, duplicates: 100_000 - bad.size, refused: bad.size });
    expect(await storedRecords('big')).toBe(100_000 - bad.size);
  }, 240_000);
});
