import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { accessibilityViolations, launchChromium, saveScreenshot, type Browser } from '@loupe/browser-testing';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { runFileImport } from '@loupe/file-import';
import { createLogger, systemClock } from '@loupe/http';
import { createBoss, ensureQueues, QUEUES, type Boss } from '@loupe/jobs';
import { createLocalStorage, type Storage } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, Person, signInToAccount, startWebServer, type WebHarness } from './test/harness';

// Issue 45 in the console: upload a file, map its columns, preview the first records with their problems, import it
// in the background (the worker's job) and watch its progress; mappings saved per workspace.
let h: WebHarness;
let boss: Boss;
let database: TestDatabase;
let storage: Storage;
let dir: string;
let owner: Person;
let member: Person;
let browser: Browser;

beforeAll(async () => {
  database = await createTestDatabase();
  boss = createBoss({ connectionString: database.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-import-pages-'));
  storage = createLocalStorage(path.join(dir, 'storage'));
  [h, browser] = await Promise.all([startWebServer({ boss, database, storage }), launchChromium()]);
  owner = new Person(h, 'owner@imports.test');
  member = new Person(h, 'member@imports.test');
  for (const p of [owner, member]) await signInToAccount(h, p);
});
afterAll(async () => {
  await browser?.close();
  await boss?.stop({ graceful: false, close: true });
  await h?.close();
  await database?.close();
  await rm(dir, { recursive: true, force: true });
});

async function workspace() {
  const ws = newId('ws');
  const prod = `prod_${ws}`;
  const proj = `proj_${ws}`;
  await h.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, 'Acme']);
  await h.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [prod, ws, 'Acme app']);
  await h.pool.query('INSERT INTO projects (id, workspace_id, product_id, name) VALUES ($1, $2, $3, $4)', [proj, ws, prod, 'Support']);
  for (const [p, role] of [[owner, 'owner'], [member, 'member']] as const) {
    const { rows } = await h.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [p.email]);
    await h.pool.query('INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)', [ws, rows[0]!.id, role]);
  }
  return { ws, prod, proj };
}

const TICKETS = [
  'Ticket ID,Created at,Requester,Requester email,Subject,Description,Tags',
  '4812,2026-11-20 10:05,Ana Planted,ana@globex.example,Export is slow,"The weekly export takes ten minutes,\nthen times out.",export;performance',
  '4813,yesterday,Bo Chen,bo@initech.example,Login loops,Cannot log in with SSO,auth',
  '4814,2026-11-21 09:00,Cy Ray,not-an-email,Invoice wrong,The invoice shows last month,billing',
  '4815,2026-11-22 16:40,Di Fox,di@acme.example,Dark mode,Please add a dark mode,ui',
].join('\n') + '\n';

/** The upload form sent as a browser sends it: multipart, `_csrf` first, then the file. */
async function upload(person: Person, ws: string, name: string, content: string) {
  const page = await (await person.get(`/account/w/${ws}/import`)).text();
  const body = new FormData();
  body.append('_csrf', csrfOf(page));
  body.append('file', new Blob([content], { type: 'text/csv' }), name);
  const res = await fetch(new URL(`/account/w/${ws}/import`, person.h.url), { method: 'POST', redirect: 'manual', headers: { cookie: person.jar.header() }, body });
  person.jar.store(res);
  return res;
}

/** The mapping form as the page fills it, with the data keys of each column by its position. */
function mappingForm(page: string, ws: { prod: string; proj: string }, extra: Record<string, string> = {}) {
  return {
    _csrf: csrfOf(page), productId: ws.prod, projectId: ws.proj, type: 'conversation', eventAtColumn: 'Created at', eventAtFormat: 'iso',
    idColumn: 'Ticket ID', idSystem: 'helpdesk', threadColumn: '', personNameColumn: 'Requester', personEmailColumn: 'Requester email', personRole: 'external',
    tagsColumn: 'Tags', tagsSeparator: ';', key0: '', key1: '', key2: '', key3: '', key4: 'title', key5: 'text', key6: '', as0: 'text', as1: 'text', as2: 'text',
    as3: 'text', as4: 'text', as5: 'text', as6: 'text', ...extra,
  };
}

