import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { newId } from '@loupe/db';
import { appShell, createLogger, createPerIpLimiter, listen, systemClock, type Listening } from '@loupe/http';
import type { SafeFetchSettings } from '@loupe/safe-fetch';
import type { IdentityProviderConfig } from '@loupe/config';
import { createAuthApp } from '../app';
import { OAUTH_TOKEN_PATH } from '../rate-limits';
import { csrfOf, FormBrowser } from '@loupe/browser-testing';


export interface SentMail { to: string; subject: string; text: string; html?: string; kind: string; replyTo?: string; messageId?: string }

export interface AuthHarness {
  url: string;
  t: TestDatabase;
  pool: pg.Pool;
  mail: SentMail[];
  close(): Promise<void>;
}

/** The authorization server on a loopback port, on a fresh database, with a mailer that keeps what it sends. */
export async function startAuthServer(
  options: {
    fetchSettings?: SafeFetchSettings; publicUrl?: string; identityProviders?: IdentityProviderConfig[]; replies?: { domain: string; webhookSecret?: string };
    /** Another instance on this database (closing it leaves the database open). */
    database?: TestDatabase;
  } = {},
): Promise<AuthHarness> {
  const t = options.database ?? (await createTestDatabase());
  const mail: SentMail[] = [];
  const log = createLogger('silent');
  let url = '';
  // As deployed: the service-wide per-IP limit in front of the authorization server.
  const app = appShell(log, (a) => {
    a.use(createAuthApp({
      pool: t.pool, db: t.db, clock: systemClock, log, baseUrl: () => options.publicUrl ?? url, servicePrefix: 'loupe_',
      mailer: { send: async (m) => void mail.push(m) },
      fetchSettings: options.fetchSettings,
      identityProviders: options.identityProviders,
      replies: options.replies,
    }));
  }, { perIp: createPerIpLimiter(t.pool, systemClock), perIpDeferredPaths: [OAUTH_TOKEN_PATH] });
  const server: Listening = await listen(app, 0, '127.0.0.1', { requestTimeoutMs: 30_000 });
  url = `http://127.0.0.1:${server.port}`;
  return {
    url, t, pool: t.pool, mail,
    async close() {
      await server.close(0);
      if (!options.database) await t.close();
    },
  };
}

export function pkce() {
  const verifier = randomBytes(32).toString('base64url');
  const challenge = createHash('sha256').update(verifier).digest('base64url');
  return { verifier, challenge };
}

export { csrfOf };
export const codeIn = (text: string) => /\b(\d{3})[ -]?(\d{3})\b/.exec(text)!.slice(1).join('');

export async function registerClient(url: string, metadata: Record<string, unknown> = {}) {
  const res = await fetch(`${url}/oauth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_name: 'Test Client', redirect_uris: ['http://127.0.0.1:9999/callback'], ...metadata }),
  });
  return { status: res.status, body: (await res.json()) as Record<string, any> };
}

/** A person in a browser without JavaScript: follows redirects by hand, keeps cookies, reads pages. */
export class Person extends FormBrowser {
  constructor(readonly h: AuthHarness, readonly email: string) {
    super(h);
  }

  /** Follows same-host redirects until a page or a redirect to another host (the client's callback). */
  async follow(res: Response): Promise<{ res: Response; html: string; location?: string }> {
    let current = res;
    for (let i = 0; i < 10; i++) {
      const location = current.headers.get('location');
      if (current.status < 300 || current.status >= 400 || !location) return { res: current, html: await current.text() };
      const next = new URL(location, this.h.url);
      if (next.origin !== new URL(this.h.url).origin) return { res: current, html: '', location: next.toString() };
      current = await this.get(next.toString());
    }
    throw new Error('too many redirects');
  }

  /** Signs in by email on the interaction page `html` belongs to; returns the next page. */
  async signIn(uid: string, html: string) {
    const sentBefore = this.h.mail.length;
    const codePage = await this.post(`/oauth/interaction/${uid}/email`, { _csrf: csrfOf(html), email: this.email });
    const codeHtml = await codePage.text();
    const mail = this.h.mail.slice(sentBefore).find((m) => m.to === this.email.toLowerCase() && m.kind === 'sign-in-code');
    if (!mail) throw new Error(`no sign-in code mailed to ${this.email}: ${codeHtml.slice(0, 500)}`);
    return this.follow(await this.post(`/oauth/interaction/${uid}/code`, { _csrf: csrfOf(codeHtml), email: this.email, code: codeIn(mail.text) }));
  }
}

export const uidOf = (pathOrUrl: string) => /\/oauth\/interaction\/([^/?]+)/.exec(pathOrUrl)![1]!;

export async function addMember(pool: pg.Pool, email: string, workspaceName: string, role = 'owner') {
  const workspaceId = newId('ws');
  await pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [workspaceId, workspaceName]);
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO users (id, email, email_verified) VALUES ($1, $2, true)
     ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email RETURNING id`,
    [newId('usr'), email.toLowerCase()],
  );
  await pool.query('INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)', [workspaceId, rows[0]!.id, role]);
  return { workspaceId, userId: rows[0]!.id };
}

export { systemClock };

/** Signs `person` in on the console's sign-in page with the emailed code. */
export async function signInToAccount(h: AuthHarness, person: Person): Promise<void> {
  const page = await (await person.get('/account/sign-in')).text();
  const sent = h.mail.length;
  await person.post('/account/sign-in', { _csrf: csrfOf(page), email: person.email, return_to: '/account' });
  const mail = h.mail.slice(sent).find((m) => m.to === person.email)!;
  const codePage = await (await person.get('/account/sign-in')).text(); // a fresh token for the code form
  const res = await person.post('/account/sign-in/code', { _csrf: csrfOf(codePage) || csrfOf(page), email: person.email, code: codeIn(mail.text), return_to: '/account' });
  if (res.status !== 303) throw new Error(`sign-in of ${person.email} answered ${res.status}`);
}
