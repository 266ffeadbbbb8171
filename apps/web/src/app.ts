import { Router } from 'express';
import cookieParser from 'cookie-parser';
import type pg from 'pg';
import { createAccounts, type Mailer } from '@loupe/accounts';
import type { Db } from '@loupe/db';
import type { Clock, Logger } from '@loupe/http';
import type { Boss } from '@loupe/jobs';
import type { SemanticSearch } from '@loupe/sources';
import type { Storage } from '@loupe/storage';
import { ASSETS_PATH, createSessionMiddleware, loadWebSecrets, pageAssets, securityHeadersFor } from '@loupe/web-pages';
import { accountPages } from './account';
import { frontDoor } from './front-door';
import type { WebRuntime } from './runtime';

export interface WebAppDeps {
  pool: pg.Pool;
  db: Db;
  clock: Clock;
  log: Logger;
  /** Invitations to a workspace. */
  mailer: Mailer;
  /** The public base URL (known once the server listens): links in mails and on the front page. */
  baseUrl: () => string;
  /** The prefix of the API keys this service makes (config.servicePrefix). */
  servicePrefix: string;
  /** Queues a product's opportunities update after a person edits a signal on the evidence pages (the worker's queue). */
  scheduleRecompute?: (workspaceId: string, productId: string) => Promise<void>;
  /** The job queue: the Privacy page queues erasures with it (without it, the page cannot start one). */
  boss?: Boss;
  /** The MCP server's index of meaning when it runs in the same process (npm start): the sources page ranks like find_sources. */
  semanticSearch?: SemanticSearch;
  /** Where attachment files are stored: deleting a source on its page deletes its files. */
  storage: Storage;
  /** The largest file the File import page takes (256 MB by default). */
  importMaxBytes?: number;
  /** The inbound mail domain when this service receives mail (MAIL_REPLY_DOMAIN with INBOUND_SMTP_PORT): the Email forwarding page shows projects' addresses there. */
  inboundMailDomain?: string | undefined;
}

/**
 * The product's web console: the front page at `/`, and under `/account` the workspaces, the evidence
 * (opportunities, signals, sources, shaping notes) and the settings (keys, members, connected
 * applications, products, credits, privacy, retention). A signed-out person is sent to the
 * authorization server's sign-in page and comes back; the session cookie is the one both share.
 */
export function createWebApp(deps: WebAppDeps): Router {
  let starting: Promise<WebRuntime> | undefined;
  const runtime = () =>
    (starting ??= build(deps).catch((error: unknown) => {
      starting = undefined; // a database that was down at the first request must not break every later one
      throw error;
    }));

  // Their own security headers: one script of ours, for the copy buttons.
  const pageHeaders = securityHeadersFor(deps.baseUrl, { ownScripts: true });
  const router = Router();
  router.use(frontDoor(deps.baseUrl, pageHeaders));
  router.use(ASSETS_PATH, pageAssets());
  router.use('/account', pageHeaders, cookieParser());
  router.use(accountPages(runtime, { db: deps.db, mailer: deps.mailer, log: deps.log, scheduleRecompute: deps.scheduleRecompute, boss: deps.boss, semanticSearch: deps.semanticSearch, storage: deps.storage, inboundMailDomain: deps.inboundMailDomain, importMaxBytes: deps.importMaxBytes }));
  return router;
}

async function build(deps: WebAppDeps): Promise<WebRuntime> {
  const issuer = deps.baseUrl();
  const secure = issuer.startsWith('https://');
  const { csrfSecret, sessionSecret, signInCodeSecret } = await loadWebSecrets(deps.pool);
  return {
    issuer, secure, csrfSecret, pool: deps.pool, clock: deps.clock, servicePrefix: deps.servicePrefix,
    accounts: createAccounts({ pool: deps.pool, db: deps.db, clock: deps.clock, mailer: deps.mailer, codeSecret: signInCodeSecret }),
    session: createSessionMiddleware({ pool: deps.pool, secret: sessionSecret, secure, log: deps.log }),
  };
}
