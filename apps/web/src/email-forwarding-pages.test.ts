import { accessibilityViolations, launchChromium, saveScreenshot, type Browser } from '@loupe/browser-testing';
import { newId } from '@loupe/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { csrfOf, Person, signInToAccount, startWebServer, type WebHarness } from './test/harness';

// Issue 45's email forwarding on the account pages: each project's address with a copy button, who may forward.
const DOMAIN = 'in.loupe.test';
let h: WebHarness;
let off: WebHarness;
let owner: Person;
let member: Person;
let browser: Browser;

beforeAll(async () => {
  [h, browser] = await Promise.all([startWebServer({ inboundMailDomain: DOMAIN }), launchChromium()]);
  off = await startWebServer({ database: h.t });
  owner = new Person(h, 'owner@acme.test');
  member = new Person(h, 'member@contractor.test');
  for (const p of [owner, member]) await signInToAccount(h, p);
});
afterAll(async () => {
  await browser?.close();
  await off?.close();
  await h?.close();
});

/** A workspace with an owner and a member, a product with two projects. */
async function workspace() {
  const ws = newId('ws');
  const prod = `prod_${ws}`;
  await h.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, 'Acme']);
  await h.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [prod, ws, 'Acme app']);
  for (const name of ['Support', 'Sales']) await h.pool.query('INSERT INTO projects (id, workspace_id, product_id, name) VALUES ($1, $2, $3, $4)', [`proj_${name}_${ws}`, ws, prod, name]);
  for (const [p, role] of [[owner, 'owner'], [member, 'member']] as const) {
    const { rows } = await h.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [p.email]);
    await h.pool.query('INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)', [ws, rows[0]!.id, role]);
  }
  return { ws, support: `proj_Support_${ws}`, sales: `proj_Sales_${ws}` };
}

const addresses = (page: string) => [...page.matchAll(/value="(fwd\+[a-z2-7]{26}@in\.loupe\.test)"/g)].map((m) => m[1]);

describe('the Email forwarding page', () => {
  it('shows one lasting address per project; owners replace one and set the sender domains, members only read', async () => {
    const { ws, support } = await workspace();
    const page = await (await owner.get(`/account/w/${ws}/email-forwarding`)).text();
    const first = addresses(page);
    expect(first).toHaveLength(2);
    expect(new Set(first).size).toBe(2);
    expect(page).toContain('data-copy="addr-');
    // The members' domains until a list is set.
    expect(page).toContain('<strong>acme.test, contractor.test</strong>');
    expect(addresses(await (await owner.get(`/account/w/${ws}/email-forwarding`)).text())).toEqual(first);

    const bad = await owner.post(`/account/w/${ws}/email-forwarding/domains`, { _csrf: csrfOf(page), domains: 'acme.test, dee@acme.test' });
    expect(bad.status).toBe(400);
    expect(await bad.text()).toContain('&quot;dee@acme.test&quot; is not a mail domain');
    const saved = await owner.post(`/account/w/${ws}/email-forwarding/domains`, { _csrf: csrfOf(page), domains: '@Acme.test\npartner.example' });
    expect([saved.status, saved.headers.get('location')]).toEqual([303, `/account/w/${ws}/email-forwarding?done=domains`]);
    expect((await h.pool.query('SELECT domain FROM inbound_sender_domains WHERE workspace_id = $1 ORDER BY domain', [ws])).rows.map((r) => r.domain)).toEqual(['acme.test', 'partner.example']);

    const rotated = await owner.post(`/account/w/${ws}/email-forwarding/projects/${support}/rotate`, { _csrf: csrfOf(page) });
    expect(rotated.status).toBe(303);
    const after = addresses(await (await owner.get(`/account/w/${ws}/email-forwarding`)).text());
    expect(after).toHaveLength(2);
    expect(after.filter((a) => first.includes(a))).toHaveLength(1);

    const memberPage = await (await member.get(`/account/w/${ws}/email-forwarding`)).text();
    expect(addresses(memberPage)).toEqual(after);
    expect(memberPage).not.toContain('Replace address');
    expect(memberPage).toContain('<strong>acme.test, partner.example</strong>');
    expect((await member.post(`/account/w/${ws}/email-forwarding/domains`, { _csrf: csrfOf(memberPage), domains: 'evil.example' })).status).toBe(403);
    expect((await member.post(`/account/w/${ws}/email-forwarding/projects/${support}/rotate`, { _csrf: csrfOf(memberPage) })).status).toBe(403);

    // Another workspace's project: not found, its address untouched.
    const other = await workspace();
    await owner.get(`/account/w/${other.ws}/email-forwarding`);
    const before = (await h.pool.query('SELECT token FROM inbound_addresses WHERE project_id = $1', [other.support])).rows[0].token;
    expect((await owner.post(`/account/w/${ws}/email-forwarding/projects/${other.support}/rotate`, { _csrf: csrfOf(page) })).status).toBe(404);
    expect((await h.pool.query('SELECT token FROM inbound_addresses WHERE project_id = $1', [other.support])).rows[0].token).toBe(before);
  });

  it('on a server that receives no mail: says so, makes no address', async () => {
    const { ws } = await workspace();
    const asOff = new Person(off, owner.email);
    asOff.jar = owner.jar;
    const page = await (await asOff.get(`/account/w/${ws}/email-forwarding`)).text();
    expect(page).toContain('Not available on this server');
    expect(addresses(page)).toEqual([]);
    expect((await h.pool.query('SELECT count(*)::int AS n FROM inbound_addresses WHERE workspace_id = $1', [ws])).rows[0].n).toBe(0);
  });

  it('in Chromium: the page and the copy button, with no accessibility violations (screenshot)', async () => {
    const { ws } = await workspace();
    const context = await browser.newContext({ viewport: { width: 1200, height: 1300 } });
    try {
      const host = new URL(h.url).hostname;
      await context.addCookies(owner.jar.header().split('; ').map((pair) => {
        const eq = pair.indexOf('=');
        return { name: pair.slice(0, eq), value: pair.slice(eq + 1), domain: host, path: '/' };
      }));
      await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.url });
      const page = await context.newPage();
      await page.goto(`${h.url}/account/w/${ws}/email-forwarding`);
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'email-forwarding');
      const address = await page.getByLabel('Forwarding address of the project Support').inputValue();
      expect(address).toMatch(/^fwd\+[a-z2-7]{26}@in\.loupe\.test$/);
      await page.getByRole('button', { name: 'Copy the forwarding address of Support' }).click();
      expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(address);
      await page.getByLabel('Allowed sender domains').fill('acme.test, partner.example');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.waitForURL(`${h.url}/account/w/${ws}/email-forwarding?done=domains`);
      expect(await page.getByRole('status').first().textContent()).toContain('Only senders from these domains');
      expect(await accessibilityViolations(page)).toEqual([]);
      await saveScreenshot(page, 'email-forwarding-saved');
    } finally {
      await context.close();
    }
  });
});
