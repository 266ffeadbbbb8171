import type pg from 'pg';
import type { Db } from '@loupe/db';
import { createRateLimiter, type Clock, type RateLimiter } from '@loupe/http';
import { createSignInCodes, type Mailer } from './sign-in-codes';
import { createUserWorkspaces, WORKSPACE_CREATION_LIMITS } from './workspaces';
import { createWebSessions } from './web-sessions';
import { createMembers, INVITATION_LIMITS } from './members';
import { createIdentityLinks } from './identity-links';

export { normaliseEmail, signInCodeMail, SIGN_IN_CODE_TTL_MS, SIGN_IN_CODE_MAX_ATTEMPTS, type Mailer, type RequestCodeResult, type VerifyCodeResult } from './sign-in-codes';
export { HashedSessionStore, sessionKey, WEB_SESSION_TTL_MS } from './web-sessions';
export type { IdentitySignIn, IdentitySignInResult } from './identity-links';
export { INVITATION_LIMITS, INVITATION_TTL_MS, InvitationLimitError, MembershipError, ROLES, type AcceptResult, type Member, type PendingInvitation } from './members';
export { canManage, keyMay, keyRefusal, roleMay, rolesAllowed, ROLE_RULES, type KeyCreator, type RoleRule } from './roles';
export { InvalidWorkspaceNameError, UnknownUserError, WORKSPACE_CREATION_LIMITS, WORKSPACE_NAME_MAX_LENGTH, WorkspaceLimitError, type Role } from './workspaces';

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
   * Workspace creations (`workspace-create:<userId>`, 5 an hour) and invitations
   * (`invite-person:<userId>` 20 an hour, `invite-workspace:<workspaceId>` 50 a day) likewise.
   */
  limiters?: Partial<AccountLimiters>;
}

export interface AccountLimiters {
  perEmail: RateLimiter;
  perIp: RateLimiter;
  workspaceCreation: RateLimiter;
  invitationsPerPerson: RateLimiter;
  invitationsPerWorkspace: RateLimiter;
}

/** People: email sign-in, sign-in through identity providers, web sessions, and the workspaces they belong to. */
export function createAccounts(deps: AccountsDeps) {
  const limit = (n: number, windowMs: number) => createRateLimiter(deps.pool, { limit: n, windowMs, clock: deps.clock });
  const limiters: AccountLimiters = {
    perEmail: deps.limiters?.perEmail ?? limit(5, HOUR),
    perIp: deps.limiters?.perIp ?? limit(20, HOUR),
    workspaceCreation: deps.limiters?.workspaceCreation ?? limit(WORKSPACE_CREATION_LIMITS.perHour, HOUR),
    invitationsPerPerson: deps.limiters?.invitationsPerPerson ?? limit(INVITATION_LIMITS.perPersonPerHour, HOUR),
    invitationsPerWorkspace: deps.limiters?.invitationsPerWorkspace ?? limit(INVITATION_LIMITS.perWorkspacePerDay, 24 * HOUR),
  };
  return {
    ...createSignInCodes({ ...deps, perEmail: limiters.perEmail, perIp: limiters.perIp }),
    ...createWebSessions(deps),
    ...createUserWorkspaces({ ...deps, workspaceCreation: limiters.workspaceCreation }),
    ...createMembers({ ...deps, invitationsPerPerson: limiters.invitationsPerPerson, invitationsPerWorkspace: limiters.invitationsPerWorkspace }),
    ...createIdentityLinks(deps),
  };
}

export type Accounts = ReturnType<typeof createAccounts>;
