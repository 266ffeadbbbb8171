import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { accessibilityViolations, launchChromium, saveScreenshot, type Browser } from '@loupe/browser-testing';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { runErasure } from '@loupe/erasure';
import { systemClock } from '@loupe/http';
import { createBoss, ensureQueues, type Boss } from '@loupe/jobs';
import { addSignals } from '@loupe/evidence';
import { createShapingNote, updateShapingNote } from '@loupe/shaping';
import { createSourceFromRecord } from '@loupe/sources';
import { createLocalStorage, type Storage } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, Person, signInToAccount, startWebServer, type WebHarness } from './test/harness';

// Issue 28 item 2 on the account pages: Privacy — erase a person, follow it, lift suppressions, the audit.
let h: WebHarness;
let dir: string;
let storage: Storage;
let boss: Boss;
let owner: Person;
let member: Person;
let browser: Browser;
let database: TestDatabase;

beforeAll(async () => {
  dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-privacy-pages-'));
  storage = createLocalStorage(dir);
  database = await createTestDatabase();
  boss = createBoss({ connectionString: database.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  [h, browser] = await Promise.all([startWebServer({ storage, boss, database }), launchChromium()]);
  owner = new Person(h, 'owner@privacy.test');
  member = new Person(h, 'member@privacy.test');
  for (const p of [owner, member]) await signInToAccount(h, p);
});
afterAll(async () => {
  await browser?.close();
  await boss?.stop({ graceful: false, close: true });
  await h?.close();
  await database?.close();
  await rm(dir, { recursive: true, force: true });
});

async function workspace(options: { sharedLabel?: boolean } = {}) {
  const ws = newId('ws');
  const prod = `prod_${ws}`;
  await h.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, 'Acme']);
  await h.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [prod, ws, 'Acme app']);
  for (const [p, role] of [[owner, 'owner'], [member, 'member']] as const) {
    const { rows } = await h.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [p.email]);
    await h.pool.query('INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)', [ws, rows[0]!.id, role]);
  }
  const batch = newId('bat');
  await h.pool.query(
    `INSERT INTO batches (id, workspace_id, product_id, source, type, status, accepted_count, rejected_count, total_error_count) VALUES ($1, $2, $3, 'api', 'call', 'COMPLETE', 1, 0, 0)`,
    [batch, ws, prod],
  );
  const rec = newId('rec');
  const participants = [{ id: 'p-ana', role: 'external', name: 'Ana Planted', email: 'ana.planted@globex.test' }, { id: 'p-bob', role: 'internal', name: 'Bob Keeper' }];
  const data = { title: 'Call with Globex', transcript: [{ speaker: 'Ana Planted', text: 'The zebra report is unusable.' }, { speaker: 'Bob Keeper', text: 'We will fix exports.' }] };
  await h.pool.query(
    `INSERT INTO records (id, workspace_id, batch_id, position, dedup_key, type, nature, product_id, project_ids, event_at, vendor_ids, participants, data)
     VALUES ($1, $2, $3, 0, $1, 'call_transcription', 'evidence', $4, '{}', now(), '{}', $5, $6::json)`,
    [rec, ws, batch, prod, JSON.stringify(participants), JSON.stringify(data)],
  );
  const { sourceId } = await createSourceFromRecord(h.pool, {
    id: rec, workspaceId: ws, productId: prod, projectIds: [], type: 'call_transcription', nature: 'evidence', eventAt: new Date(), data, participants, tags: [], threadId: null,
  });
  if (options.sharedLabel) {
    // a support call where Ana's entry is labelled "Customer", and Carla's call under the same label
    for (const [i, entry, words] of [[1, { id: 'p-ana', name: 'Customer', email: 'ana.planted@globex.test' }, 'The heron export times out.'], [2, { id: 'p-carla', name: 'Customer' }, 'Carla likes the dashboards.']] as const) {
      const id = newId('rec');
      const d = { title: 'Support call', transcript: [{ speaker: 'Customer', text: words }] };
      await h.pool.query(
        `INSERT INTO records (id, workspace_id, batch_id, position, dedup_key, type, nature, product_id, project_ids, event_at, vendor_ids, participants, data)
         VALUES ($1, $2, $3, $4, $1, 'call', 'evidence', $5, '{}', now(), '{}', $6, $7::json)`,
        [id, ws, batch, i, prod, JSON.stringify([entry]), JSON.stringify(d)],
      );
      await createSourceFromRecord(h.pool, { id, workspaceId: ws, productId: prod, projectIds: [], type: 'call', nature: 'evidence', eventAt: new Date(), data: d, participants: [entry], tags: [], threadId: null });
    }
  }
  return { ws, src: sourceId };
}

