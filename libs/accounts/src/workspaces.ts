import { createHash } from 'node:crypto';
import type pg from 'pg';
import { grantWelcomeCredits } from '@loupe/credits';
import { createTransactionScope, newId } from '@loupe/db';
import type { Clock, RateLimiter } from '@loupe/http';

export type Role = 'owner' | 'admin' | 'member';

export const WORKSPACE_NAME_MAX_LENGTH = 80;

/** The name, once trimmed, is empty or longer than 80 characters. */
export class InvalidWorkspaceNameError extends Error {
  override name = 'InvalidWorkspaceNameError';
}

/**
 * Workspaces a person may make (issue 23 item 3): at most `maxOwned` owned at once, and at most
 * `perHour` created in an hour (the limiter, fixed one-hour windows in PostgreSQL by default).
 */
export const WORKSPACE_CREATION_LIMITS = { maxOwned: 10, perHour: 5 } as const;

/** The person may not create another workspace now; the message says why and when, for the page. */
export class WorkspaceLimitError extends Error {
  override name = 'WorkspaceLimitError';
  constructor(message: string, readonly retryAfterSeconds?: number) {
    super(message);
  }
}

/** No user has this id (deleted, or never existed). */
export class UnknownUserError extends Error {
  override name = 'UnknownUserError';
}

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * The workspaces a user belongs to, and creating one for them: rate-limited per person
 * (`workspaceCreation`, keyed `workspace-create:<userId>`) and capped at WORKSPACE_CREATION_LIMITS.maxOwned.
 */
export function createUserWorkspaces({ pool, clock, workspaceCreation }: { pool: pg.Pool; clock: Clock; workspaceCreation: RateLimiter }) {
  return {
    async workspacesOf(userId: string): Promise<Array<{ id: string; name: string; role: Role }>> {
      const { rows } = await pool.query<{ id: string; name: string; role: Role }>(
        `SELECT w.id, w.name, m.role FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
          WHERE m.user_id = $1 ORDER BY lower(w.name), w.id`,
        [userId],
      );
      return rows;
    },

    async membership(userId: string, workspaceId: string): Promise<Role | undefined> {
      const { rows } = await pool.query<{ role: Role }>('SELECT role FROM memberships WHERE user_id = $1 AND workspace_id = $2', [userId, workspaceId]);
      return rows[0]?.role;
    },

    /**
     * A new workspace with the user as its owner, in one transaction; it gets the welcome credits when
     * it is the person's first (once per person: per email address, even across a deleted account).
     */
    async createWorkspaceFor(userId: string, rawName: string): Promise<{ id: string; name: string; welcomeCredits: boolean }> {
      const name = String(rawName ?? '').trim();
      if (name.length < 1 || name.length > WORKSPACE_NAME_MAX_LENGTH) {
        throw new InvalidWorkspaceNameError(
          `A workspace name has 1 to ${WORKSPACE_NAME_MAX_LENGTH} characters; this one has ${name.length} once trimmed`,
        );
      }
      const rate = await workspaceCreation.take(`workspace-create:${userId}`);
      if (!rate.allowed) {
        throw new WorkspaceLimitError(
          `You created ${rate.limit} workspaces in the last hour, the most Loupe allows; try again in ${Math.ceil(rate.retryAfterSeconds / 60)} minutes.`,
          rate.retryAfterSeconds,
        );
      }
      const id = newId('ws', clock.now());
      const now = new Date(clock.now());
      // One transaction: the workspace never exists without its owner, nor the welcome credits without their record.
      const scope = createTransactionScope(pool);
      let welcomeCredits = false;
      try {
        // The user's row locked: two concurrent creations by one person count each other.
        const { rows: users } = await scope.pool.query<{ email: string; owned: number }>(
          `SELECT u.email, (SELECT count(*)::int FROM memberships m WHERE m.user_id = u.id AND m.role = 'owner') AS owned
             FROM users u WHERE u.id = $1 FOR UPDATE`,
          [userId],
        );
        const user = users[0];
        if (!user) throw new UnknownUserError(`User ${userId} not found`);
        if (user.owned >= WORKSPACE_CREATION_LIMITS.maxOwned) {
          throw new WorkspaceLimitError(
            `You own ${user.owned} workspaces, the most Loupe allows (${WORKSPACE_CREATION_LIMITS.maxOwned}); delete one or hand its ownership to someone else first.`,
          );
        }
        await scope.pool.query(
          `WITH w AS (INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, $4) RETURNING id)
           INSERT INTO memberships (workspace_id, user_id, role, created_at) SELECT id, $3, 'owner', $4 FROM w`,
          [id, name, userId, now],
        );
        const { rowCount } = await scope.pool.query(
          'INSERT INTO welcome_credit_recipients (email_sha256, workspace_id, granted_at) VALUES ($1, $2, $3) ON CONFLICT (email_sha256) DO NOTHING',
          [sha256(user.email.toLowerCase()), id, now],
        );
        if (rowCount) welcomeCredits = await grantWelcomeCredits(scope.pool, id);
        await scope.commit();
      } catch (error) {
        await scope.rollback();
        if ((error as { code?: string }).code === '23503') throw new UnknownUserError(`User ${userId} not found`);
        throw error;
      }
      return { id, name, welcomeCredits };
    },

    async findUser(userId: string): Promise<{ id: string; email: string; emailVerified: boolean } | undefined> {
      const { rows } = await pool.query<{ id: string; email: string; email_verified: boolean }>('SELECT id, email, email_verified FROM users WHERE id = $1', [userId]);
      const row = rows[0];
      return row ? { id: row.id, email: row.email, emailVerified: row.email_verified } : undefined;
    },
  };
}
