import { randomBytes } from 'node:crypto';
import { accessibilityViolations, launchChromium, saveScreenshot, type Browser } from '@loupe/browser-testing';
import { insertConnection, loadKeyring } from '@loupe/connectors';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createBoss, ensureQueues, QUEUES, type Boss } from '@loupe/jobs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, Person, signInToAccount, startWebServer, type WebHarness } from './test/harness';

// Issue 45 on the account pages: each connection's status, last sync, records brought in and last error; "Sync now".
let h: WebHarness;
let boss: Boss;
let database: TestDatabase;
let owner: Person;
let member: Person;
let browser: Browser;
const SECRET = `zd-${randomBytes(10).toString('hex')}`;

beforeAll(async () => {
  database = await createTestDatabase();
  boss = createBoss({ connectionString: database.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  [h, browser] = await Promise.all([startWebServer({ boss, database }), launchChromium()]);
  owner = new Person(h, 'owner@connections.test');
  member = new Person(h, 'member@connections.test');
  for (const p of [owner, member]) await signInToAccount(h, p);
});
afterAll(async () => {
  await browser?.close();
  await boss?.stop({ graceful: false, close: true });
  await h?.close();
  await database?.close();
});

/** A workspace with an owner and a member, and three Zendesk connections: synced, failing, paused. */
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
  const keyring = await loadKeyring(h.pool, undefined);
  const make = (host: string) => insertConnection(h.pool, keyring, ws, {
    kind: 'zendesk', productId: prod, projectId: proj, baseUrl: `https://${host}`, settings: {}, credentials: { email: 'ops@acme.example', api_token: SECRET }, syncIntervalSeconds: 900,
  }, new Date('2026-11-20T08:00:00Z'));
  const synced = await make('acme.zendesk.com');
  await h.pool.query(
    `UPDATE connections SET records_count = 10412, duplicates_count = 37, companies_count = 214, people_count = 3120,
            last_synced_at = '2026-11-28T09:15:02Z', last_success_at = '2026-11-28T09:15:02Z' WHERE id = $1`, [synced.id]);
  const failing = await make('acme-eu.zendesk.com');
  await h.pool.query(
    `UPDATE connections SET status = 'failing', records_count = 880, last_synced_at = '2026-11-28T09:30:01Z', last_success_at = '2026-11-27T22:00:00Z',
            last_error = 'zendesk refused the credentials: 401 Couldn''t authenticate you', last_error_at = '2026-11-28T09:30:01Z' WHERE id = $1`, [failing.id]);
  const paused = await make('acme-labs.zendesk.com');
  await h.pool.query("UPDATE connections SET status = 'paused' WHERE id = $1", [paused.id]);
  return { ws, synced, failing, paused };
}

const queued = async (connectionId: string) =>
  (await h.pool.query("SELECT data->>'reason' AS reason FROM pgboss.job WHERE name = $1 AND data->>'connectionId' = $2 AND state = 'created'", [QUEUES.syncConnection, connectionId])).rows;

describe('the Connections page', () => {
  it('shows every connection\'s status, last sync, records and last error, never its credentials; owners sync, pause and resume', async () => {
    const { ws, synced, failing, paused } = await workspace();
    const res = await owner.get(`/account/w/${ws}/connections`);
    expect(res.status).toBe(200);
    const page = await res.text();
    expect(page).toContain('acme.zendesk.com');
    expect(page).toContain('10,412');
    expect(page).toContain('Failing');
    expect(page).toContain('401 Couldn&#39;t authenticate you');
    expect(page).not.toContain(SECRET);
    expect(page).not.toContain('ops@acme.example');
    const sync = await owner.post(`/account/w/${ws}/connections/${synced.id}/sync`, { _csrf: csrfOf(page) });
    expect([sync.status, sync.headers.get('location')]).toEqual([303, `/account/w/${ws}/connections?done=sync`]);
    expect(await queued(synced.id)).toEqual([{ reason: 'now' }]);
    const refused = await owner.post(`/account/w/${ws}/connections/${failing.id}/sync`, { _csrf: csrfOf(page) });
    expect(refused.status).toBe(409);
    expect(await queued(failing.id)).toEqual([]);
    expect((await owner.post(`/account/w/${ws}/connections/${paused.id}/resume`, { _csrf: csrfOf(page) })).status).toBe(303);
    expect(await queued(paused.id)).toEqual([{ reason: 'now' }]);
    expect((await h.pool.query('SELECT status FROM connections WHERE id = $1', [paused.id])).rows[0].status).toBe('active');

    const memberPage = await (await member.get(`/account/w/${ws}/connections`)).text();
    expect(memberPage).toContain('10,412');
    expect(memberPage).not.toContain('Sync now');
    expect((await member.post(`/account/w/${ws}/connections/${synced.id}/pause`, { _csrf: csrfOf(memberPage) })).status).toBe(403);
    const other = await workspace();
    expect((await owner.post(`/account/w/${ws}/connections/${other.synced.id}/pause`, { _csrf: csrfOf(page) })).status).toBe(404);
  });

  it('names a Gong connection by its vendor and host, never showing its access key or secret', async () => {
    const { ws } = await workspace();
    const keyring = await loadKeyring(h.pool, undefined);
    const { rows } = await h.pool.query<{ product_id: string; id: string }>('SELECT product_id, id FROM projects WHERE workspace_id = $1', [ws]);
    await insertConnection(h.pool, keyring, ws, {
      kind: 'gong', productId: rows[0]!.product_id, projectId: rows[0]!.id, baseUrl: 'https://api.gong.io', settings: { start_date: '2026-01-01' },
      credentials: { access_key: 'gong-page-key-4c1d', access_key_secret: SECRET }, syncIntervalSeconds: 900,
    }, new Date('2026-11-20T08:00:00Z'));
    const page = await (await owner.get(`/account/w/${ws}/connections`)).text();
    expect(page).toMatch(/Gong <span class="muted">· api\.gong\.io<\/span>/);
    expect(page).not.toContain(SECRET);
    expect(page).not.toContain('gong-page-key-4c1d');
  });

  it('in Chromium: the page, "Sync now" and its notice, with no accessibility violations (screenshots)', async () => {
    const { ws, synced } = await workspace();
    const context = await browser.newContext({ viewport: { width: 1200, height: 1100 } });
    try {
      const host = new URL(h.url).hostname;
      await context.addCookies(owner.jar.header().split('; ').map((pair) => {
        const eq = pair.indexOf('=');
        return { name: pair.slice(0, eq), value: pair.slice(eq + 1), domain: host, path: '/' };
      }));
      const page = await context.newPage();
      await page.goto(`${h.url}/account/w/${ws}/connections`);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'connections');
      await page.getByRole('button', { name: 'Sync now' }).click();
      await page.waitForURL(`${h.url}/account/w/${ws}/connections?done=sync`);
      expect(await page.getByRole('status').first().textContent()).toContain('A sync was queued');
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'connections-sync-queued');
      expect(await page.content()).not.toContain(SECRET);
    } finally {
      await context.close();
    }
    expect(await queued(synced.id)).toEqual([{ reason: 'now' }]);
  });
});
