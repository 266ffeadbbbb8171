import { newId } from '@loupe/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_ACTIVE_KEYS } from './account/keys';
import { csrfOf, Person, signInToAccount, startWebServer, type WebHarness } from './test/harness';

let h: WebHarness;
beforeAll(async () => {
  h = await startWebServer();
});
afterAll(() => h.close());

const signIn = (person: Person) => signInToAccount(h, person);

async function workspaceWith(members: Array<[Person, 'owner' | 'admin' | 'member']>) {
  const ws = newId('ws');
  await h.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, `W ${ws.slice(-4)}`]);
  await h.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [`prod_${ws}`, ws, 'App']);
  for (const [p, role] of members) {
    const { rows } = await h.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [p.email]);
    await h.pool.query('INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)', [ws, rows[0]!.id, role]);
  }
  return ws;
}

describe('account pages', () => {
  let owner: Person;
  let member: Person;
  let stranger: Person;
  beforeAll(async () => {
    owner = new Person(h, 'owner@acct.test');
    member = new Person(h, 'member@acct.test');
    stranger = new Person(h, 'stranger@acct.test');
    for (const p of [owner, member, stranger]) await signIn(p);
  });

  it('a web session works on another instance on the same database, and signing out there ends it everywhere', async () => {
    const other = await startWebServer({ database: h.t });
    try {
      const person = new Person(h, 'two-instances@acct.test');
      await signIn(person);
      const elsewhere = new Person(other, person.email);
      elsewhere.jar = person.jar;
      const home = await elsewhere.get('/account');
      expect(home.status).toBe(200);
      expect(await home.text()).toContain('two-instances@acct.test');
      const signedInCookies = person.jar.header();
      const page = await (await elsewhere.get('/account')).text();
      expect((await elsewhere.post('/account/sign-out', { _csrf: csrfOf(page) })).status).toBe(303);
      expect(elsewhere.jar.has('loupe_session')).toBe(false);
      // A copy of the old cookie no longer signs anyone in, on either instance.
      for (const instance of [h, other]) {
        const res = await fetch(`${instance.url}/account`, { redirect: 'manual', headers: { cookie: signedInCookies } });
        expect(res.status).toBe(303);
      }
    } finally {
      await other.close();
    }
  });

  it('sends a signed-out visitor to sign in, and back where they were going', async () => {
    const visitor = new Person(h, 'visitor@acct.test');
    const res = await visitor.get('/account/w/ws_x/keys');
    expect(res.status).toBe(303);
    expect(res.headers.get('location')).toBe('/account/sign-in?return_to=%2Faccount%2Fw%2Fws_x%2Fkeys');
    // A 12 KB address is not echoed into a Location header most clients cannot read (found by e2e/src/mcp-hostile.slow.test.ts).
    const long = await visitor.get(`/account/w/ws_x/keys?q=${'é'.repeat(2000)}`);
    expect([long.status, long.headers.get('location')]).toEqual([303, '/account/sign-in?return_to=%2Faccount']);
  });

  it('answers 404 for a workspace the person does not belong to, never revealing it', async () => {
    const ws = await workspaceWith([[owner, 'owner']]);
    for (const section of ['keys', 'members', 'apps', 'products', 'usage']) {
      expect((await stranger.get(`/account/w/${ws}/${section}`)).status, section).toBe(404);
    }
    expect((await stranger.get('/account/w/ws_missing/keys')).status).toBe(404);
  });

  it('refuses a form without its CSRF token', async () => {
    const ws = await workspaceWith([[owner, 'owner']]);
    const res = await owner.post(`/account/w/${ws}/keys`, { name: 'x', permissions: 'api:read' });
    expect(res.status).toBe(403);
    expect(await res.text()).toContain('This page has expired');
  });

  it('lets owners manage every key and members only their own, with at most 10 active keys', async () => {
    const ws = await workspaceWith([[owner, 'owner'], [member, 'member']]);
    const keysPage = async (p: Person) => (await p.get(`/account/w/${ws}/keys`)).text();
    const create = async (p: Person, name: string) => p.post(`/account/w/${ws}/keys`, { _csrf: csrfOf(await keysPage(p)), name, permissions: 'api:read' });
    expect((await create(member, 'member key')).status).toBe(200);
    expect((await create(owner, 'owner key')).status).toBe(200);
    const memberView = await keysPage(member);
    expect(memberView).toContain('member key');
    expect(memberView).not.toContain('owner key');
    const ownerView = await keysPage(owner);
    expect(ownerView).toContain('member key');
    const { rows } = await h.pool.query<{ id: string; name: string }>('SELECT id, name FROM api_keys WHERE workspace_id = $1', [ws]);
    const ownerKey = rows.find((r) => r.name === 'owner key')!;
    const memberKey = rows.find((r) => r.name === 'member key')!;
    const refused = await member.post(`/account/w/${ws}/keys/${ownerKey.id}/revoke`, { _csrf: csrfOf(memberView) });
    expect(refused.status).toBe(404);
    expect((await owner.post(`/account/w/${ws}/keys/${memberKey.id}/revoke`, { _csrf: csrfOf(ownerView) })).status).toBe(303);
    for (let i = 0; i < MAX_ACTIVE_KEYS - 1; i++) expect((await create(owner, `k${i}`)).status).toBe(200);
    const tooMany = await create(owner, 'one too many');
    expect(tooMany.status).toBe(400);
    expect(await tooMany.text()).toContain(`already has ${MAX_ACTIVE_KEYS} active keys`);
    const mcpWithoutProduct = await owner.post(`/account/w/${ws}/keys`, { _csrf: csrfOf(ownerView), name: 'm', permissions: 'mcp:read' });
    expect(await mcpWithoutProduct.text()).toContain('MCP permissions need a default product');
    // A permission that is not on the page (found by e2e/src/mcp-hostile.slow.test.ts, a 500 before).
    const unknown = await owner.post(`/account/w/${ws}/keys`, { _csrf: csrfOf(ownerView), name: 'u', permissions: '__proto__' });
    expect(unknown.status).toBe(400);
    expect(await unknown.text()).toContain('Choose the permissions from the list');
  });

  // Issue 23 item 8: any member could make a key that uses the owners' third-party credentials.
  it('offers and grants the third-party permission to owners only', async () => {
    const admin = new Person(h, 'tp-admin@acct.test');
    await signIn(admin);
    const ws = await workspaceWith([[owner, 'owner'], [admin, 'admin'], [member, 'member']]);
    const keysPage = async (p: Person) => (await p.get(`/account/w/${ws}/keys`)).text();
    const create = async (p: Person) => p.post(`/account/w/${ws}/keys`, { _csrf: csrfOf(await keysPage(p)), name: 'tp', permissions: 'mcp:thirdparty', product: `prod_${ws}` });
    for (const p of [admin, member]) {
      expect(await keysPage(p)).not.toContain('value="mcp:thirdparty"');
      const refused = await create(p);
      expect(refused.status).toBe(400);
      expect(await refused.text()).toContain('Only owners can create keys with the third-party permission');
    }
    expect(await keysPage(owner)).toContain('value="mcp:thirdparty"');
    expect((await create(owner)).status).toBe(200);
    const { rows } = await h.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM api_keys WHERE workspace_id = $1 AND 'mcp:thirdparty' = ANY(permissions)", [ws]);
    expect(rows[0]!.n).toBe(1);
  });

  it('lets only owners and admins invite, change roles, remove and manage products', async () => {
    const ws = await workspaceWith([[owner, 'owner'], [member, 'member']]);
    const page = await (await member.get(`/account/w/${ws}/members`)).text();
    expect(page).not.toContain('Invite someone');
    const invite = await member.post(`/account/w/${ws}/members/invite`, { _csrf: csrfOf(page), email: 'x@acct.test', role: 'member' });
    expect(invite.status).toBe(400);
    expect(await invite.text()).toContain('Only owners and admins can invite people.');
    const product = await member.post(`/account/w/${ws}/products`, { _csrf: csrfOf(page), name: 'Sneaky' });
    expect(product.status).toBe(403);
    const ownerPage = await (await owner.get(`/account/w/${ws}/members`)).text();
    const sent = h.mail.length;
    expect((await owner.post(`/account/w/${ws}/members/invite`, { _csrf: csrfOf(ownerPage), email: 'new@acct.test', role: 'admin' })).status).toBe(303);
    const mail = h.mail.slice(sent).find((m) => m.to === 'new@acct.test')!;
    expect(mail).toMatchObject({ kind: 'invitation', subject: 'You are invited to a Loupe workspace' });
    expect(mail.text).toMatch(new RegExp(`${h.url}/account/invitations/[\\w-]{43}`));
  });

  it('deletes an account after it is confirmed: its keys revoked, its sole workspace deleted, signed out', async () => {
    const leaving = new Person(h, 'leaving@acct.test');
    await signIn(leaving);
    const ws = await workspaceWith([[leaving, 'owner']]);
    const keys = await (await leaving.get(`/account/w/${ws}/keys`)).text();
    await leaving.post(`/account/w/${ws}/keys`, { _csrf: csrfOf(keys), name: 'k', permissions: 'api:read' });
    const home = await (await leaving.get('/account?all=1')).text();
    expect(home).toContain('The workspaces only you belong to are deleted');
    const unconfirmed = await leaving.post('/account/delete', { _csrf: csrfOf(home), confirm: 'someone@else.test' });
    expect(unconfirmed.status).toBe(400);
    expect((await leaving.post('/account/delete', { _csrf: csrfOf(home), confirm: 'LEAVING@acct.test' })).status).toBe(303);
    expect((await h.pool.query('SELECT 1 FROM users WHERE email = $1', ['leaving@acct.test'])).rowCount).toBe(0);
    expect((await h.pool.query('SELECT 1 FROM workspaces WHERE id = $1', [ws])).rowCount).toBe(0);
    expect((await leaving.get('/account')).status).toBe(303); // signed out
  });
});
