import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, keyboardReachable, launchChromium, openPage, saveScreenshot, type Browser } from '@loupe/browser-testing';
import type { IdentityProviderConfig } from '@loupe/config';
import { safeReturnTo } from './identity-providers';
import { addMember, csrfOf, Person, registerClient, startAuthServer, uidOf, type AuthHarness } from './test/harness';
import { authorizeUrl, type Client } from './test/flow';
import { startTestIdp, type TestIdp } from './test/test-idp';

let idp: TestIdp;
let h: AuthHarness;
let client: Client;
let provider: IdentityProviderConfig;

beforeAll(async () => {
  idp = await startTestIdp({
    ada: { email: 'Ada@Acme.test', email_verified: true, name: 'Ada Lovelace' },
    grace: { email: 'grace@acme.test', email_verified: true, name: 'Grace Hopper' },
    eve: { email: 'victim@acme.test', email_verified: false, name: 'Eve' },
    quiet: { email: 'quiet@acme.test', email_verified: true, emailOnlyInUserinfo: true },
    nomail: { name: 'No Mail' },
    chromium: { email: 'chromium@acme.test', email_verified: true, name: 'Chromium Person' },
  });
  provider = { id: 'testidp', name: 'Test IdP', issuer: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, scopes: 'openid email profile' };
  h = await startAuthServer({ fetchSettings: { allowLoopback: true }, identityProviders: [provider] });
  idp.start(`${h.url}/auth/idp/callback`);
  client = (await registerClient(h.url, { client_name: 'IdP Tests' })).body as Client;
});
afterAll(async () => {
  await h?.close();
  await idp?.close();
});

/** Follows redirects across both servers (the IdP and ours) until a page, or the MCP client's callback. */
async function go(person: Person, first: Response): Promise<{ res: Response; html: string; url: string }> {
  let res = first;
  let url = first.url;
  for (let i = 0; i < 15; i++) {
    const location = res.headers.get('location');
    if (res.status < 300 || res.status >= 400 || !location) return { res, html: await res.text(), url };
    url = new URL(location, url).toString();
    if (url.startsWith('http://127.0.0.1:9999/')) return { res, html: '', url };
    res = await person.get(url);
  }
  throw new Error('too many redirects');
}

async function signInPage(person: Person) {
  const page = await go(person, await person.get(authorizeUrl(client).path));
  expect(page.html, page.html.slice(0, 400)).toContain('Sign in to Loupe');
  return { uid: uidOf(page.url), ...page };
}

const buttonHref = (html: string, name: string) => {
  const m = new RegExp(`<a class="idp-button" href="([^"]+)">.*?Continue with ${name}</span></a>`).exec(html);
  return m?.[1]?.replace(/&amp;/g, '&');
};

/** Sign-in page → "Continue with Test IdP" → the IdP's login page → sign in as `account` → wherever that leads. */
async function viaIdp(person: Person, account: string) {
  const signin = await signInPage(person);
  const href = buttonHref(signin.html, 'Test IdP');
  expect(href).toBe(`/auth/idp/testidp/start?return_to=${encodeURIComponent(`/oauth/interaction/${signin.uid}`)}`);
  const login = await go(person, await person.get(href!));
  expect(login.url.startsWith(`${idp.issuer}/interaction/`)).toBe(true);
  const action = /action="([^"]+)"/.exec(login.html)![1]!;
  const done = await go(person, await person.post(new URL(action, idp.issuer).toString(), { account }));
  return { uid: signin.uid, ...done };
}

const linkOf = async (sub: string) =>
  (await h.pool.query('SELECT l.user_id, l.email, u.email AS user_email FROM identity_links l JOIN users u ON u.id = l.user_id WHERE provider = $1 AND subject = $2', ['testidp', sub])).rows[0];

