import type pg from 'pg';
import { grantWelcomeCredits } from '@loupe/credits';
import { createTransactionScope, newId } from '@loupe/db';
import type { Clock } from '@loupe/http';

export type Role = 'owner' | 'admin' | 'member';

export const WORKSPACE_NAME_MAX_LENGTH = 80;

/** The name, once trimmed, is empty or longer than 80 characters. */
export class InvalidWorkspaceNameError extends Error {
  override name = 'InvalidWorkspaceNameError';
}

/** No user has this id (deleted, or never existed). */
export class UnknownUserError extends Error {
  override name = 'UnknownUserError';
}

/** The workspaces a user belongs to, and creating one for them. */
export function createUserWorkspaces({ pool, clock }: { pool: pg.Pool; clock: Clock }) {
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

    /** A new workspace with the user as its owner and the welcome credits, in one transaction. */
    async createWorkspaceFor(userId: string, rawName: string): Promise<{ id: string; name: string }> {
      const name = String(rawName ?? '').trim();
      if (name.length < 1 || name.length > WORKSPACE_NAME_MAX_LENGTH) {
        throw new InvalidWorkspaceNameError(
          `A workspace name has 1 to ${WORKSPACE_NAME_MAX_LENGTH} characters; this one has ${name.length} once trimmed`,
        );
      }
      const id = newId('ws', clock.now());
      const now = new Date(clock.now());
      // One transaction: the workspace never exists without its owner or its welcome credits.
      const scope = createTransactionScope(pool);
      try {
        await scope.pool.query(
          `WITH w AS (INSERT INTO workspaces (id, name, created_at) VALUES ($1, $2, $4) RETURNING id)
           INSERT INTO memberships (workspace_id, user_id, role, created_at) SELECT id, $3, 'owner', $4 FROM w`,
          [id, name, userId, now],
        );
        await grantWelcomeCredits(scope.pool, id);
        await scope.commit();
      } catch (error) {
        await scope.rollback();
        if ((error as { code?: string }).code === '23503') throw new UnknownUserError(`User ${userId} not found`);
        throw error;
      }
      return { id, name };
    },

    async findUser(userId: string): Promise<{ id: string; email: string; emailVerified: boolean } | undefined> {
      const { rows } = await pool.query<{ id: string; email: string; email_verified: boolean }>('SELECT id, email, email_verified FROM users WHERE id = $1', [userId]);
      const row = rows[0];
      return row ? { id: row.id, email: row.email, emailVerified: row.email_verified } : undefined;
    },
  };
}
