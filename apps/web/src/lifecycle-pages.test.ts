import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { accessibilityViolations, launchChromium, saveScreenshot, type Browser } from '@loupe/browser-testing';
import { newId } from '@loupe/db';
import { refreshSearchDocuments } from '@loupe/sources';
import { createLocalStorage, type Storage } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, Person, signInToAccount, startWebServer, type WebHarness } from './test/harness';

// Issue 28 on the account pages: deleting a source (owners and admins, confirmed) and the workspace's retention.
let h: WebHarness;
let dir: string;
let storage: Storage;
let owner: Person;
let member: Person;
let browser: Browser;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-lifecycle-pages-'));
  storage = createLocalStorage(dir);
  [h, browser] = await Promise.all([startWebServer({ storage }), launchChromium()]);
  owner = new Person(h, 'owner@lifecycle.test');
  member = new Person(h, 'member@lifecycle.test');
  for (const p of [owner, member]) await signInToAccount(h, p);
});
afterAll(async () => {
  await browser?.close();
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

async function workspace() {
  const ws = newId('ws');
  const prod = `prod_${ws}`;
  await h.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, 'Acme']);
  await h.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [prod, ws, 'Acme app']);
  for (const [p, role] of [[owner, 'owner'], [member, 'member']] as const) {
    const { rows } = await h.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [p.email]);
    await h.pool.query('INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)', [ws, rows[0]!.id, role]);
  }
  return { ws, prod };
}

/** A record, its source (with a segment and the search text) and a downloaded attachment. */
async function evidence(ws: string, prod: string, title: string) {
  const batch = newId('bat');
  const rec = newId('rec');
  const src = newId('src');
  const att = newId('att');
  await h.pool.query(
    `INSERT INTO batches (id, workspace_id, product_id, source, type, status, accepted_count, rejected_count, total_error_count, processed_count) VALUES ($1, $2, $3, 'api', 'call', 'COMPLETE', 1, 0, 0, 1)`,
    [batch, ws, prod],
  );
  await h.pool.query(
    `INSERT INTO records (id, workspace_id, batch_id, position, dedup_key, type, nature, product_id, project_ids, event_at, vendor_ids, data, processed_at)
     VALUES ($1, $2, $3, 0, $1, 'call', 'evidence', $4, '{}', now(), '{}', '{}', now())`,
    [rec, ws, batch, prod],
  );
  await h.pool.query(
    `INSERT INTO sources (id, workspace_id, product_id, project_ids, record_id, type, nature, title, occurred_at, status, segment_count, participants)
     VALUES ($1, $2, $3, '{}', $4, 'call', 'evidence', $5, now(), 'ready', 1, '[{"name":"Ana","role":"external"}]')`,
    [src, ws, prod, rec, title],
  );
  await h.pool.query("INSERT INTO source_segments (source_id, position, kind, speaker, text) VALUES ($1, 0, 'turn', 'Ana', 'Exporting to Excel takes twenty minutes every Monday.')", [src]);
  await refreshSearchDocuments(h.pool, [src]);
  const key = `${ws}/${batch}/${att}`;
  await h.pool.query(
    `INSERT INTO attachments (id, workspace_id, batch_id, record_id, position, type, filename, status, storage_key, stored_size) VALUES ($1, $2, $3, $4, 0, 'file', 'call.mp3', 'COMPLETE', $5, 6)`,
    [att, ws, batch, rec, key],
  );
  await storage.put(key, Readable.from([Buffer.from('audio!')]), { maxBytes: 100 });
  return { src, rec, key };
}

const exists = async (sql: string, id: string) => ((await h.pool.query(sql, [id])).rowCount ?? 0) > 0;

