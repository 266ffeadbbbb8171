import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { CookieJar } from '@loupe/auth-server/testing';

/**
 * A person in a browser without JavaScript, against `npm start`: keeps cookies, follows same-host
 * redirects by hand, reads sign-in codes from the local outbox (the `mail_outbox` table). `ip` is sent
 * as X-Forwarded-For (loopback is a trusted proxy by default), so each person has their own per-IP limits.
 */
export class WebPerson {
  private jar = new CookieJar();
  constructor(readonly base: string, readonly pool: pg.Pool, readonly email: string, readonly ip = '10.9.0.1') {}

  cookieHeader() {
    return this.jar.header();
  }

  async get(pathOrUrl: string) {
    const res = await fetch(new URL(pathOrUrl, this.base), { redirect: 'manual', headers: { cookie: this.cookieHeader(), 'x-forwarded-for': this.ip } });
    this.jar.store(res);
    return res;
  }

  async post(path: string, form: Record<string, string>) {
    const res = await fetch(new URL(path, this.base), {
      method: 'POST',
      redirect: 'manual',
      headers: { cookie: this.cookieHeader(), 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': this.ip },
      body: new URLSearchParams(form),
    });
    this.jar.store(res);
    return res;
  }

  /** Follows same-host redirects until a page, or a redirect elsewhere (a client's callback). */
  async follow(res: Response): Promise<{ res: Response; html: string; location?: string }> {
    let current = res;
    for (let i = 0; i < 10; i++) {
      const location = current.headers.get('location');
      if (current.status < 300 || current.status >= 400 || !location) return { res: current, html: await current.text() };
      const next = new URL(location, this.base);
      if (next.origin !== new URL(this.base).origin) return { res: current, html: '', location: next.toString() };
      current = await this.get(next.toString());
    }
    throw new Error('too many redirects');
  }

  /** The newest sign-in code mailed to this person. */
  async latestCode(after: Date): Promise<string> {
    for (let i = 0; i < 50; i++) {
      const { rows } = await this.pool.query<{ text_body: string }>(
        `SELECT text_body FROM mail_outbox WHERE to_address = $1 AND kind = 'sign-in-code' AND created_at >= $2 ORDER BY created_at DESC LIMIT 1`,
        [this.email.toLowerCase(), after],
      );
      const m = rows[0] && /\b(\d{3})[ -]?(\d{3})\b/.exec(rows[0].text_body);
      if (m) return `${m[1]}${m[2]}`;
      await new Promise((r) => setTimeout(r, 100));
    }
    throw new Error(`no sign-in code mailed to ${this.email}`);
  }

  /** Signs in to the account pages by emailed code; returns the page reached. */
  async signInToAccount() {
    const page = await this.follow(await this.get('/account/sign-in'));
    const since = new Date(Date.now() - 1000);
    const codePage = await this.post('/account/sign-in', { _csrf: csrfOf(page.html), email: this.email, return_to: '/account' });
    const html = await codePage.text();
    if (codePage.status !== 200) throw new Error(`sign-in code not sent to ${this.email}: ${codePage.status} ${html.slice(0, 300)}`);
    return this.follow(await this.post('/account/sign-in/code', { _csrf: csrfOf(html), email: this.email, code: await this.latestCode(since), return_to: '/account' }));
  }

  /** A CSRF token of this person's session, from one of their pages. */
  async csrf(path = '/account') {
    return csrfOf((await this.follow(await this.get(path))).html);
  }

  /**
   * Authorizes `client` as this person (signing in on the authorization pages if needed), choosing
   * `workspaceId` and approving: the code the client receives, and its PKCE verifier.
   */
  async authorize(client: { client_id: string; redirect_uri: string }, workspaceId: string, scope = 'mcp:read mcp:write openid email') {
    const verifier = randomBytes(32).toString('base64url');
    const state = randomBytes(8).toString('hex');
    const params = new URLSearchParams({
      response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uri, state, scope,
      code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
    });
    let page = await this.follow(await this.get(`/oauth/authorize?${params}`));
    if (page.location) throw new Error(`authorize went back to the client at once: ${page.location}`);
    const uid = /\/oauth\/interaction\/([^/?]+)/.exec(page.res.url || '')?.[1] ?? /\/oauth\/interaction\/([^/"?]+)/.exec(page.html)![1]!;
    if (page.html.includes('Sign in to Loupe')) {
      const since = new Date(Date.now() - 1000);
      const codePage = await this.post(`/oauth/interaction/${uid}/email`, { _csrf: csrfOf(page.html), email: this.email });
      const html = await codePage.text();
      page = await this.follow(await this.post(`/oauth/interaction/${uid}/code`, { _csrf: csrfOf(html), email: this.email, code: await this.latestCode(since) }));
    }
    if (!page.html.includes('Approve') || !page.html.includes(`value="${workspaceId}"`)) {
      page = await this.follow(await this.get(`/oauth/interaction/${uid}?workspace=${workspaceId}`));
    }
    if (!page.html.includes('Approve')) throw new Error(`expected the consent page, got ${page.res.status}: ${page.html.slice(0, 500)}`);
    const done = await this.follow(await this.post(`/oauth/interaction/${uid}/consent`, { _csrf: csrfOf(page.html), workspace: workspaceId, decision: 'approve' }));
    if (!done.location) throw new Error(`consent did not return to the client: ${done.res.status} ${done.html.slice(0, 500)}`);
    return { code: new URL(done.location).searchParams.get('code') ?? '', verifier };
  }

  /** Authorizes `client` for `workspaceId` and exchanges the code: the token response. */
  async connect(client: { client_id: string; redirect_uri: string }, workspaceId: string, scope = 'mcp:read mcp:write openid email') {
    const { code, verifier } = await this.authorize(client, workspaceId, scope);
    const res = await exchangeCode(this.base, { grant_type: 'authorization_code', code, redirect_uri: client.redirect_uri, client_id: client.client_id, code_verifier: verifier }, this.ip);
    if (res.status !== 200) throw new Error(`code exchange failed: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { access_token: string; refresh_token: string; scope: string };
  }
}

/** A token request (form-encoded) from `ip`: its status and JSON body. */
export async function exchangeCode(base: string, form: Record<string, string>, ip = '10.9.0.253') {
  const res = await fetch(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
    body: new URLSearchParams(form),
  });
  const text = await res.text();
  return { status: res.status, text, body: JSON.parse(text) as Record<string, any> };
}

export const csrfOf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';

/** Registers a public client with one loopback redirect URI (the redirect is never followed). */
export async function registerClient(base: string, name: string, ip = '10.9.0.254') {
  const redirect_uri = 'http://127.0.0.1:9/callback';
  const res = await fetch(`${base}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-forwarded-for': ip },
    body: JSON.stringify({ client_name: name, redirect_uris: [redirect_uri], token_endpoint_auth_method: 'none' }),
  });
  const body = (await res.json()) as { client_id: string };
  if (res.status !== 201) throw new Error(`registration failed: ${res.status} ${JSON.stringify(body)}`);
  return { client_id: body.client_id, redirect_uri };
}