const url = (ws: string) => `/account/w/${ws}/privacy`;

describe('the Privacy page', () => {
  it('members see and are refused; the owner previews an erasure, ticks the name it offers, confirms, follows it and lifts the suppression; nothing names the person', async () => {
    const { ws, src } = await workspace();
    const memberPage = await (await member.get(url(ws))).text();
    expect(memberPage).toContain('Only owners can erase a person');
    expect(memberPage).not.toContain('Erase this person');
    expect((await member.post(`${url(ws)}/erasures`, { _csrf: csrfOf(memberPage), email: 'ana.planted@globex.test', confirm: 'yes' })).status).toBe(403);

    let page = await (await owner.get(url(ws))).text();
    expect(page).toContain('Preview the erasure');
    expect((await owner.post(`${url(ws)}/erasures`, { email: 'ana.planted@globex.test' })).status).toBe(403); // no CSRF token
    expect((await owner.post(`${url(ws)}/erasures`, { _csrf: csrfOf(page), email: 'not an address' })).status).toBe(400);
    const short = await owner.post(`${url(ws)}/erasures`, { _csrf: csrfOf(page), participant_id: 'p1' });
    expect(short.status).toBe(400);
    expect(await short.text()).toContain('Participant id: must be at least 3 characters (this one has 2)');
    expect((await h.pool.query('SELECT 1 FROM erasure_requests WHERE workspace_id = $1', [ws])).rowCount).toBe(0);

    // asking starts a dry run: nothing changes, no one is suppressed yet
    const asked = await owner.post(`${url(ws)}/erasures`, { _csrf: csrfOf(page), email: 'Ana.Planted@globex.test' });
    expect(asked.status).toBe(303);
    const previewUrl = asked.headers.get('location')!;
    expect(previewUrl).toMatch(new RegExp(`^${url(ws)}/erasures/era_\\w+$`));
    expect(await (await owner.get(previewUrl)).text()).toContain('Preparing the preview');
    expect((await member.get(previewUrl)).status).toBe(403);
    page = await (await owner.get(url(ws))).text();
    expect(page).toContain('Queued');
    expect(page).toContain('See the preview');
    expect((await h.pool.query('SELECT 1 FROM suppressions WHERE workspace_id = $1', [ws])).rowCount).toBe(0);
    // her signal, one that mentions her, an opportunity named after hers, and a shaping note quoting her
    const said = await addSignals(h.pool, { workspaceId: ws, sourceId: src, items: [
      { type: 'pain_point', title: 'Zebra report unusable', content: '"The zebra report is unusable."', whoSaidIt: 'Ana Planted', participantId: 'p-ana' },
      { type: 'need', title: 'Follow up', content: 'Bob promised Ana Planted faster exports.', whoSaidIt: 'Bob Keeper' },
    ] }, systemClock);
    const [hers, bobs] = said.results.map((r) => r.id);
    const opp = newId('opp');
    await h.pool.query(
      `INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, created_at, updated_at, keywords, central_signal_id)
       VALUES ($1, $2, $3, 'Zebra report unusable', '2 signals · zebra', 'problem', 2, 1, now(), now(), '{zebra}', $4)`, [opp, ws, `prod_${ws}`, hers],
    );
    for (const id of [hers, bobs]) await h.pool.query('INSERT INTO opportunity_signals (opportunity_id, signal_id) VALUES ($1, $2)', [opp, id]);
    const note = await createShapingNote(h.pool, { workspaceId: ws, productId: `prod_${ws}`, title: 'Export PRD', content: '# Export\n\n> "The zebra report is unusable"\n— Ana Planted\n\nBob owns it.' }, systemClock);
    await updateShapingNote(h.pool, { workspaceId: ws, noteId: note.id, content: '# Export v2\n\nAsk ana.planted@globex.test again. Bob owns it.' }, systemClock);
    const { rows: [erasure] } = await h.pool.query<{ id: string; requested_by_user_id: string }>('SELECT id, requested_by_user_id FROM erasure_requests WHERE workspace_id = $1', [ws]);
    expect(erasure!.requested_by_user_id).toMatch(/^usr_/);
    expect((await runErasure({ pool: h.pool, boss, storage, clock: systemClock }, ws, erasure!.id)).status).toBe('previewed');

    // the preview: what would go, and her name offered (mentions in Bob's signal, the opportunity and the note)
    page = await (await owner.get(previewUrl)).text();
    expect(page).toContain('What would be erased');
    expect(page).toMatch(/<td>Records?<\/td><td class="num">1<\/td>/);
    expect(page).toContain('value="Ana Planted"');
    expect(page).toContain('p-ana'); // the participant id found beside the address
    const unconfirmed = await owner.post(`${previewUrl}/confirm`, { _csrf: csrfOf(page), names: 'Ana Planted' });
    expect(unconfirmed.status).toBe(400);
    const unconfirmedPage = await unconfirmed.text();
    expect(unconfirmedPage).toContain('Tick the box to confirm');
    expect(unconfirmedPage).toMatch(/value="Ana Planted" id="name-0" checked/);
    const notOffered = await owner.post(`${previewUrl}/confirm`, { _csrf: csrfOf(page), names: 'Bob Keeper', confirm: 'yes' });
    expect(notOffered.status).toBe(400);
    expect(await notOffered.text()).toContain('names[0]: &quot;Bob Keeper&quot; was not offered by this preview');
    expect((await member.post(`${previewUrl}/confirm`, { _csrf: csrfOf(memberPage), names: 'Ana Planted', confirm: 'yes' })).status).toBe(403);
    const confirmed = await owner.post(`${previewUrl}/confirm`, { _csrf: csrfOf(page), names: 'Ana Planted', confirm: 'yes' });
    expect(confirmed.status).toBe(303);
    expect(confirmed.headers.get('location')).toBe(`${url(ws)}?done=erasing`);
    page = await (await owner.get(`${url(ws)}?done=erasing`)).text();
    expect(page).toContain('Erasure started');
    expect(page).toContain('Queued');
    expect(page).toContain('owner@privacy.test');
    expect((await owner.post(`${previewUrl}/confirm`, { _csrf: csrfOf(page), confirm: 'yes' })).status).toBe(303); // confirmed already: back to Privacy
    expect((await owner.get(previewUrl)).status).toBe(303);

    expect((await runErasure({ pool: h.pool, boss, storage, clock: systemClock }, ws, erasure!.id)).status).toBe('complete');
    page = await (await owner.get(url(ws))).text();
    expect(page).toContain('Complete');
    expect(page).toContain('1 record, 1 source, 1 segment');
    const pages = [url(ws), `/account/w/${ws}/sources/${src}`, `/account/w/${ws}/sources`, `/account/w/${ws}/signals`, `/account/w/${ws}/signals/${bobs}`,
      `/account/w/${ws}/opportunities`, `/account/w/${ws}/opportunities/${opp}`, `/account/w/${ws}/notes`, `/account/w/${ws}/notes/${note.id}`,
      `/account/w/${ws}/notes/${note.id}/versions/1`, `/account/w/${ws}/notes/${note.id}/diff`];
    expect((await owner.get(`/account/w/${ws}/signals/${hers}`)).status).toBe(404);
    for (const path of pages) {
      const html = (await (await owner.get(path)).text()).toLowerCase();
      for (const trace of ['planted', 'ana.planted', 'zebra']) expect(html, `${path}: ${trace}`).not.toContain(trace);
    }
    expect(await (await owner.get(`/account/w/${ws}/sources`)).text()).toContain('Call with Globex');
    // the search box repeats the words asked for; no source comes back for them
    for (const q of ['zebra', 'Planted', 'ana.planted@globex.test']) {
      const html = (await (await owner.get(`/account/w/${ws}/sources?q=${encodeURIComponent(q)}`)).text()).toLowerCase().split(q.toLowerCase()).join('<q>');
      expect(html, q).not.toContain('call with globex');
      for (const trace of ['planted', 'ana.planted', 'zebra']) expect(html, `search ${q}: ${trace}`).not.toContain(trace);
    }
    expect(await (await owner.get(`/account/w/${ws}/sources/${src}`)).text()).toContain('We will fix exports.');

    const { rows: sups } = await h.pool.query<{ id: string }>('SELECT id FROM suppressions WHERE workspace_id = $1 AND lifted_at IS NULL ORDER BY id', [ws]);
    expect(sups.length).toBe(2); // the email asked for and the participant id found with it
    expect((await member.post(`${url(ws)}/suppressions/${sups[0]!.id}/lift`, { _csrf: csrfOf(memberPage) })).status).toBe(403);
    const lifted = await owner.post(`${url(ws)}/suppressions/${sups[0]!.id}/lift`, { _csrf: csrfOf(page) });
    expect(lifted.status).toBe(303);
    expect((await owner.post(`${url(ws)}/suppressions/${sups[0]!.id}/lift`, { _csrf: csrfOf(page) })).status).toBe(404);
    page = await (await owner.get(`${url(ws)}?done=lifted`)).text();
    expect(page).toContain('Suppression lifted');
    expect(page).toMatch(/lifted <time[^>]*>[^<]+<\/time> by owner@privacy.test/);
    // another workspace's suppression cannot be lifted from here
    const other = await workspace();
    expect((await owner.post(`${url(other.ws)}/suppressions/${sups[1]!.id}/lift`, { _csrf: csrfOf(page) })).status).toBe(404);
  });

  it('in a browser: the form, the preview (a shared label never offered), a finished erasure and its suppressions, with no accessibility violations (screenshots)', async () => {
    const { ws } = await workspace({ sharedLabel: true });
    const context = await browser.newContext({ viewport: { width: 1200, height: 900 } });
    try {
      const host = new URL(h.url).hostname;
      await context.addCookies(owner.jar.header().split('; ').map((pair) => {
        const eq = pair.indexOf('=');
        return { name: pair.slice(0, eq), value: pair.slice(eq + 1), domain: host, path: '/' };
      }));
      const page = await context.newPage();
      await page.goto(`${h.url}${url(ws)}`);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'privacy-empty');
      await page.getByLabel('Email').fill('ana.planted@globex.test');
      await page.getByRole('button', { name: 'Preview the erasure' }).click();
      await page.waitForURL(/\/privacy\/erasures\/era_\w+$/);
      expect(await page.getByRole('status').textContent()).toContain('Preparing the preview');
      const { rows: [erasure] } = await h.pool.query<{ id: string }>('SELECT id FROM erasure_requests WHERE workspace_id = $1', [ws]);
      expect((await runErasure({ pool: h.pool, boss, storage, clock: systemClock }, ws, erasure!.id)).status).toBe('previewed');
      await page.reload();
      expect(await accessibilityViolations(page)).toEqual([]);
      expect(await page.getByRole('checkbox', { name: /Customer/ }).count()).toBe(0); // shared with Carla: listed, never offered
      expect(await page.getByText(/also carried by 1 other participant: never looked for/).count()).toBe(1);
      await saveScreenshot(page, 'privacy-preview');
      await page.getByRole('checkbox', { name: /Ana Planted/ }).check();
      // unticked, the server refuses and says why, keeping the name ticked
      await page.getByRole('button', { name: 'Erase this person' }).click();
      await page.waitForLoadState();
      expect(await page.getByRole('alert').textContent()).toContain('Tick the box');
      expect(await page.getByRole('checkbox', { name: /Ana Planted/ }).isChecked()).toBe(true);
      await page.getByLabel(/I understand this cannot be undone/).check();
      await page.getByRole('button', { name: 'Erase this person' }).click();
      await page.waitForURL(`${h.url}${url(ws)}?done=erasing`);
      await runErasure({ pool: h.pool, boss, storage, clock: systemClock }, ws, erasure!.id);
      // Carla's call under the same label is as it was
      expect((await h.pool.query("SELECT 1 FROM source_segments g JOIN sources s ON s.id = g.source_id WHERE s.workspace_id = $1 AND g.speaker = 'Customer' AND g.text = 'Carla likes the dashboards.'", [ws])).rowCount).toBe(1);
      await page.goto(`${h.url}${url(ws)}`);
      expect(await page.getByRole('table', { name: /Who asked for an erasure/ }).textContent()).toContain('Complete');
      expect(await accessibilityViolations(page)).toEqual([]);
      expect((await page.content()).toLowerCase()).not.toContain('planted');
      await saveScreenshot(page, 'privacy-erased');
    } finally {
      await context.close();
    }
  });
});
