import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '@loupe/api-keys';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { appShell, createLogger, listen, systemClock } from '@loupe/http';
import { createIngestApp } from '@loupe/ingest-api';
import { createIngestClient, type IngestClient } from '@loupe/ingest-client';
import { createBoss, ensureQueues, type Boss } from '@loupe/jobs';
import { createLocalStorage } from '@loupe/storage';
import { createWorkspace } from '@loupe/workspaces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { itemOfCsvRow, rejectedFileOf, uploadDirectoryFile } from './crm-upload';
import { main } from './loupe';

// `npm run loupe -- companies upload FILE` and `people upload`: a CRM export, sent through the typed client to the real API.
let t: TestDatabase;
let boss: Boss;
let dir: string;
let client: IngestClient;
let base: string;
let apiKey: string;
let close: () => Promise<void>;
beforeAll(async () => {
  t = await createTestDatabase();
  boss = createBoss({ connectionString: t.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-crm-'));
  const ws = await createWorkspace(t.db, { name: 'CRM' });
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

const rejectedOf = async (file: string) => (await readFile(rejectedFileOf(file), 'utf8')).trimEnd().split('\n').filter(Boolean).map((l) => JSON.parse(l) as Record<string, unknown>);

describe('CSV rows', () => {
  it('become items: empty cells left out, domains split on ; or , arr a number, attributes.<name> gathered, other columns ignored', () => {
    expect(itemOfCsvRow('companies', {
      external_id: ' crm-1 ', name: 'Acme', domains: 'acme.com; acme.io,acme.net', arr: '1 200.50', plan: '', 'attributes.region': 'EU', Owner: 'Bob',
    })).toEqual({ external_id: 'crm-1', name: 'Acme', domains: ['acme.com', 'acme.io', 'acme.net'], arr: 1200.5, attributes: { region: 'EU' } });
    expect(itemOfCsvRow('companies', { external_id: 'x', arr: 'lots' })).toEqual({ external_id: 'x', arr: 'lots' });
    expect(itemOfCsvRow('people', { external_id: 'p', email: 'a@b.co', company_external_id: 'crm-1', arr: '5' })).toEqual({ external_id: 'p', email: 'a@b.co', company_external_id: 'crm-1' });
  });
});

describe('uploading a CRM export', () => {
  it('sends a CSV of 2,500 companies in requests of at most 1,000, and writes every rejected row with its line, even past the 20 errors a request lists', async () => {
    const rows = ['external_id,name,domains,arr,segment,renewal_date,attributes.tier,Owner'];
    for (let i = 0; i < 2500; i++) {
      // rows 100–149 have a negative ARR: 50 refusals in the first request
      const arr = i >= 100 && i < 150 ? '-1' : String(i * 10);
      rows.push(`crm-${i},"Company ${i}, Inc.","c${i}.example;c${i}.example.org",${arr},smb,2027-01-01,gold,someone`);
    }
    const file = path.join(dir, 'companies.csv');
    await writeFile(file, `${rows.join('\n')}\n`);
    const progress: number[] = [];
    let columns: string[] = [];
    const done = await uploadDirectoryFile(client, 'companies', file, (p) => progress.push(p.sent), { onColumns: (c) => (columns = c) });
    expect(done).toMatchObject({ sent: 2500, created: 2450, updated: 0, rejected: 50 });
    expect(progress).toEqual([1000, 2000, 2500]);
    expect(columns).toContain('Owner');
    const rejected = await rejectedOf(file);
    expect(rejected).toHaveLength(50);
    // the header is line 1: company i is on line i + 2
    expect(rejected[0]).toEqual({ line: 102, external_id: 'crm-100', code: 'VALIDATION_ERROR', message: expect.stringMatching(/^arr: /) });
    expect(rejected.at(-1)).toMatchObject({ line: 151, external_id: 'crm-149' });
    expect(await client.getCompany('crm-7')).toMatchObject({ name: 'Company 7, Inc.', domains: ['c7.example', 'c7.example.org'], arr: 70, attributes: { tier: 'gold' } });
    // the same file again stores the same
    const again = await uploadDirectoryFile(client, 'companies', file, () => {});
    expect(again).toMatchObject({ created: 0, updated: 2450, rejected: 50 });
  });

  it('cuts 1,000 rows over 5 MB into requests under it, and still writes every rejected row of each', async () => {
    const long = 'x'.repeat(1000);
    const rows = ['external_id,name,arr,attributes.a,attributes.b,attributes.c,attributes.d,attributes.e,attributes.f'];
    for (let i = 0; i < 1000; i++) rows.push(`big-${i},Big ${i},${i < 30 || (i >= 900 && i < 905) ? '-1' : '1'},${long},${long},${long},${long},${long},${long}`);
    const file = path.join(dir, 'big.csv');
    await writeFile(file, `${rows.join('\n')}\n`);
    const done = await uploadDirectoryFile(client, 'companies', file, () => {});
    expect(done).toMatchObject({ sent: 1000, created: 965, rejected: 35 });
    expect(done.requests).toBeGreaterThanOrEqual(3); // two bodies under 5 MB, and the first sent again for its errors past 20
    expect((await rejectedOf(file)).map((r) => r.external_id)).toEqual([...Array.from({ length: 30 }, (_, i) => `big-${i}`), 'big-900', 'big-901', 'big-902', 'big-903', 'big-904']);
  });

  it('sends people from NDJSON and from a JSON array, naming unreadable lines and refused items by line or position', async () => {
    const ndjson = path.join(dir, 'people.ndjson');
    await writeFile(ndjson, [
      JSON.stringify({ external_id: 'p-1', email: 'Ana@c1.example', company_external_id: 'crm-1' }),
      '',
      '{ not json',
      JSON.stringify({ external_id: 'p-2', company_external_id: 'crm-unknown' }),
      '[1]',
    ].join('\n'));
    const done = await uploadDirectoryFile(client, 'people', ndjson, () => {});
    expect(done).toMatchObject({ sent: 4, created: 1, rejected: 3 });
    expect(await rejectedOf(ndjson)).toEqual([
      { line: 3, code: 'INVALID_ITEM', message: expect.stringContaining('not valid JSON') },
      { line: 4, external_id: 'p-2', code: 'UNKNOWN_COMPANY', message: expect.stringContaining('crm-unknown') },
      { line: 5, code: 'INVALID_ITEM', message: 'not a JSON object' },
    ]);
    const array = path.join(dir, 'people.json');
    await writeFile(array, JSON.stringify({ people: [{ external_id: 'p-3', email: 'bo@c2.example' }, { external_id: 'p-4', email: 'ana@c1.example' }] }));
    expect(await uploadDirectoryFile(client, 'people', array, () => {})).toMatchObject({ sent: 2, created: 1, rejected: 1 });
    expect(await rejectedOf(array)).toEqual([{ item: 2, external_id: 'p-4', code: 'EMAIL_TAKEN', message: expect.stringContaining('person "p-1"') }]);
    expect(await client.getPerson('p-1')).toMatchObject({ email: 'ana@c1.example', company_external_id: 'crm-1' });
  });

  it('is the loupe CLI\'s companies upload and people upload', async () => {
    const file = path.join(dir, 'cli.csv');
    await writeFile(file, 'external_id,name,domains\ncli-1,CLI Co,cli.example\n');
    const log = console.log;
    const out: string[] = [];
    console.log = (...a: unknown[]) => out.push(a.join(' '));
    try {
      expect(await main(['companies', 'upload', file, '--url', base, '--key', apiKey])).toBe(0);
      const people = path.join(dir, 'cli-people.csv');
      await writeFile(people, 'external_id,email,company_external_id\ncli-p,p@cli.example,cli-1\n');
      expect(await main(['people', 'upload', people, '--url', base, '--key', apiKey])).toBe(0);
    } finally {
      console.log = log;
    }
    expect(out).toEqual(['Done: 1 companies read; 1 created, 0 updated, 0 rejected.', 'Done: 1 people read; 1 created, 0 updated, 0 rejected.']);
    expect(await client.getPerson('cli-p')).toMatchObject({ company_external_id: 'cli-1' });
  });
});
