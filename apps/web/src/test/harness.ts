import os from 'node:os';
import path from 'node:path';
import express from 'express';
import type pg from 'pg';
import { createAccounts } from '@loupe/accounts';
import { csrfOf, FormBrowser } from '@loupe/browser-testing';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { appShell, createLogger, createPerIpLimiter, listen, systemClock, type Listening } from '@loupe/http';
import type { Boss } from '@loupe/jobs';
import type { SemanticSearch } from '@loupe/sources';
import { createLocalStorage, type Storage } from '@loupe/storage';
import { createSessionMiddleware, loadWebSecrets, signIn, type SessionRuntime } from '@loupe/web-pages';
import { createWebApp } from '../app';


export interface SentMail { to: string; subject: string; text: string; html?: string; kind: string }

export interface WebHarness {
  url: string;
  t: TestDatabase;
  pool: pg.Pool;
  mail: SentMail[];
  close(): Promise<void>;
}

/** Where the harness signs a person in (the sign-in page is the authorization server's, not this app's). */
const TEST_SIGN_IN_PATH = '/test/sign-in';

/**
 * The console on a loopback port, on a fresh database, with a mailer that keeps what it sends, and a
 * test-only route that signs a person in with the web session every app shares.
 */
export async function startWebServer(
  options: {
    /** Another instance on this database (closing it leaves the database open). */
    database?: TestDatabase;
    /** What the evidence pages call to bring a product's opportunities up to date after an edit. */
    scheduleRecompute?: (workspaceId: string, productId: string) => Promise<void>;
    /** The job queue of the Privacy page's erasures. */
    boss?: Boss;
    /** The index of meaning the sources page fuses with the words (npm start passes the MCP server's). */
    semanticSearch?: SemanticSearch;
    /** Where attachment files are (a shared temporary directory by default). */
    storage?: Storage;
    /** The largest file the File import page takes. */
    importMaxBytes?: number;
    /** The inbound mail domain: the Email forwarding page shows addresses there (off without it). */
    inboundMailDomain?: string;
  } = {},
): Promise<WebHarness> {
  const t = options.database ?? (await createTestDatabase());
  const mail: SentMail[] = [];
  const log = createLogger('silent');
  const mailer = { send: async (m: SentMail) => void mail.push(m) };
  let url = '';
  let sessions: Promise<SessionRuntime> | undefined;
  const sessionRuntime = () => (sessions ??= loadWebSecrets(t.pool).then(({ sessionSecret, signInCodeSecret }) => ({
    secure: false,
    session: createSessionMiddleware({ pool: t.pool, secret: sessionSecret, secure: false, log }),
    accounts: createAccounts({ pool: t.pool, clock: systemClock, mailer, codeSecret: signInCodeSecret }),
  })));
  const app = appShell(log, (a) => {
    a.post(TEST_SIGN_IN_PATH, express.urlencoded({ extended: false }), (req, res, next) => {
      sessionRuntime().then((rt) => signIn(rt, req, res, String(req.body.userId))).then(() => res.redirect(303, '/account'), next);
    });
    a.use(createWebApp({
      pool: t.pool, db: t.db, clock: systemClock, log, baseUrl: () => url, servicePrefix: 'loupe_', mailer,
      scheduleRecompute: options.scheduleRecompute,
      boss: options.boss,
      ...(options.semanticSearch ? { semanticSearch: options.semanticSearch } : {}),
      storage: options.storage ?? createLocalStorage(path.join(os.tmpdir(), 'loupe-web-harness-storage')),
      ...(options.importMaxBytes ? { importMaxBytes: options.importMaxBytes } : {}),
      ...(options.inboundMailDomain ? { inboundMailDomain: options.inboundMailDomain } : {}),
    }));
  }, { perIp: createPerIpLimiter(t.pool, systemClock) });
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

export { csrfOf };

/** A person in a browser without JavaScript: follows redirects by hand, keeps cookies, reads pages. */
export class Person extends FormBrowser {
  constructor(readonly h: WebHarness, readonly email: string) {
    super(h);
  }
}

/**
 * Signs `person` in (their account is made on first sign-in, as an emailed code would): a new web
 * session, the cookie in their jar. The sign-in pages themselves are tested with the authorization server.
 */
export async function signInToAccount(h: WebHarness, person: Person): Promise<void> {
  const { rows } = await h.pool.query<{ id: string }>(
    `INSERT INTO users (id, email, email_verified) VALUES ($1, $2, true)
     ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email RETURNING id`,
    [newId('usr'), person.email.toLowerCase()],
  );
  const res = await person.post(TEST_SIGN_IN_PATH, { userId: rows[0]!.id });
  if (res.status !== 303) throw new Error(`sign-in of ${person.email} answered ${res.status}`);
}
