import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Person, startAuthServer, type AuthHarness } from './test/harness';

// The console's sign-in page (the console itself is the web app, which sends signed-out people here).
let h: AuthHarness;
beforeAll(async () => {
  h = await startAuthServer();
});
afterAll(() => h.close());

describe("the console's sign-in page", () => {
  it('goes back only to our own pages after sign-in', async () => {
    const visitor = new Person(h, 'visitor@acct.test');
    const page = await (await visitor.get('/account/sign-in?return_to=https://evil.test/')).text();
    expect(page).toContain('name="return_to" value="/account"');
  });

  it('offers the configured identity providers on its sign-in page, coming back to the account pages', async () => {
    const other = await startAuthServer({ identityProviders: [{ id: 'corp', name: 'Corp SSO', issuer: 'https://idp.example', clientId: 'c', clientSecret: 's', scopes: 'openid email' }] });
    try {
      const page = await (await fetch(`${other.url}/account/sign-in?return_to=/account/w/ws_1/keys`)).text();
      expect(page).toContain('Continue with Corp SSO');
      expect(page).toContain('href="/auth/idp/corp/start?return_to=%2Faccount%2Fw%2Fws_1%2Fkeys"');
    } finally {
      await other.close();
    }
    expect(await (await fetch(`${h.url}/account/sign-in`)).text()).not.toContain('Continue with');
  });

  it('signs a person in with an emailed code and sends them back where they were going', async () => {
    const person = new Person(h, 'returning@acct.test');
    const page = await (await person.get('/account/sign-in?return_to=%2Faccount%2Fw%2Fws_x%2Fkeys')).text();
    expect(page).toContain('name="return_to" value="/account/w/ws_x/keys"');
    const sent = h.mail.length;
    const csrf = /name="_csrf" value="([^"]+)"/.exec(page)![1]!;
    const codePage = await (await person.post('/account/sign-in', { _csrf: csrf, email: person.email, return_to: '/account/w/ws_x/keys' })).text();
    const mail = h.mail.slice(sent).find((m) => m.to === person.email)!;
    const code = /\b(\d{3})[ -]?(\d{3})\b/.exec(mail.text)!.slice(1).join('');
    const done = await person.post('/account/sign-in/code', { _csrf: /name="_csrf" value="([^"]+)"/.exec(codePage)?.[1] ?? csrf, email: person.email, code, return_to: '/account/w/ws_x/keys' });
    expect([done.status, done.headers.get('location')]).toEqual([303, '/account/w/ws_x/keys']);
    expect(person.jar.has('loupe_session')).toBe(true);
  });
});
