import type { IncomingMessage, ServerResponse } from 'node:http';
import type { RequestHandler } from 'express';
import type { Provider } from 'oidc-provider';
import type pg from 'pg';
import type { Clock } from '@loupe/http';
import type { Accounts } from '@loupe/accounts';
import type { OAuthLimiters } from './rate-limits';

/** What the auth app needs once the public URL is known and the shared secrets are loaded. */
export interface AuthRuntime {
  issuer: string;
  secure: boolean;
  provider: Provider;
  /** oidc-provider's request handler. */
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  accounts: Accounts;
  limiters: OAuthLimiters;
  csrfSecret: string;
  /** express-session for the pages (@loupe/web-pages), the session the console shares; run through loadSession, not mounted. */
  session: RequestHandler;
  pool: pg.Pool;
  clock: Clock;
  servicePrefix: string;
}
