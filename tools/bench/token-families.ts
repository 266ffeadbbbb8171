/**
 * Refresh-token families for bench:token, obtained the way a client obtains them: the authorization
 * code flow with PKCE over HTTP (authorize, the server's pages, code exchange), by a browser without
 * JavaScript that keeps cookies, follows same-origin redirects and submits the page's form.
 */
import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';

export interface OAuthClient {
  client_id: string;
  redirect_uri: string;
}

/** One connection: its client and its newest tokens. `uses` counts the refreshes made with it. */
export interface Family {
  client: OAuthClient;
  refreshToken: string;
  accessToken: string;
  uses: number;
}

export const BENCH_REDIRECT_URI = 'http://127.0.0.1:9/callback'; // never followed: the code is read from the Location

/** Fields to post for a page of the authorization (its form's action and HTML), beyond the form's hidden inputs. */
export type FillForm = (action: string, html: string) => Promise<Record<string, string>>;

class FormBrowser {
  private cookies = new Map<string, string>();
  constructor(private readonly base: string, private readonly headers: Record<string, string>) {}

  async send(url: string, form?: Record<string, string>): Promise<Response> {
    const res = await fetch(new URL(url, this.base), {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: {
        ...this.headers,
        cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; '),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
      },
      body: form ? new URLSearchParams(form) : undefined,
    });
    for (const line of res.headers.getSetCookie()) {
      const pair = line.split(';')[0]!;
      const eq = pair.indexOf('=');
      const value = pair.slice(eq + 1).trim();
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(pair.slice(0, eq).trim());
      else this.cookies.set(pair.slice(0, eq).trim(), value);
    }
    return res;
  }

  /** Runs an authorization from its URL to the redirect back to the client: the `code` it carries. */
  async authorize(url: string, fill: FillForm): Promise<string> {
    let res = await this.send(url);
    for (let step = 0; step < 20; step++) {
      const location = res.headers.get('location');
      if (res.status >= 300 && res.status < 400 && location) {
        const next = new URL(location, this.base);
        await res.arrayBuffer();
        if (next.origin !== new URL(this.base).origin) {
          const code = next.searchParams.get('code');
          if (!code) throw new Error(`the authorization ended without a code: ${next}`);
          return code;
        }
        res = await this.send(next.toString());
        continue;
      }
      const html = await res.text();
      if (res.status !== 200) throw new Error(`authorization page answered ${res.status}: ${html.slice(0, 300)}`);
      const form = pageForm(html);
      if (!form) throw new Error(`a page of the authorization has no form to submit: ${html.slice(0, 300)}`);
      res = await this.send(form.action, { ...form.hidden, ...(await fill(form.action, html)) });
    }
    throw new Error('the authorization did not end in 20 steps');
  }
}

/** The page's main POST form (not the sign-out one) and its hidden inputs. */
function pageForm(html: string): { action: string; hidden: Record<string, string> } | undefined {
  for (const m of html.matchAll(/<form method="post" action="([^"]+)">([\s\S]*?)<\/form>/g)) {
    const action = m[1]!.replaceAll('&amp;', '&');
    if (action.endsWith('/signout')) continue;
    const hidden: Record<string, string> = {};
    for (const input of m[2]!.matchAll(/<input type="hidden" name="([^"]+)" value="([^"]*)">/g)) hidden[input[1]!] = input[2]!.replaceAll('&amp;', '&');
    return { action, hidden };
  }
  return undefined;
}

function authorizationQuery(client: OAuthClient, scope: string) {
  const verifier = randomBytes(32).toString('base64url');
  const params = new URLSearchParams({
    response_type: 'code', client_id: client.client_id, redirect_uri: client.redirect_uri, scope, state: randomBytes(8).toString('hex'),
    code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  });
  return { query: params.toString(), verifier };
}

async function exchange(tokenUrl: string, client: OAuthClient, code: string, verifier: string, headers: Record<string, string>): Promise<Family> {
  const res = await fetch(tokenUrl, {
    method: 'POST',
    headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: client.redirect_uri, client_id: client.client_id, code_verifier: verifier }),
  });
  const body = (await res.json()) as { access_token?: string; refresh_token?: string };
  if (res.status !== 200 || !body.refresh_token || !body.access_token) throw new Error(`code exchange answered ${res.status}: ${JSON.stringify(body)}`);
  return { client, refreshToken: body.refresh_token, accessToken: body.access_token, uses: 0 };
}

