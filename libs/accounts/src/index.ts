import type pg from 'pg';
import type { Db } from '@loupe/db';
import { createRateLimiter, type Clock, type RateLimiter } from '@loupe/http';
import { createSignInCodes, type Mailer } from './sign-in-codes';
import { createUserWorkspaces } from './workspaces';
import { createWebSessions } from './web-sessions';
import { createMembers } from './members';
import { createIdentityLinks } from './identity-links';

export { normaliseEmail, signInCodeMail, SIGN_IN_CODE_TTL_MS, SIGN_IN_CODE_MAX_ATTEMPTS, type Mailer, type RequestCodeResult, type VerifyCodeResult } from './sign-in-codes';
export { HashedSessionStore, sessionKey, WEB_SESSION_TTL_MS } from './web-sessions';
export type { IdentitySignIn, IdentitySignInResult } from './identity-links';
export { canManage, INVITATION_TTL_MS, MembershipError, ROLES, type AcceptResult, type Member, type PendingInvitation } from './members';
export { InvalidWorkspaceNameError, UnknownUserError, WORKSPACE_NAME_MAX_LENGTH, type Role } from './workspaces';

const HOUR = 3600_000;

export interface AccountsDeps {
  pool: pg.Pool;
  /** Accepted for symmetry with the other libs; every query here goes through `pool`. */
  db?: Db;
  clock: Clock;
  mailer: Mailer;
  /** HMAC key of stored sign-in codes. */
  codeSecret: string;
  /**
   * Counters of code requests, keyed `signin-email:<email>` and `signin-ip:<ip>`: by default fixed
   * one-hour windows in PostgreSQL (createRateLimiter) allowing 5 per address and 20 per IP address.
   */
  limiters?: { perEmail: RateLimiter; perIp: RateLimiter };
}

/** People: email sign-in, sign-in through identity providers, web sessions, and the workspaces they belong to. */
export function createAccounts(deps: AccountsDeps) {
  const limiters = deps.limiters ?? {
    perEmail: createRateLimiter(deps.pool, { limit: 5, windowMs: HOUR, clock: deps.clock }),
    perIp: createRateLimiter(deps.pool, { limit: 20, windowMs: HOUR, clock: deps.clock }),
  };
  return {
    ...createSignInCodes({ ...deps, ...limiters }),
    ...createWebSessions(deps),
    ...createUserWorkspaces(deps),
    ...createMembers(deps),
    ...createIdentityLinks(deps),
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