describe('sign-in through an OpenID Connect identity provider (spec 5.2 rule 1)', () => {
  it('a new person signs in at the provider and comes back signed in, to create a workspace and connect', async () => {
    const person = new Person(h, 'ada@acme.test');
    const back = await viaIdp(person, 'ada');
    expect(back.url).toBe(`${h.url}/oauth/interaction/${back.uid}`);
    expect(back.html).toContain('Create your workspace');
    expect(person.jar.has('loupe_session')).toBe(true);
    expect(person.jar.has('loupe_idp')).toBe(false); // single use
    const link = await linkOf('ada');
    expect(link).toMatchObject({ email: 'ada@acme.test', user_email: 'ada@acme.test' });
    const { rows } = await h.pool.query('SELECT email_verified FROM users WHERE id = $1', [link.user_id]);
    expect(rows).toEqual([{ email_verified: true }]);

    // And the authorization carries on as after an email sign-in.
    const consent = await go(person, await person.post(`/oauth/interaction/${back.uid}/workspace`, { _csrf: csrfOf(back.html), name: 'Analytical Engines' }));
    expect(consent.html).toContain('Approve');
    const workspace = /name="workspace" value="([^"]+)"/.exec(consent.html)![1]!;
    const done = await go(person, await person.post(`/oauth/interaction/${back.uid}/consent`, { _csrf: csrfOf(consent.html), workspace, decision: 'approve' }));
    expect(new URL(done.url).searchParams.get('code')).toBeTruthy();
  });

  it('a second sign-in finds the same user by the link', async () => {
    const again = await viaIdp(new Person(h, 'ada@acme.test'), 'ada');
    expect(again.html).toContain('Connect IdP Tests to Analytical Engines?');
    const { rows } = await h.pool.query("SELECT count(*)::int AS n FROM users WHERE email = 'ada@acme.test'");
    expect(rows[0].n).toBe(1);
  });

  it('a verified email is linked to the existing email-code account', async () => {
    const { userId } = await addMember(h.pool, 'grace@acme.test', 'Compilers');
    const back = await viaIdp(new Person(h, 'grace@acme.test'), 'grace');
    expect(back.html).toContain('Connect IdP Tests to Compilers?');
    expect((await linkOf('grace')).user_id).toBe(userId);
  });

  it('an unverified email is refused and does not link to the account with that address', async () => {
    const { userId } = await addMember(h.pool, 'victim@acme.test', 'Victim team');
    const person = new Person(h, 'victim@acme.test');
    const back = await viaIdp(person, 'eve');
    expect(back.res.status).toBe(403);
    expect(back.html).toContain('Your email address is not verified');
    expect(back.html).toContain('email_not_verified');
    expect(back.html).toContain(`href="/oauth/interaction/${back.uid}"`); // the way back to the sign-in page
    expect(person.jar.has('loupe_session')).toBe(false);
    expect(await linkOf('eve')).toBeUndefined();
    const { rows } = await h.pool.query('SELECT count(*)::int AS n FROM identity_links WHERE user_id = $1', [userId]);
    expect(rows[0].n).toBe(0);
  });

  it('reads the email from userinfo when the ID token has none, and refuses a person without email', async () => {
    const quiet = await viaIdp(new Person(h, 'quiet@acme.test'), 'quiet');
    expect(quiet.html).toContain('Create your workspace');
    expect((await linkOf('quiet')).user_email).toBe('quiet@acme.test');
    const nomail = await viaIdp(new Person(h, 'nomail@acme.test'), 'nomail');
    expect(nomail.res.status).toBe(403);
    expect(nomail.html).toContain('did not share your email address');
  });

  it('cancelling at the provider shows the way back', async () => {
    const back = await viaIdp(new Person(h, 'cancel@acme.test'), 'cancel');
    expect(back.res.status).toBe(403);
    expect(back.html).toContain('You did not sign in with Test IdP');
    expect(back.html).toContain('Back to sign-in');
  });

  it('a tampered state or state cookie is refused', async () => {
    const person = new Person(h, 'mallory@acme.test');
    const signin = await signInPage(person);
    const start = await person.get(buttonHref(signin.html, 'Test IdP')!);
    expect(start.status).toBe(303);
    const toIdp = new URL(start.headers.get('location')!);
    expect(toIdp.origin).toBe(idp.issuer);
    expect(toIdp.searchParams.get('code_challenge_method')).toBe('S256');
    expect(toIdp.searchParams.get('nonce')).toBeTruthy();
    expect(toIdp.searchParams.get('redirect_uri')).toBe(`${h.url}/auth/idp/callback`);
    const setCookie = start.headers.getSetCookie().find((c) => c.startsWith('loupe_idp='))!;
    expect(setCookie).toMatch(/HttpOnly/i);
    expect(setCookie).toMatch(/Max-Age=600/);

    const wrongState = await person.get(`/auth/idp/callback?code=anything&state=${toIdp.searchParams.get('state')}x`);
    expect(wrongState.status).toBe(400);
    expect(await wrongState.text()).toContain('idp_state_mismatch');
    expect(person.jar.has('loupe_session')).toBe(false);

    // The cookie was used up; a forged one does not open.
    const forged = await fetch(`${h.url}/auth/idp/callback?code=x&state=${toIdp.searchParams.get('state')}`, { headers: { cookie: 'loupe_idp=AAAAAAAAAAAAAAAA.AAAA.AAAAAAAAAAAAAAAAAAAAAA' }, redirect: 'manual' });
    expect(forged.status).toBe(400);
    expect(await forged.text()).toContain('idp_state_missing');
  });

  it('return_to only goes to our interaction and account pages', () => {
    expect(safeReturnTo('/oauth/interaction/abc')).toBe('/oauth/interaction/abc');
    expect(safeReturnTo('/account')).toBe('/account');
    expect(safeReturnTo('/account/keys?x=1')).toBe('/account/keys?x=1');
    for (const bad of ['https://evil.example/oauth/interaction/x', '//evil.example/account', '/\\evil.example', '/oauth/interaction/../../evil', '/oauth/token', '/accounts', 'account', undefined, ['/account']]) {
      expect(safeReturnTo(bad)).toBe('/account');
    }
  });
});

