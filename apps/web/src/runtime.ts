import type { RequestHandler } from 'express';
import type pg from 'pg';
import type { Accounts } from '@loupe/accounts';
import type { Clock } from '@loupe/http';

/** What the console needs once the public URL is known and the shared secrets are loaded. */
export interface WebRuntime {
  /** The public base URL (links in mails). */
  issuer: string;
  secure: boolean;
  accounts: Accounts;
  csrfSecret: string;
  /** express-session for the pages (@loupe/web-pages); run through loadSession, not mounted. */
  session: RequestHandler;
  pool: pg.Pool;
  clock: Clock;
  /** The prefix of the API keys this service makes. */
  servicePrefix: string;
}