describe('an attachment\'s file on its source\'s page', () => {
  it('is linked once downloaded and served as a download to members; another workspace\'s person and a missing position get a page saying so', async () => {
    const { ws, prod } = await workspace();
    const { src, key } = await evidence(ws, prod, 'Call with Initech');
    const page = await (await member.get(`/account/w/${ws}/sources/${src}`)).text();
    const link = `/account/w/${ws}/sources/${src}/attachments/0`;
    expect(page).toContain(`<a href="${link}" download>call.mp3</a>`);
    const file = await member.get(link);
    expect(file.status).toBe(200);
    expect(await file.text()).toBe('audio!');
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="call.mp3"; filename*=UTF-8''call.mp3`);
    expect(file.headers.get('x-content-type-options')).toBe('nosniff');

    const missing = await member.get(`/account/w/${ws}/sources/${src}/attachments/3`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain('This source has no such attachment.');
    await storage.delete(key);
    const gone = await member.get(link);
    expect(gone.status).toBe(404);
    expect(await gone.text()).toContain('This file is no longer stored.');

    const other = await workspace();
    const theirs = await owner.get(`/account/w/${other.ws}/sources/${src}/attachments/0`);
    expect(theirs.status).toBe(404);
    expect(await theirs.text()).toContain('This source has no such attachment.');
  });
});

describe('deleting a source on its page', () => {
  it('members see no delete form and are refused; the owner must confirm; then everything of it is gone', async () => {
    const { ws, prod } = await workspace();
    const { src, rec, key } = await evidence(ws, prod, 'Call with Globex');
    const url = `/account/w/${ws}/sources/${src}`;

    const asMember = await (await member.get(url)).text();
    expect(asMember).toContain('Owners and admins can delete sources.');
    expect(asMember).not.toContain(`${src}/delete`);
    const refused = await member.post(`${url}/delete`, { _csrf: csrfOf(asMember), confirm: 'yes' });
    expect(refused.status).toBe(403);
    expect(await refused.text()).toContain('Only owners and admins can delete sources.');
    expect(await exists('SELECT 1 FROM sources WHERE id = $1', src)).toBe(true);

    const page = await (await owner.get(url)).text();
    expect(page).toContain('I understand this source cannot be brought back.');
    // Without the CSRF token: the expired-form page; without the box ticked: asked again.
    expect((await owner.post(`${url}/delete`, { confirm: 'yes' })).status).toBe(403);
    const unconfirmed = await owner.post(`${url}/delete`, { _csrf: csrfOf(page) });
    expect(unconfirmed.status).toBe(400);
    expect(await unconfirmed.text()).toContain('Tick the box to confirm');
    expect(await exists('SELECT 1 FROM sources WHERE id = $1', src)).toBe(true);

    const done = await owner.post(`${url}/delete`, { _csrf: csrfOf(page), confirm: 'yes' });
    expect(done.status).toBe(303);
    expect(done.headers.get('location')).toBe(`/account/w/${ws}/sources?done=deleted`);
    expect(await exists('SELECT 1 FROM sources WHERE id = $1', src)).toBe(false);
    expect(await exists('SELECT 1 FROM records WHERE id = $1', rec)).toBe(false);
    expect(await storage.exists(key)).toBe(false);
    expect((await owner.get(url)).status).toBe(404);
    const list = await (await owner.get(`/account/w/${ws}/sources?q=Excel`)).text();
    expect(list).not.toContain(src);
    // Deleting again: not found.
    expect((await owner.post(`${url}/delete`, { _csrf: csrfOf(page), confirm: 'yes' })).status).toBe(404);
  });

  it('in a browser: the confirmation, the notice after, and no accessibility violations (screenshots)', async () => {
    const { ws, prod } = await workspace();
    const { src } = await evidence(ws, prod, 'Call with Globex about exports');
    await evidence(ws, prod, 'Onboarding call with Initech');
    const context = await browser.newContext({ viewport: { width: 1200, height: 860 } });
    try {
      const host = new URL(h.url).hostname;
      await context.addCookies(owner.jar.header().split('; ').map((pair) => {
        const eq = pair.indexOf('=');
        return { name: pair.slice(0, eq), value: pair.slice(eq + 1), domain: host, path: '/' };
      }));
      const page = await context.newPage();
      await page.goto(`${h.url}/account/w/${ws}/sources/${src}`);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'lifecycle-source-delete');
      // The browser refuses to send the form until the box is ticked.
      await page.getByRole('button', { name: 'Delete source' }).click();
      expect(page.url()).toBe(`${h.url}/account/w/${ws}/sources/${src}`);
      await page.getByLabel('I understand this source cannot be brought back.').check();
      await page.getByRole('button', { name: 'Delete source' }).click();
      await page.waitForURL(`${h.url}/account/w/${ws}/sources?done=deleted`);
      expect(await page.getByRole('status').first().textContent()).toContain('The source was deleted');
      expect(await page.content()).not.toContain('Call with Globex about exports');
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'lifecycle-sources-after-delete');

      await page.goto(`${h.url}/account/w/${ws}/retention`);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'lifecycle-retention');
      await page.getByLabel('Another number of days:').check();
      await page.getByLabel('Number of days to keep sources').fill('45');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(`${h.url}/account/w/${ws}/retention?done=set`);
      expect(await page.getByRole('status').first().textContent()).toContain('Saved.');
      await saveScreenshot(page, 'lifecycle-retention-set');
    } finally {
      await context.close();
    }
    const { rows } = await h.pool.query('SELECT retention_days FROM workspaces WHERE id = $1', [ws]);
    expect(rows[0].retention_days).toBe(45);
  });
});

describe('data retention page', () => {
  it('is off by default; owners set a preset, a number of days or off; members only see it', async () => {
    const { ws } = await workspace();
    const url = `/account/w/${ws}/retention`;
    const asMember = await (await member.get(url)).text();
    expect(asMember).toContain('Keep everything.');
    expect(asMember).toContain('Owners and admins can change this.');
    expect((await member.post(url, { _csrf: csrfOf(asMember), retention: '30' })).status).toBe(403);

    const page = await (await owner.get(url)).text();
    const csrf = csrfOf(page);
    const set = async (form: Record<string, string>) => owner.post(url, { _csrf: csrf, ...form });
    const days = async () => (await h.pool.query('SELECT retention_days FROM workspaces WHERE id = $1', [ws])).rows[0].retention_days;
    expect((await set({ retention: '90' })).headers.get('location')).toBe(`${url}?done=set`);
    expect(await days()).toBe(90);
    expect(await (await owner.get(url)).text()).toContain('Keep 90 days.');
    await set({ retention: 'custom', days: '45' });
    expect(await days()).toBe(45);
    for (const bad of [{ retention: 'custom', days: '0' }, { retention: 'custom', days: 'soon' }, { retention: '99999999' }, { retention: 'custom', days: '36501' }] as Array<Record<string, string>>) {
      const r = await set(bad);
      expect(r.status).toBe(400);
      expect(await r.text()).toContain('Give a whole number of days from 1 to 36,500');
    }
    expect(await days()).toBe(45);
    expect((await set({ retention: 'off' })).headers.get('location')).toBe(`${url}?done=off`);
    expect(await days()).toBeNull();
  });
});