/** Runs `count` jobs on `parallel` workers, in index order. */
async function inParallel<T>(count: number, parallel: number, job: (i: number, worker: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(count);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(parallel, count) }, async (_, worker) => {
    while (next < count) {
      const i = next++;
      out[i] = await job(i, worker);
    }
  }));
  return out;
}

/**
 * Families from `npm start`'s service, within its OAuth limits (spec 8.1): dynamic registration is
 * 10 an hour per IP and code exchange 20 an hour per client and IP, so every 20 families get a new
 * client and every 10 clients a new registering address (X-Forwarded-For: loopback is a trusted proxy
 * by default, as it is for a service behind a proxy). Each of `people` signs in once by the code mailed
 * to the local outbox, creates a workspace on the page, then approves one connection after another.
 */
export function loupeFamilySupplier(base: string, pool: pg.Pool, scope: string, people = 4) {
  const clients = new Map<number, Promise<OAuthClient>>();
  const clientFor = (k: number) => {
    if (!clients.has(k)) {
      clients.set(k, (async () => {
        const res = await fetch(`${base}/oauth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-forwarded-for': `10.78.${Math.floor(k / 2500)}.${Math.floor((k % 2500) / 10) + 1}` },
          body: JSON.stringify({ client_name: `Bench client ${k}`, redirect_uris: [BENCH_REDIRECT_URI], token_endpoint_auth_method: 'none' }),
        });
        const body = (await res.json()) as { client_id?: string };
        if (res.status !== 201 || !body.client_id) throw new Error(`registration answered ${res.status}: ${JSON.stringify(body)}`);
        return { client_id: body.client_id, redirect_uri: BENCH_REDIRECT_URI };
      })());
    }
    return clients.get(k)!;
  };
  const run = randomBytes(3).toString('hex');
  const browsers = Array.from({ length: people }, (_, p) => ({
    email: `bench-${run}-${p}@bench.test`,
    browser: new FormBrowser(base, { 'x-forwarded-for': `10.77.0.${p + 1}` }),
  }));
  const fillFor = (email: string): FillForm => async (action, html): Promise<Record<string, string>> => {
    if (action.endsWith('/email')) return { email };
    if (action.endsWith('/code')) return { email, code: await mailedCode(pool, email) };
    if (action.endsWith('/workspace')) return { name: `Bench ${email}` };
    if (action.endsWith('/consent')) return { decision: 'approve' };
    throw new Error(`unexpected page with a form to ${action}: ${html.slice(0, 200)}`);
  };
  let made = 0;
  return {
    /** `count` more families, each from a fresh authorization. */
    async more(count: number): Promise<Family[]> {
      const first = made;
      made += count;
      return inParallel(count, people, async (i, worker) => {
        const client = await clientFor(Math.floor((first + i) / 20));
        const { email, browser } = browsers[worker]!;
        const { query, verifier } = authorizationQuery(client, scope);
        const code = await browser.authorize(`/oauth/authorize?${query}`, fillFor(email));
        return exchange(`${base}/oauth/token`, client, code, verifier, { 'x-forwarded-for': '10.79.0.1' });
      });
    },
  };
}

/** The newest sign-in code mailed to `email` (the local outbox: `mail_outbox`). */
async function mailedCode(pool: pg.Pool, email: string): Promise<string> {
  for (let i = 0; i < 100; i++) {
    const { rows } = await pool.query<{ text_body: string }>(
      `SELECT text_body FROM mail_outbox WHERE to_address = $1 AND kind = 'sign-in-code' ORDER BY created_at DESC LIMIT 1`,
      [email.toLowerCase()],
    );
    const m = rows[0] && /\b(\d{3})[ -]?(\d{3})\b/.exec(rows[0].text_body);
    if (m) return `${m[1]}${m[2]}`;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`no sign-in code mailed to ${email}`);
}

/** Families from the baseline provider: its interaction route signs in and consents on a GET, so the flow is redirects only. */
export function bareFamilySupplier(base: string, client: OAuthClient, scope: string, parallel = 4) {
  const browsers = Array.from({ length: parallel }, () => new FormBrowser(base, {}));
  const noForms: FillForm = async (action) => {
    throw new Error(`the baseline showed a page with a form to ${action}`);
  };
  return {
    async more(count: number): Promise<Family[]> {
      return inParallel(count, parallel, async (_i, worker) => {
        const { query, verifier } = authorizationQuery(client, scope);
        const code = await browsers[worker]!.authorize(`/auth?${query}`, noForms);
        return exchange(`${base}/token`, client, code, verifier, {});
      });
    },
  };
}
