import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { newId } from '@loupe/db';
import { addMember, csrfOf, Person, registerClient, startAuthServer, uidOf, type AuthHarness } from './test/harness';
import { authorizeUrl, connect, exchange, type Client } from './test/flow';

let h: AuthHarness;
let client: Client;
beforeAll(async () => {
  h = await startAuthServer();
  client = (await registerClient(h.url, { client_name: 'Pages Tests' })).body as Client;
});
afterAll(() => h.close());

async function firstPage(person: Person) {
  const start = await person.get(authorizeUrl(client).path);
  const page = await person.follow(start);
  return { uid: uidOf(page.res.url), ...page };
}

describe('sign-in and workspace step (spec 5.2)', () => {
  it('a new person signs up by email, creates a workspace, and the account exists afterwards', async () => {
    const person = new Person(h, 'New.Person@Acme.test');
    const c = await connect(person, client, { workspaceName: 'Fresh team' });
    expect(c.code).toBeTruthy();
    const { rows } = await h.pool.query(
      `SELECT u.email, u.email_verified, w.name, m.role FROM users u JOIN memberships m ON m.user_id = u.id JOIN workspaces w ON w.id = m.workspace_id WHERE u.email = $1`,
      ['new.person@acme.test'],
    );
    expect(rows).toEqual([{ email: 'new.person@acme.test', email_verified: true, name: 'Fresh team', role: 'owner' }]);
  });

  it('one workspace is chosen automatically; the consent names it', async () => {
    await addMember(h.pool, 'solo@acme.test', 'Solo workspace');
    const c = await connect(new Person(h, 'solo@acme.test'), client);
    expect(c.consentHtml).toContain('Connect Pages Tests to Solo workspace?');
    expect(c.consentHtml).not.toContain('change</a>');
  });

  it('with two workspaces the person chooses, and the grant is bound to the chosen one', async () => {
    await addMember(h.pool, 'two@acme.test', 'Alpha');
    const { workspaceId: beta } = await addMember(h.pool, 'two@acme.test', 'Beta');
    const person = new Person(h, 'two@acme.test');
    const c = await connect(person, client, { chooseWorkspace: beta });
    expect(c.consentHtml).toContain('Connect Pages Tests to Beta?');
    await exchange(h, client, c);
    const { rows } = await h.pool.query('SELECT workspace_id FROM oauth_grants g JOIN users u ON u.id = g.user_id WHERE u.email = $1', ['two@acme.test']);
    expect(rows).toEqual([{ workspace_id: beta }]);
    // asked again on the next authorization, even though signed in and consented before
    const again = await firstPage(person);
    expect(again.html).toContain('Choose a workspace');
  });

  it('a consent naming a workspace the person does not belong to is refused', async () => {
    const { workspaceId: other } = await addMember(h.pool, 'owner-x@acme.test', 'Not yours');
    await addMember(h.pool, 'intruder@acme.test', 'Mine');
    const person = new Person(h, 'intruder@acme.test');
    let page = await firstPage(person);
    page = { uid: page.uid, ...(await person.signIn(page.uid, page.html)) };
    const res = await person.post(`/oauth/interaction/${page.uid}/consent`, { _csrf: csrfOf(page.html), workspace: other, decision: 'approve' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
  });

  it('Deny returns access_denied with the state to the client', async () => {
    const c = await connect(new Person(h, 'denier@acme.test'), client, { decision: 'deny' });
    expect(c.callback.searchParams.get('error')).toBe('access_denied');
    expect(c.callback.searchParams.get('state')).toBe(c.state);
    expect(c.callback.searchParams.get('code')).toBeNull();
  });

  it('wrong codes are refused, and a code works once', async () => {
    const person = new Person(h, 'codes@acme.test');
    const page = await firstPage(person);
    const codePage = await (await person.post(`/oauth/interaction/${page.uid}/email`, { _csrf: csrfOf(page.html), email: person.email })).text();
    const wrong = await person.post(`/oauth/interaction/${page.uid}/code`, { _csrf: csrfOf(codePage), email: person.email, code: '000000' });
    expect(wrong.status).toBe(400);
    expect(await wrong.text()).toContain('That code is not right');
  });
});

describe('consent page (spec 5.2)', () => {
  it('names the application, its redirect host, the permissions, and warns about unverified and local clients', async () => {
    const c = await connect(new Person(h, 'reader@acme.test'), client, { extra: { scope: 'mcp:read mcp:write email' } });
    expect(c.consentHtml).toContain('Pages Tests');
    expect(c.consentHtml).toContain('Returns you to 127.0.0.1:9999');
    expect(c.consentHtml).toContain('Loupe has not verified this application');
    expect(c.consentHtml).toContain("It runs on a computer");
    expect(c.consentHtml).toContain('Add and update signals');
    expect(c.consentHtml).toContain('See your email address');
  });

  it('asks about third-party tools only when the workspace has them, records the choice, never grants them', async () => {
    const { workspaceId } = await addMember(h.pool, 'thirdparty@acme.test', 'With tools');
    const person = new Person(h, 'thirdparty@acme.test');
    const without = await connect(person, client);
    expect(without.consentHtml).not.toContain('Including third-party tools');
    await h.pool.query('INSERT INTO third_party_servers (id, workspace_id, name, slug, url) VALUES ($1, $2, $3, $4, $5)', [newId('tps'), workspaceId, 'Linear', 'linear', 'https://mcp.linear.app/mcp']);
    const withTools = await connect(person, client, { thirdParty: 'including_third_party', extra: { scope: 'mcp:read mcp:thirdparty' } });
    expect(withTools.consentHtml).toContain('Including third-party tools');
    const tokens = await exchange(h, client, withTools);
    expect(tokens.body.scope).toBe('mcp:read');
    const { rows } = await h.pool.query(`SELECT third_party_access FROM oauth_grants WHERE workspace_id = $1 ORDER BY created_at`, [workspaceId]);
    expect(rows.map((r) => r.third_party_access)).toEqual([null, 'including_third_party']);
  });

  it('sends one confirmation email the first time an application connects to a workspace', async () => {
    await addMember(h.pool, 'confirm@acme.test', 'Confirmed');
    const person = new Person(h, 'confirm@acme.test');
    await connect(person, client);
    await connect(person, client);
    const mails = h.mail.filter((m) => m.to === 'confirm@acme.test' && m.kind === 'connection-confirmation');
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toBe('An application was connected to your Loupe workspace');
    expect(mails[0]!.text).toContain('Permissions:');
    expect(mails[0]!.text).toContain('Workspace:    Confirmed');
    expect(mails[0]!.text).toMatch(/Connected applications in your account/); // no reply domain configured here
    expect(mails[0]!.replyTo).toBeUndefined();
  });
});

describe('page security', () => {
  it('every page carries CSP frame-ancestors none, X-Frame-Options DENY, and no-store', async () => {
    const person = new Person(h, 'headers@acme.test');
    const page = await firstPage(person);
    const res = await person.get(`/oauth/interaction/${page.uid}`);
    expect(res.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(res.headers.get('x-frame-options')).toBe('DENY');
    expect(res.headers.get('cache-control')).toContain('no-store');
  });

  it('a consent POST without the CSRF token, or with another interaction\'s token, is refused', async () => {
    await addMember(h.pool, 'csrf@acme.test', 'Guarded');
    const person = new Person(h, 'csrf@acme.test');
    let page = await firstPage(person);
    const signedIn = await person.signIn(page.uid, page.html);
    expect(signedIn.html).toContain('Approve');
    const workspace = /name="workspace" value="([^"]+)"/.exec(signedIn.html)![1]!;
    const forged = await person.post(`/oauth/interaction/${page.uid}/consent`, { workspace, decision: 'approve' });
    expect(forged.status).toBe(403);
    expect(forged.headers.get('location')).toBeNull();
    const other = await firstPage(person);
    const crossed = await person.post(`/oauth/interaction/${page.uid}/consent`, { _csrf: csrfOf(other.html), workspace, decision: 'approve' });
    expect(crossed.status).toBe(403);
    page = other;
  });

  it('behind https (a TLS-terminating proxy) every cookie is Secure, and ours carry the __Host- prefix', async () => {
    const behindTls = await startAuthServer({ publicUrl: 'https://auth.example.test' });
    try {
      const registered = (await registerClient(behindTls.url)).body as Client;
      const headers = { 'x-forwarded-proto': 'https' };
      const start = await fetch(`${behindTls.url}${authorizeUrl(registered).path}`, { redirect: 'manual', headers });
      expect(start.status).toBe(303);
      const jar = start.headers.getSetCookie().map((c) => c.split(';')[0]).join('; ');
      const page = await fetch(`${behindTls.url}${start.headers.get('location')}`, { headers: { ...headers, cookie: jar } });
      expect(page.status).toBe(200);
      const cookies = [...start.headers.getSetCookie(), ...page.headers.getSetCookie()];
      expect(cookies.some((c) => c.startsWith('__Host-loupe_csrf='))).toBe(true);
      for (const c of cookies) expect(c.toLowerCase()).toMatch(/;\s*secure/);
      expect(page.headers.get('strict-transport-security')).toContain('max-age=');
    } finally {
      await behindTls.close();
    }
  });

  it('session and CSRF cookies are HttpOnly and SameSite', async () => {
    const person = new Person(h, 'cookies@acme.test');
    const start = await person.get(authorizeUrl(client).path);
    const page = await person.get(start.headers.get('location')!);
    const cookies = [...start.headers.getSetCookie(), ...page.headers.getSetCookie()];
    expect(cookies.length).toBeGreaterThan(0);
    for (const c of cookies) {
      expect(c.toLowerCase()).toContain('httponly');
      expect(c.toLowerCase()).toContain('samesite=lax');
    }
  });
});