/** What the worker does with the queued job (the same function, real database and storage). */
async function runQueued(importId: string) {
  const { rows } = await h.pool.query("SELECT data FROM pgboss.job WHERE name = $1 AND data->>'importId' = $2", [QUEUES.importFile, importId]);
  expect(rows).toHaveLength(1);
  const { workspaceId } = rows[0].data as { workspaceId: string };
  return runFileImport({ pool: h.pool, boss, storage, clock: systemClock, log: createLogger('silent') }, workspaceId, importId);
}

const records = async (ws: string) => (await h.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM records WHERE workspace_id = $1', [ws])).rows[0]!.n;

describe('the File import pages', () => {
  it('upload → mapping → preview with a refused row → import → progress → done; the same file again stores nothing new', async () => {
    const ws = await workspace();
    const list = await (await owner.get(`/account/w/${ws.ws}/import`)).text();
    expect(list).toContain('Upload a file');
    expect(list).toContain('Up to 256 MB.');
    expect(list).toMatch(/href="\/account\/w\/[^"]+\/import" aria-current="page">File import/);

    // No file, then the file.
    const none = await fetch(new URL(`/account/w/${ws.ws}/import`, h.url), {
      method: 'POST', redirect: 'manual', headers: { cookie: owner.jar.header() }, body: (() => {
        const f = new FormData();
        f.append('_csrf', csrfOf(list));
        f.append('file', new Blob([]), '');
        return f;
      })(),
    });
    expect(none.status).toBe(400);
    expect(await none.text()).toContain('Choose a file to import');
    const noCsrf = new FormData();
    noCsrf.append('file', new Blob([TICKETS]), 'tickets.csv');
    expect((await fetch(new URL(`/account/w/${ws.ws}/import`, h.url), { method: 'POST', redirect: 'manual', headers: { cookie: owner.jar.header() }, body: noCsrf })).status).toBe(403);

    const uploaded = await upload(owner, ws.ws, 'tickets.csv', TICKETS);
    expect(uploaded.status).toBe(303);
    const at = uploaded.headers.get('location')!;
    const importId = at.split('/').pop()!;
    const mapPage = await (await owner.get(at)).text();
    expect(mapPage).toContain('Map the columns of tickets.csv');
    expect(mapPage).toContain('7 columns found');
    // guessed from the names
    expect(mapPage).toMatch(/<select id="idColumn" name="idColumn">.*<option value="Ticket ID" selected>/s);
    expect(mapPage).toMatch(/<select id="eventAtColumn" name="eventAtColumn">.*<option value="Created at" selected>/s);
    expect(mapPage).toContain('Ana Planted');
    expect(mapPage).not.toContain('Preview of the first');

    // A wrong mapping: every problem named by its field, nothing stored on the import.
    const wrong = await owner.post(`${at}/mapping`, mappingForm(mapPage, ws, { idColumn: '', eventAtFormat: 'whenever', key5: 'title', tagsColumn: 'Nope' }));
    expect(wrong.status).toBe(400);
    const wrongPage = await wrong.text();
    expect(wrongPage).toContain('Columns: &quot;Nope&quot; is not a column of this file');
    expect(wrongPage).toContain('Id: choose the column holding each row&#39;s own id');
    expect(wrongPage).toContain('Date format: &quot;whenever&quot; is not iso');
    expect(wrongPage).toContain('Column &quot;Description&quot;: the key &quot;title&quot; is already filled by column &quot;Subject&quot;');
    expect((await owner.post(`${at}/start`, { _csrf: csrfOf(mapPage) })).status).toBe(409);

    const mapped = await owner.post(`${at}/mapping`, mappingForm(mapPage, ws, { saveAs: 'Help desk export' }));
    expect([mapped.status, mapped.headers.get('location')]).toEqual([303, `${at}?done=saved#preview`]);
    const preview = await (await owner.get(`${at}?done=saved`)).text();
    expect(preview).toContain('Mapping saved for this workspace');
    expect(preview).toContain('Preview of the first 4 rows');
    expect(preview).toContain('2 of 4 would be stored; 2 would be refused');
    expect(preview).toMatch(/line 4<\/th>.*Refused.*_event_at: &quot;yesterday&quot; in column &quot;Created at&quot; does not fit the format iso \(like 2026-11-20 or 2026-11-20 10:05\)/s);
    expect(preview).toMatch(/line 5<\/th>.*Refused.*_participants\[0\]\.email/s);
    expect(preview).toMatch(/line 3<\/th>.*Export is slow.*Valid/s);
    const saved = await h.pool.query('SELECT name, mapping->>\'type\' AS type, created_by IS NOT NULL AS by FROM import_mappings WHERE workspace_id = $1', [ws.ws]);
    expect(saved.rows).toEqual([{ name: 'Help desk export', type: 'conversation', by: true }]);
    expect(await records(ws.ws)).toBe(0);

    expect((await owner.post(`${at}/start`, { _csrf: csrfOf(preview) })).status).toBe(303);
    const queued = await (await owner.get(at)).text();
    expect(queued).toContain('Queued: the import starts within a few seconds');
    expect(queued).toContain('<div id="live" data-refresh="2">');
    // the mapping cannot change once started
    expect((await owner.post(`${at}/mapping`, mappingForm(preview, ws))).status).toBe(409);

    expect(await runQueued(importId)).toEqual({ status: 'done', rowsRead: 4, stored: 2, duplicates: 0, refused: 2 });
    const done = await (await owner.get(at)).text();
    expect(done).not.toContain('data-refresh');
    expect(done).toContain('Done');
    expect(done).toContain('2 new records stored, 2 rows refused');
    expect(done).toMatch(/line 4<\/th><td><ul class="plain"><li>_event_at: &quot;yesterday&quot;/);
    expect(done).toMatch(/line 5<\/th><td><ul class="plain"><li>_participants\[0\]\.email/);
    expect(await records(ws.ws)).toBe(2);

    // The same file again, by the member this time, from the saved mapping: nothing new is stored.
    const again = await upload(member, ws.ws, 'tickets.csv', TICKETS);
    const againAt = again.headers.get('location')!;
    const { rows: [{ id: mappingId }] } = await h.pool.query('SELECT id FROM import_mappings WHERE workspace_id = $1', [ws.ws]);
    const fromSaved = await (await member.get(`${againAt}?mapping=${mappingId}`)).text();
    expect(fromSaved).toContain('The form below shows the saved mapping “Help desk export”');
    expect(fromSaved).toMatch(/<select id="tagsColumn" name="tagsColumn">.*<option value="Tags" selected>/s);
    expect(fromSaved).toMatch(/id="key4" name="key4" type="text" class="mono" value="title"/);
    expect((await member.post(`${againAt}/mapping`, mappingForm(fromSaved, ws))).status).toBe(303);
    expect((await member.post(`${againAt}/start`, { _csrf: csrfOf(fromSaved) })).status).toBe(303);
    expect(await runQueued(againAt.split('/').pop()!)).toEqual({ status: 'done', rowsRead: 4, stored: 0, duplicates: 2, refused: 2 });
    expect(await (await member.get(againAt)).text()).toContain('0 new records stored, 2 already stored before, 2 rows refused');
    expect(await records(ws.ws)).toBe(2);
    const listed = await (await owner.get(`/account/w/${ws.ws}/import`)).text();
    expect(listed.match(/>tickets\.csv</g)).toHaveLength(2);
    expect(listed).toContain('Help desk export');

    // Roles and workspaces: the member cannot delete the owner's mapping; another workspace sees neither.
    expect((await member.post(`/account/w/${ws.ws}/import/mappings/${mappingId}/delete`, { _csrf: csrfOf(listed) })).status).toBe(403);
    const other = await workspace();
    expect((await owner.get(`/account/w/${other.ws}/import/${importId}`)).status).toBe(404);
    expect((await owner.post(`/account/w/${other.ws}/import/mappings/${mappingId}/delete`, { _csrf: csrfOf(listed) })).status).toBe(404);
    expect(await (await owner.get(`/account/w/${other.ws}/import`)).text()).not.toContain('Help desk export');
    const stranger = new Person(h, 'stranger@imports.test');
    await signInToAccount(h, stranger);
    expect((await stranger.get(`/account/w/${ws.ws}/import/${importId}`)).status).toBe(404);
    const deleted = await owner.post(`/account/w/${ws.ws}/import/mappings/${mappingId}/delete`, { _csrf: csrfOf(listed) });
    expect([deleted.status, deleted.headers.get('location')]).toEqual([303, `/account/w/${ws.ws}/import?done=deleted`]);
    expect((await h.pool.query('SELECT 1 FROM import_mappings WHERE workspace_id = $1', [ws.ws])).rowCount).toBe(0);
  });

  it('refuses a file over the size cap, an empty file and a cut-short upload, each saying why; a broken file shows where it breaks', async () => {
    const ws = await workspace();
    const small = await startWebServer({ boss, database, storage, importMaxBytes: 1024 });
    try {
      const p = new Person(small, owner.email);
      await signInToAccount(small, p);
      const big = await upload(p, ws.ws, 'big.csv', `id,text\n${'1,xxxxxxxxxx\n'.repeat(200)}`);
      expect(big.status).toBe(413);
      expect(await big.text()).toContain('&quot;big.csv&quot; is larger than 1 KB, the most the console takes');
      const sheet = await upload(p, ws.ws, 'Tickets.XLSX', 'PK\u0003\u0004');
      expect(sheet.status).toBe(415);
      expect(await sheet.text()).toContain('&quot;Tickets.XLSX&quot; is a .xlsx file: the console reads CSV, JSON and NDJSON. Export it as CSV');
      const empty = await upload(p, ws.ws, 'empty.csv', '');
      expect(empty.status).toBe(400);
      expect(await empty.text()).toContain('&quot;empty.csv&quot; is empty.');
      // a multipart body that stops in the middle of the file
      const page = await (await p.get(`/account/w/${ws.ws}/import`)).text();
      const cut = await fetch(new URL(`/account/w/${ws.ws}/import`, small.url), {
        method: 'POST', redirect: 'manual', headers: { cookie: p.jar.header(), 'content-type': 'multipart/form-data; boundary=XyZ' },
        body: `--XyZ\r\nContent-Disposition: form-data; name="_csrf"\r\n\r\n${csrfOf(page)}\r\n--XyZ\r\nContent-Disposition: form-data; name="file"; filename="cut.csv"\r\nContent-Type: text/csv\r\n\r\nid,text\n1,abc`,
      });
      expect(cut.status).toBe(400);
      expect(await cut.text()).toContain('&quot;cut.csv&quot; did not arrive whole');
      expect((await h.pool.query('SELECT count(*)::int AS n FROM file_imports WHERE workspace_id = $1', [ws.ws])).rows[0].n).toBe(0);
      // Discarding an upload deletes it and its file; a started import cannot be discarded.
      const unwanted = (await upload(p, ws.ws, 'unwanted.csv', TICKETS)).headers.get('location')!;
      const unwantedPage = await (await p.get(unwanted)).text();
      expect(unwantedPage).toContain('Discard this upload');
      const { rows: [{ storage_key: key }] } = await h.pool.query('SELECT storage_key FROM file_imports WHERE id = $1', [unwanted.split('/').pop()]);
      expect(await storage.exists(key)).toBe(true);
      const discarded = await p.post(`${unwanted}/discard`, { _csrf: csrfOf(unwantedPage) });
      expect([discarded.status, discarded.headers.get('location')]).toEqual([303, `/account/w/${ws.ws}/import?done=discarded`]);
      expect(await storage.exists(key)).toBe(false);
      expect((await p.get(unwanted)).status).toBe(404);
      // an upload whose file is gone (deleted by the sweep, a bucket emptied): said, not a 500
      const gone = (await upload(p, ws.ws, 'gone.csv', TICKETS)).headers.get('location')!;
      const { rows: [{ storage_key: goneKey }] } = await h.pool.query('SELECT storage_key FROM file_imports WHERE id = $1', [gone.split('/').pop()]);
      await storage.delete(goneKey);
      const gonePage = await p.get(gone);
      expect(gonePage.status).toBe(200);
      const goneHtml = await gonePage.text();
      expect(goneHtml).toContain('The uploaded file is no longer kept');
      expect(goneHtml).toContain('Nothing of this file can be mapped.');
      expect(goneHtml).not.toContain('Preview the first 20 records');
      const broken = await upload(p, ws.ws, 'broken.json', '[{"id": "a", "text": "one"}, {"id": ');
      const mapPage = await p.get(broken.headers.get('location')!);
      expect(mapPage.status).toBe(200);
      expect(await mapPage.text()).toContain('The file cannot be read after item 1');
    } finally {
      await small.close();
    }
  });

  it('maps a file with many columns (each column two fields of the form)', async () => {
    const ws = await workspace();
    const columns = Array.from({ length: 60 }, (_, i) => `Question ${i + 1}`);
    const content = `Response ID,Submitted,${columns.join(',')}\nr-1,2026-11-18,${columns.map((_, i) => `answer ${i + 1}`).join(',')}\n`;
    const at = (await upload(owner, ws.ws, 'survey.csv', content)).headers.get('location')!;
    const page = await (await owner.get(at)).text();
    expect(page).toContain('62 columns found');
    const form: Record<string, string> = {
      _csrf: csrfOf(page), productId: ws.prod, projectId: ws.proj, type: 'message', eventAtColumn: 'Submitted', eventAtFormat: 'iso', idColumn: 'Response ID',
      idSystem: 'survey', personRole: 'external', tagsSeparator: ',',
    };
    for (let i = 0; i < 62; i++) Object.assign(form, { [`key${i}`]: i < 2 ? '' : `q${i - 1}`, [`as${i}`]: 'text' });
    const mapped = await owner.post(`${at}/mapping`, form);
    expect(mapped.status).toBe(303);
    const preview = await (await owner.get(at)).text();
    expect(preview).toContain('1 of 1 would be stored');
    expect(preview).toContain('+ 60 more details');
  });

  it('in Chromium: the mapping and preview, the progress and the done pages, with no accessibility violations (screenshots)', async () => {
    const ws = await workspace();
    const file = path.join(dir, 'tickets.csv');
    await writeFile(file, TICKETS);
    const context = await browser.newContext({ viewport: { width: 1200, height: 1100 } });
    try {
      const host = new URL(h.url).hostname;
      await context.addCookies(owner.jar.header().split('; ').map((pair) => {
        const eq = pair.indexOf('=');
        return { name: pair.slice(0, eq), value: pair.slice(eq + 1), domain: host, path: '/' };
      }));
      const page = await context.newPage();
      await page.goto(`${h.url}/account/w/${ws.ws}/import`);
      expect(await accessibilityViolations(page)).toEqual([]);
      await page.setInputFiles('#file', file);
      await page.getByRole('button', { name: 'Upload and map columns' }).click();
      await page.waitForURL(/\/import\/imp_/);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'import-mapping');
      await page.selectOption('#type', 'conversation');
      await page.fill('#idSystem', 'helpdesk');
      await page.fill('#tagsSeparator', ';');
      await page.fill('#saveAs', 'Help desk export');
      await page.getByRole('button', { name: 'Preview the first 20 records' }).click();
      await page.waitForURL(/done=saved/);
      expect(await page.getByRole('status').first().textContent()).toContain('Mapping saved');
      expect(await page.locator('table.preview tr.refused').count()).toBe(2);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'import-preview');
      await page.getByRole('button', { name: 'Import the whole file' }).click();
      await page.waitForURL(/\/import\/imp_[^?]+$/);
      expect(await page.getByRole('status').first().textContent()).toContain('Queued');
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'import-queued');
      const importId = new URL(page.url()).pathname.split('/').pop()!;
      // Halfway: a worker stopped after its first slice of two rows (one stored, line 4 refused); the page shows it by itself.
      const stop = new AbortController();
      stop.abort();
      await expect(runFileImport({ pool: h.pool, boss, storage, clock: systemClock, log: createLogger('silent'), rowsPerSlice: 2 }, ws.ws, importId, { signal: stop.signal })).rejects.toThrow(/stopped after 2 rows/);
      await page.getByText('Importing…').waitFor({ timeout: 10_000 });
      expect(await page.locator('#live').textContent()).toMatch(/Rows read\s*2\s*Stored\s*1/);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'import-running');
      await runQueued(importId);
      // the page follows the import by itself (account.js fetches its live part again), no reload
      await page.getByText('2 new records stored').waitFor({ timeout: 10_000 });
      expect(await page.locator('#live[data-refresh]').count()).toBe(0);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'import-done');
      await page.getByRole('link', { name: 'Import another file' }).click();
      await page.waitForURL(`${h.url}/account/w/${ws.ws}/import`);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'import-list');
    } finally {
      await context.close();
    }
  });
});
