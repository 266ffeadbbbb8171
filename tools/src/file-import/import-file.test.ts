import { appendFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '@loupe/api-keys';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { appShell, createLogger, listen, systemClock } from '@loupe/http';
import { createIngestApp } from '@loupe/ingest-api';
import { createIngestClient, type IngestClient } from '@loupe/ingest-client';
import { createBoss, ensureQueues, type Boss } from '@loupe/jobs';
import { createLocalStorage } from '@loupe/storage';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../loupe';
import { eventAtOf, mappingProblems, type Mapping } from '@loupe/file-import';
import { importFile, type Refusal } from './import-file';

// `npm run loupe -- import FILE --mapping MAPPING.json`: an export mapped to records and sent to the real API.
let t: TestDatabase;
let boss: Boss;
let dir: string;
let client: IngestClient;
let base: string;
let apiKey: string;
let workspaceId: string;
let productId: string;
let projectId: string;
let close: () => Promise<void>;
beforeAll(async () => {
  t = await createTestDatabase();
  boss = createBoss({ connectionString: t.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-import-'));
  const ws = await createWorkspace(t.db, { name: 'Import' });
  workspaceId = ws.id;
  productId = (await createProduct(t.db, ws.id, { name: 'App' })).id;
  projectId = (await createProject(t.db, ws.id, productId, { name: 'Feedback' })).id;
  const key = await createApiKey(t.db, { workspaceId: ws.id, name: 'w', permissions: ['api:write'], servicePrefix: 'loupe_' });
  let url = '';
  const unlimited = { take: async () => ({ allowed: true, limit: 1e9, remaining: 1e9, retryAfterSeconds: 1 }) };
  const app = appShell(createLogger('silent'), (a) => a.use(createIngestApp({
    pool: t.pool, boss, clock: systemClock, servicePrefix: 'loupe_', baseUrl: () => url, storage: createLocalStorage(dir), rateLimiter: unlimited,
  })));
  const l = await listen(app, 0, '127.0.0.1');
  url = `http://127.0.0.1:${l.port}`;
  client = createIngestClient({ baseUrl: url, apiKey: key.key });
  base = url;
  apiKey = key.key;
  close = () => l.close(100);
});
afterAll(async () => {
  await close();
  await boss.stop({ graceful: false, close: true });
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

const stored = async (system: string) => {
  const { rows } = await t.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM records WHERE workspace_id = $1 AND vendor_ids ? $2`, [workspaceId, system]);
  return rows[0]!.n;
};

/** A help-desk export: ticket id, date, requester, subject, body, tags. */
const helpDeskMapping = (system: string): Mapping => ({
  type: 'conversation',
  event_at: { column: 'Created at', format: 'DD/MM/YYYY HH:mm' },
  vendor_ids: { [system]: { column: 'Ticket ID' } },
  participants: [{ name: { column: 'Requester' }, email: { column: 'Requester email' }, role: 'external' }],
  tags: { column: 'Tags', separator: ';' },
  data: { subject: { column: 'Subject' }, text: { column: 'Description' }, channel: { value: 'help desk export' } },
});

async function cli(argv: string[]): Promise<{ code: number; out: string[]; err: string }> {
  const log = console.log;
  const write = process.stderr.write.bind(process.stderr);
  const out: string[] = [];
  let err = '';
  console.log = (...a: unknown[]) => out.push(a.join(' '));
  process.stderr.write = ((text: string) => ((err += text), true)) as typeof process.stderr.write;
  try {
    return { code: await main(argv), out, err };
  } finally {
    console.log = log;
    process.stderr.write = write;
  }
}

describe('the mapping', () => {
  it('names every problem, and asks for an id column rather than line numbers', () => {
    const { problems } = mappingProblems({ type: 'chat', event_at: {}, vendor_ids: { csv: { value: 'x' } }, data: {}, extra: 1 });
    expect(problems).toEqual(expect.arrayContaining([
      expect.stringMatching(/^type: must be one of email_thread/),
      'event_at.column: Invalid input: expected string, received undefined',
      expect.stringMatching(/^vendor_ids: must take at least one id from a column: a row's line number changes/),
      'data: must map at least one key (e.g. "text")',
      expect.stringMatching(/^mapping: Unrecognized key: "extra"/),
    ]));
  });

  it('reads dates as ISO, unix seconds or a pattern, in UTC, and refuses days that do not exist', () => {
    expect(eventAtOf('2026-11-20T10:00:00+01:00')).toBe('2026-11-20T09:00:00Z');
    expect(eventAtOf('2026-11-20')).toBe('2026-11-20T00:00:00Z');
    expect(eventAtOf('1700000000', 'unix')).toBe('2023-11-14T22:13:20Z');
    expect(eventAtOf('20/11/2026 10:05', 'DD/MM/YYYY HH:mm')).toBe('2026-11-20T10:05:00Z');
    expect(eventAtOf('31/02/2026 10:05', 'DD/MM/YYYY HH:mm')).toBeUndefined();
    expect(eventAtOf('2026-02-30')).toBeUndefined();
  });
});

describe('importing a file', () => {
  it('sends a CSV, refuses its bad rows with their line numbers, and stores each record once when run twice', async () => {
    const file = path.join(dir, 'tickets.csv');
    await writeFile(file, [
      'Ticket ID,Created at,Requester,Requester email,Subject,Description,Tags',
      '101,20/11/2026 10:05,Ana,ana@globex.example,Export is slow,"The weekly export takes ten minutes,\nand times out.",export;performance',
      '102,yesterday,Bo,bo@initech.example,Login,Cannot log in,auth',
      '103,21/11/2026 09:00,Cy,not-an-email,Billing,Invoice is wrong,',
      ',21/11/2026 09:30,Di,di@acme.example,No id,Body,',
      '105,22/11/2026 11:00,Ed,ed@acme.example,Dark mode,Please add dark mode,ui',
    ].join('\n'));
    const refused: Refusal[] = [];
    const mapping = helpDeskMapping('helpdesk');
    const defaults = { productId, projectIds: [projectId] };
    const first = await importFile(file, mapping, defaults, { client, onRefused: (r) => refused.push(r) });
    expect(first).toMatchObject({ read: 5, sent: 2, duplicates: 0, refused: 3, requests: 1 });
    // the header is line 1 and row 101 spans lines 2-3
    expect(refused).toEqual([
      { where: { line: 4 }, problems: ['_event_at: "yesterday" in column "Created at" does not fit the format DD/MM/YYYY HH:mm'] },
      { where: { line: 5 }, problems: [expect.stringMatching(/^_participants\[0\]\.email: /)] },
      { where: { line: 6 }, problems: ['_vendor_ids.helpdesk: column "Ticket ID" is empty'] },
    ]);
    const { rows } = await t.pool.query(`SELECT type, event_at, participants, tags, data FROM records WHERE workspace_id = $1 AND vendor_ids->>'helpdesk' = '101'`, [workspaceId]);
    expect(rows[0]).toMatchObject({
      type: 'conversation', tags: ['export', 'performance'],
      participants: [{ id: 'ana@globex.example', role: 'external', name: 'Ana', email: 'ana@globex.example' }],
      data: { subject: 'Export is slow', text: 'The weekly export takes ten minutes,\nand times out.', channel: 'help desk export' },
    });
    expect((rows[0].event_at as Date).toISOString()).toBe('2026-11-20T10:05:00.000Z');
    // the same file again: the same request body under the same Idempotency-Key, so the API replays its first answer
    const again = await importFile(file, mapping, defaults, { client });
    expect(again).toMatchObject({ read: 5, sent: 2, refused: 3 });
    expect(await stored('helpdesk')).toBe(2);
    // an edited file (a row added): a new body, and the rows sent before are duplicates by their ids, stored once
    await appendFile(file, '\n106,23/11/2026 08:00,Fay,fay@acme.example,Search,Search misses words,search');
    const edited = await importFile(file, mapping, defaults, { client });
    expect(edited).toMatchObject({ read: 6, sent: 3, duplicates: 2, refused: 3 });
    expect(await stored('helpdesk')).toBe(3);
  });

  it('sends NDJSON, reaching into nested keys, and names unreadable lines', async () => {
    const file = path.join(dir, 'reviews.ndjson');
    await writeFile(file, [
      JSON.stringify({ id: 'r1', at: 1763600000, rating: 2, review: { title: 'Crashes', body: 'Crashes on launch' }, author: 'kim' }),
      '{ not json',
      '',
      JSON.stringify({ id: 'r2', at: 1763700000, rating: '5', review: { title: 'Love it', body: 'Great' }, author: 'lee' }),
    ].join('\n'));
    const mapping: Mapping = {
      type: 'message', event_at: { column: 'at', format: 'unix' }, vendor_ids: { appstore: { column: 'id' } },
      participants: [{ name: { column: 'author' }, role: 'external' }],
      data: { title: { column: 'review.title' }, text: { column: 'review.body' }, rating: { column: 'rating', as: 'number' } },
    };
    const refused: Refusal[] = [];
    const done = await importFile(file, mapping, { productId, projectIds: [projectId] }, { client, onRefused: (r) => refused.push(r) });
    expect(done).toMatchObject({ read: 3, sent: 2, refused: 1 });
    expect(refused).toEqual([{ where: { line: 2 }, problems: [expect.stringMatching(/^not valid JSON/)] }]);
    const { rows } = await t.pool.query(`SELECT data FROM records WHERE workspace_id = $1 AND vendor_ids->>'appstore' = 'r2'`, [workspaceId]);
    expect(rows[0].data).toEqual({ title: 'Love it', text: 'Great', rating: 5 });
  });

  it('sends a JSON array by position, a request per _type when a column gives the type', async () => {
    const file = path.join(dir, 'calls.json');
    await writeFile(file, JSON.stringify([
      { call_id: 'c-1', date: '2026-11-19T16:30:00Z', kind: 'meeting_notes', notes: '## Pain points\nExports time out.' },
      { call_id: 'c-2', date: '2026-11-19T17:00:00Z', kind: 'call', notes: 'Short call' },
      'not an object',
      { call_id: 'c-3', date: '2026-11-19T18:00:00Z', kind: 'chat', notes: 'x' },
    ]));
    const mapping: Mapping = { type: { column: 'kind' }, event_at: { column: 'date' }, vendor_ids: { crm: { column: 'call_id' } }, data: { markdown: { column: 'notes' } } };
    const refused: Refusal[] = [];
    const done = await importFile(file, mapping, { productId, projectIds: [projectId] }, { client, onRefused: (r) => refused.push(r) });
    expect(done).toMatchObject({ read: 4, sent: 2, refused: 2, requests: 2 });
    expect(refused).toEqual([
      { where: { item: 3 }, problems: ['not a JSON object'] },
      { where: { item: 4 }, problems: [expect.stringMatching(/^_type: /)] },
    ]);
    const { rows } = await t.pool.query(`SELECT type FROM records WHERE workspace_id = $1 AND vendor_ids ? 'crm' ORDER BY type`, [workspaceId]);
    expect(rows.map((r) => r.type)).toEqual(['call', 'meeting_notes']);
  });

  it('is the loupe CLI\'s import: a dry run prints records and errors and sends nothing; a wrong mapping exits 2', async () => {
    const file = path.join(dir, 'cli.csv');
    await writeFile(file, 'Ticket ID,Created at,Requester,Requester email,Subject,Description,Tags\n201,20/11/2026 10:05,Ana,ana@x.example,Hi,Hello,\n202,nope,Bo,,Hi,Hello,\n');
    const mappingFile = path.join(dir, 'mapping.json');
    await writeFile(mappingFile, JSON.stringify(helpDeskMapping('cli')));
    const connection = ['--url', base, '--key', apiKey, '--product', productId, '--project', projectId];
    const dry = await cli(['import', file, '--mapping', mappingFile, '--dry-run', ...connection]);
    expect(dry.code).toBe(1);
    expect(dry.out[0]).toMatch(/^line 2: \{"_type":"conversation","_schema_version":"1.0.0","_event_at":"2026-11-20T10:05:00Z"/);
    expect(dry.out.slice(1)).toEqual([
      'line 3: refused\n  _event_at: "nope" in column "Created at" does not fit the format DD/MM/YYYY HH:mm',
      'Dry run: 2 rows previewed, 1 valid, 1 refused; nothing sent.',
    ]);
    expect(await stored('cli')).toBe(0);
    const run = await cli(['import', file, '--mapping', mappingFile, ...connection]);
    expect(run.code).toBe(1);
    expect(run.err).toContain('line 3: refused: _event_at: "nope"');
    expect(run.err).toMatch(/2 rows read · 1 sent \(0 already stored\) · 1 refused\n$/);
    expect(run.out).toEqual(['Done: 2 rows read; 1 records stored (0 already there), 1 refused, in 1 requests.']);
    expect(await stored('cli')).toBe(1);
    await writeFile(mappingFile, JSON.stringify({ ...helpDeskMapping('cli'), vendor_ids: {} }));
    const wrong = await cli(['import', file, '--mapping', mappingFile, ...connection]);
    expect(wrong.code).toBe(2);
    expect(wrong.err).toContain('vendor_ids: must name at least one id');
  });

  it('stops after the request in flight when told to, and a re-run finishes without storing anything twice', async () => {
    const file = path.join(dir, 'stopped.csv');
    const lines = ['id,date,text'];
    for (let i = 0; i < 3000; i++) lines.push(`s${i},2026-11-20,Answer ${i}`);
    await writeFile(file, `${lines.join('\n')}\n`);
    const mapping: Mapping = { type: 'message', event_at: { column: 'date' }, vendor_ids: { stop: { column: 'id' } }, data: { text: { column: 'text' } } };
    const stop = new AbortController();
    const first = await importFile(file, mapping, { productId, projectIds: [projectId] }, { client, signal: stop.signal, onProgress: () => stop.abort() });
    expect(first).toMatchObject({ sent: 1000, stopped: true });
    expect(await stored('stop')).toBe(1000);
    const rest = await importFile(file, mapping, { productId, projectIds: [projectId] }, { client });
    expect(rest).toMatchObject({ read: 3000, sent: 3000, refused: 0, stopped: false });
    expect(await stored('stop')).toBe(3000);
  });

  it('streams a 100,000-row CSV in requests of 1,000 and stores every row once', async () => {
    const file = path.join(dir, 'big.csv');
    const lines = ['id,date,text'];
    for (let i = 0; i < 100_000; i++) lines.push(`b${i},2026-11-${String(1 + (i % 28)).padStart(2, '0')},Survey answer ${i}: exports are slow`);
    await writeFile(file, `${lines.join('\n')}\n`);
    const mapping: Mapping = { type: 'message', event_at: { column: 'date' }, vendor_ids: { survey: { column: 'id' } }, data: { text: { column: 'text' } } };
    const seen: number[] = [];
    const done = await importFile(file, mapping, { productId, projectIds: [projectId] }, { client, onProgress: (p) => seen.push(p.read) });
    expect(done).toMatchObject({ read: 100_000, sent: 100_000, refused: 0, requests: 100 });
    expect(seen).toHaveLength(100);
    expect(await stored('survey')).toBe(100_000);
  }, 180_000);
});