describe('without working providers', () => {
  let bare: AuthHarness;
  let down: AuthHarness;
  beforeAll(async () => {
    [bare, down] = await Promise.all([
      startAuthServer(),
      startAuthServer({ fetchSettings: { allowLoopback: true }, identityProviders: [{ ...provider, id: 'down', name: 'Down IdP', issuer: 'http://127.0.0.1:1' }] }),
    ]);
  });
  afterAll(async () => {
    await Promise.all([bare?.close(), down?.close()]);
  });

  it('shows no provider button when none is configured, and the start link is unknown', async () => {
    const c = (await registerClient(bare.url)).body as Client;
    const person = new Person(bare, 'plain@acme.test');
    const page = await person.follow(await person.get(authorizeUrl(c).path));
    expect(page.html).toContain('Email me a code');
    expect(page.html).not.toContain('Continue with');
    expect(page.html).not.toContain('or-separator');
    const start = await person.get('/auth/idp/testidp/start?return_to=/account');
    expect(start.status).toBe(404);
  });

  it('a provider that cannot be reached gives a clear error with the way back', async () => {
    const c = (await registerClient(down.url)).body as Client;
    const person = new Person(down, 'plain@acme.test');
    const page = await person.follow(await person.get(authorizeUrl(c).path));
    const uid = uidOf(page.res.url);
    const start = await person.get(buttonHref(page.html, 'Down IdP')!);
    expect(start.status).toBe(502);
    const html = await start.text();
    expect(html).toContain('Down IdP cannot be reached');
    expect(html).toContain(`href="/oauth/interaction/${uid}"`);
  });
});

describe('in Chromium', () => {
  let browser: Browser;
  beforeAll(async () => {
    browser = await launchChromium();
  }, 180_000);
  afterAll(() => browser?.close());

  it('"Continue with Test IdP" signs in at the provider and lands back on the authorization', async () => {
    const page = await openPage(browser);
    try {
      const start = authorizeUrl(client);
      await page.goto(`${h.url}${start.path}`);
      await page.getByRole('heading', { name: 'Sign in to Loupe' }).waitFor();
      await saveScreenshot(page, 'signin-with-providers');
      const serious = (await accessibilityViolations(page)).filter((v) => v.impact === 'serious' || v.impact === 'critical');
      expect(serious).toEqual([]);
      expect(await keyboardReachable(page, ['Continue with Test IdP', 'Email me a code'])).toEqual(['Continue with Test IdP', 'Email me a code']);

      await page.getByRole('link', { name: 'Continue with Test IdP' }).click();
      await page.waitForURL(`${idp.issuer}/interaction/**`);
      await page.getByRole('button', { name: 'Sign in as Chromium Person' }).click();
      await page.waitForURL(`${h.url}/oauth/interaction/**`);
      await page.getByRole('heading', { name: 'Create your workspace' }).waitFor();
      await saveScreenshot(page, 'signin-with-providers-landing');
      expect((await linkOf('chromium')).user_email).toBe('chromium@acme.test');

      // An error on the way shows the error page with the way back.
      const uid = uidOf(page.url());
      await page.goto(`${h.url}/auth/idp/nope/start?return_to=${encodeURIComponent(`/oauth/interaction/${uid}`)}`);
      await page.getByRole('link', { name: 'Back to sign-in' }).click();
      await page.getByRole('heading', { name: 'Create your workspace' }).waitFor();
      await page.goBack();
      await saveScreenshot(page, 'signin-with-providers-error');
    } finally {
      await page.context().close();
    }
  });
});
