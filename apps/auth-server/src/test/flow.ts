import { randomBytes } from 'node:crypto';
import { csrfOf, pkce, uidOf, type AuthHarness, type Person } from './harness';

export interface Client { client_id: string; redirect_uris: string[] }

export function authorizeUrl(client: Client, extra: Record<string, string | undefined> = {}) {
  const { verifier, challenge } = pkce();
  const state = randomBytes(8).toString('hex');
  const params: Record<string, string> = {
    response_type: 'code',
    client_id: client.client_id,
    redirect_uri: client.redirect_uris[0]!,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    state,
  };
  for (const [k, v] of Object.entries(extra)) {
    if (v === undefined) delete params[k];
    else params[k] = v;
  }
  return { path: `/oauth/authorize?${new URLSearchParams(params)}`, verifier, state, redirectUri: params.redirect_uri! };
}

export interface Connected { code: string; state: string; verifier: string; redirectUri: string; callback: URL; consentHtml: string }

/**
 * Walks an authorization like a person: sign in if needed, create or choose the workspace, approve
 * (or deny). Returns the callback the client receives.
 */
export async function connect(
  person: Person,
  client: Client,
  options: { workspaceName?: string; chooseWorkspace?: string; decision?: 'approve' | 'deny'; extra?: Record<string, string | undefined>; thirdParty?: string; beforeConsent?: () => Promise<void> } = {},
): Promise<Connected> {
  const start = authorizeUrl(client, options.extra);
  let page = await person.follow(await person.get(start.path));
  if (page.location) throw new Error(`authorize redirected to the client at once: ${page.location}`);
  const uid = uidOf(page.res.url);
  if (page.html.includes('Sign in to Loupe')) page = await person.signIn(uid, page.html);
  if (page.html.includes('Create your workspace')) {
    page = await person.follow(await person.post(`/oauth/interaction/${uid}/workspace`, { _csrf: csrfOf(page.html), name: options.workspaceName ?? 'Acme' }));
  }
  if (page.html.includes('Choose a workspace')) {
    const id = options.chooseWorkspace ?? /name="workspace" value="([^"]+)"/.exec(page.html)![1]!;
    page = await person.follow(await person.get(`/oauth/interaction/${uid}?workspace=${id}`));
  }
  if (!page.html.includes('Approve')) throw new Error(`expected the consent page, got ${page.res.status}: ${page.html.slice(0, 800)}`);
  const workspace = /name="workspace" value="([^"]+)"/.exec(page.html)![1]!;
  const form: Record<string, string> = { _csrf: csrfOf(page.html), workspace, decision: options.decision ?? 'approve' };
  if (options.thirdParty) form.third_party = options.thirdParty;
  await options.beforeConsent?.();
  const done = await person.follow(await person.post(`/oauth/interaction/${uid}/consent`, form));
  if (!done.location) throw new Error(`consent did not return to the client: ${done.res.status} ${done.html.slice(0, 800)}`);
  const callback = new URL(done.location);
  return { code: callback.searchParams.get('code') ?? '', state: start.state, verifier: start.verifier, redirectUri: start.redirectUri, callback, consentHtml: page.html };
}

export async function tokenRequest(h: AuthHarness, form: Record<string, string>) {
  const res = await fetch(`${h.url}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(form),
  });
  return { status: res.status, headers: res.headers, body: (await res.json()) as Record<string, any> };
}

export async function exchange(h: AuthHarness, client: Client, c: Connected) {
  return tokenRequest(h, { grant_type: 'authorization_code', code: c.code, redirect_uri: c.redirectUri, client_id: client.client_id, code_verifier: c.verifier });
}

export async function refresh(h: AuthHarness, client: Client, refreshToken: string) {
  return tokenRequest(h, { grant_type: 'refresh_token', refresh_token: refreshToken, client_id: client.client_id });
}

export async function userinfo(h: AuthHarness, accessToken: string) {
  const res = await fetch(`${h.url}/oauth/userinfo`, { headers: { authorization: `Bearer ${accessToken}` } });
  return { status: res.status, body: (await res.json().catch(() => ({}))) as Record<string, any>, headers: res.headers };
}
