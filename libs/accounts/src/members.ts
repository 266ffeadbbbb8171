import { createHash, randomBytes } from 'node:crypto';
import type pg from 'pg';
import { newId, withTransaction } from '@loupe/db';
import type { Clock, RateLimiter } from '@loupe/http';
import { canManage } from './roles';
import { normaliseEmail } from './sign-in-codes';
import type { Role } from './workspaces';

export const ROLES: readonly Role[] = ['owner', 'admin', 'member'];
export const INVITATION_TTL_MS = 7 * 24 * 3600_000;

/**
 * Invitations are mail sent under our name to any address (issue 23 item 5): at most 20 an hour per
 * person, 50 a day per workspace, and 50 pending (unaccepted, unexpired) per workspace.
 */
export const INVITATION_LIMITS = { perPersonPerHour: 20, perWorkspacePerDay: 50, pendingPerWorkspace: 50 } as const;

/** A change the rules do not allow; the message says why, for the page to show. */
export class MembershipError extends Error {
  override name = 'MembershipError';
}

/** No more invitations for now; `retryAfterSeconds` when a rate limit says when (absent for the pending cap). */
export class InvitationLimitError extends MembershipError {
  override name = 'InvitationLimitError';
  constructor(message: string, readonly retryAfterSeconds?: number) {
    super(message);
  }
}

export interface Member {
  userId: string;
  email: string;
  role: Role;
  joinedAt: Date;
}

export interface PendingInvitation {
  id: string;
  email: string;
  role: Role;
  invitedBy: string | null;
  createdAt: Date;
  expiresAt: Date;
}

export type AcceptResult =
  | { ok: true; workspaceId: string; workspaceName: string; alreadyMember: boolean }
  | { ok: false; reason: 'unknown' | 'expired' | 'used' | 'other_email'; email?: string };

const sha256 = (value: string) => createHash('sha256').update(value).digest('hex');

/**
 * Who belongs to a workspace and how they join or leave it. A workspace always keeps an owner;
 * only owners make or unmake owners. Removing a member also revokes the API keys they created in
 * the workspace (a key acts as its creator); their OAuth grants are the caller's to revoke
 * (libs/oauth), and both are refused at once anyway because every check asks for the membership.
 */
export function createMembers({ pool, clock, invitationsPerPerson, invitationsPerWorkspace }: {
  pool: pg.Pool; clock: Clock; invitationsPerPerson: RateLimiter; invitationsPerWorkspace: RateLimiter;
}) {
  async function roleOf(client: pg.PoolClient | pg.Pool, workspaceId: string, userId: string): Promise<Role | undefined> {
    const { rows } = await client.query<{ role: Role }>('SELECT role FROM memberships WHERE workspace_id = $1 AND user_id = $2', [workspaceId, userId]);
    return rows[0]?.role;
  }

  async function owners(client: pg.PoolClient, workspaceId: string): Promise<number> {
    // Locks the owners' rows so two concurrent demotions cannot leave the workspace without one.
    const { rows } = await client.query<{ user_id: string }>(
      `SELECT user_id FROM memberships WHERE workspace_id = $1 AND role = 'owner' FOR UPDATE`,
      [workspaceId],
    );
    return rows.length;
  }

  return {
    async listMembers(workspaceId: string): Promise<Member[]> {
      const { rows } = await pool.query<{ user_id: string; email: string; role: Role; created_at: Date }>(
        `SELECT m.user_id, u.email, m.role, m.created_at FROM memberships m JOIN users u ON u.id = m.user_id
          WHERE m.workspace_id = $1 ORDER BY CASE m.role WHEN 'owner' THEN 0 WHEN 'admin' THEN 1 ELSE 2 END, u.email`,
        [workspaceId],
      );
      return rows.map((r) => ({ userId: r.user_id, email: r.email, role: r.role, joinedAt: r.created_at }));
    },

    async changeRole(workspaceId: string, actorId: string, targetId: string, role: Role): Promise<void> {
      if (!ROLES.includes(role)) throw new MembershipError(`Unknown role "${role}"`);
      await withTransaction(pool, async (client) => {
        const actor = await roleOf(client, workspaceId, actorId);
        if (!canManage(actor)) throw new MembershipError('Only owners and admins can change roles.');
        const current = await roleOf(client, workspaceId, targetId);
        if (!current) throw new MembershipError('That person is not a member of this workspace.');
        if ((role === 'owner' || current === 'owner') && actor !== 'owner') throw new MembershipError('Only an owner can make or unmake owners.');
        if (current === 'owner' && role !== 'owner' && (await owners(client, workspaceId)) <= 1) {
          throw new MembershipError('A workspace needs an owner: make someone else an owner first.');
        }
        await client.query('UPDATE memberships SET role = $3 WHERE workspace_id = $1 AND user_id = $2', [workspaceId, targetId, role]);
      });
    },

    /**
     * Removes `targetId` (an admin removing someone, anyone leaving, or with a null actor the
     * operator's CLI); returns how many of their keys were revoked and of their pending invitations
     * there cancelled (an invitation speaks for the person who sent it).
     */
    async removeMember(workspaceId: string, actorId: string | null, targetId: string): Promise<{ keysRevoked: number; invitationsCancelled: number }> {
      return withTransaction(pool, async (client) => {
        const actor = actorId === null ? 'owner' : await roleOf(client, workspaceId, actorId);
        const target = await roleOf(client, workspaceId, targetId);
        if (!target) throw new MembershipError('That person is not a member of this workspace.');
        if (actorId !== targetId && !canManage(actor)) throw new MembershipError('Only owners and admins can remove members.');
        if (target === 'owner' && actorId !== targetId && actor !== 'owner') throw new MembershipError('Only an owner can remove an owner.');
        if (target === 'owner' && (await owners(client, workspaceId)) <= 1) {
          throw new MembershipError('A workspace needs an owner: make someone else an owner before this one leaves.');
        }
        await client.query('DELETE FROM memberships WHERE workspace_id = $1 AND user_id = $2', [workspaceId, targetId]);
        const { rowCount } = await client.query(
          'UPDATE api_keys SET revoked_at = $3 WHERE workspace_id = $1 AND created_by_user_id = $2 AND revoked_at IS NULL',
          [workspaceId, targetId, new Date(clock.now())],
        );
        const cancelled = await client.query(
          'DELETE FROM invitations WHERE workspace_id = $1 AND invited_by_user_id = $2 AND accepted_at IS NULL',
          [workspaceId, targetId],
        );
        return { keysRevoked: rowCount ?? 0, invitationsCancelled: cancelled.rowCount ?? 0 };
      });
    },

    /** The operator's way in (admin CLI): adds the person with that email (creating the account) with `role`, or changes their role. */
    async addMember(workspaceId: string, rawEmail: string, role: Role): Promise<{ userId: string; created: boolean }> {
      const email = normaliseEmail(rawEmail);
      if (!email) throw new MembershipError(`"${rawEmail}" is not a valid email address`);
      if (!ROLES.includes(role)) throw new MembershipError(`Unknown role "${role}" (owner, admin or member)`);
      return withTransaction(pool, async (client) => {
        const { rows: ws } = await client.query('SELECT 1 FROM workspaces WHERE id = $1', [workspaceId]);
        if (!ws.length) throw new MembershipError(`Workspace ${workspaceId} not found`);
        const { rows } = await client.query<{ id: string; created: boolean }>(
          `INSERT INTO users (id, email, email_verified, created_at) VALUES ($1, $2, false, $3)
           ON CONFLICT (email) DO UPDATE SET email = EXCLUDED.email RETURNING id, (xmax = 0) AS created`,
          [newId('usr', clock.now()), email, new Date(clock.now())],
        );
        const user = rows[0]!;
        await client.query(
          `INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ($1, $2, $3, $4)
           ON CONFLICT (workspace_id, user_id) DO UPDATE SET role = EXCLUDED.role`,
          [workspaceId, user.id, role, new Date(clock.now())],
        );
        return { userId: user.id, created: user.created };
      });
    },

    async userByEmail(rawEmail: string): Promise<{ id: string; email: string } | undefined> {
      const email = normaliseEmail(rawEmail);
      if (!email) return undefined;
      const { rows } = await pool.query<{ id: string; email: string }>('SELECT id, email FROM users WHERE email = $1', [email]);
      return rows[0];
    },

    async invite(workspaceId: string, actorId: string, rawEmail: string, role: Role): Promise<{ token: string; invitation: PendingInvitation }> {
      const email = normaliseEmail(rawEmail);
      if (!email) throw new MembershipError('Enter a valid email address, like ada@example.com.');
      if (!ROLES.includes(role)) throw new MembershipError(`Unknown role "${role}"`);
      const actor = await roleOf(pool, workspaceId, actorId);
      if (!canManage(actor)) throw new MembershipError('Only owners and admins can invite people.');
      if (role === 'owner' && actor !== 'owner') throw new MembershipError('Only an owner can invite another owner.');
      const { rowCount } = await pool.query(
        'SELECT 1 FROM memberships m JOIN users u ON u.id = m.user_id WHERE m.workspace_id = $1 AND u.email = $2',
        [workspaceId, email],
      );
      if (rowCount) throw new MembershipError(`${email} is already a member of this workspace.`);
      for (const [limiter, key, what] of [
        [invitationsPerPerson, `invite-person:${actorId}`, 'You have sent'],
        [invitationsPerWorkspace, `invite-workspace:${workspaceId}`, 'This workspace has sent'],
      ] as const) {
        const rate = await limiter.take(key);
        if (!rate.allowed) {
          const wait = rate.retryAfterSeconds > 5400 ? `${Math.ceil(rate.retryAfterSeconds / 3600)} hours` : `${Math.ceil(rate.retryAfterSeconds / 60)} minutes`;
          throw new InvitationLimitError(`${what} ${rate.limit} invitations recently, the most Loupe allows; try again in ${wait}.`, rate.retryAfterSeconds);
        }
      }
      const token = randomBytes(32).toString('base64url');
      const now = clock.now();
      const invitation = { id: newId('inv', now), email, role, invitedBy: actorId, createdAt: new Date(now), expiresAt: new Date(now + INVITATION_TTL_MS) };
      await withTransaction(pool, async (client) => {
        // The workspace's row locked: two concurrent invitations count each other's pending one.
        await client.query('SELECT 1 FROM workspaces WHERE id = $1 FOR UPDATE', [workspaceId]);
        const { rows } = await client.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM invitations WHERE workspace_id = $1 AND accepted_at IS NULL AND expires_at > $2',
          [workspaceId, invitation.createdAt],
        );
        if (rows[0]!.n >= INVITATION_LIMITS.pendingPerWorkspace) {
          throw new InvitationLimitError(
            `This workspace has ${rows[0]!.n} pending invitations, the most Loupe allows; cancel some, or wait until they are accepted or expire.`,
          );
        }
        await client.query(
          `INSERT INTO invitations (token_hash, id, workspace_id, email, role, invited_by_user_id, created_at, expires_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
          [sha256(token), invitation.id, workspaceId, email, role, actorId, invitation.createdAt, invitation.expiresAt],
        );
      });
      return { token, invitation };
    },

    async pendingInvitations(workspaceId: string): Promise<PendingInvitation[]> {
      const { rows } = await pool.query<{ id: string; email: string; role: Role; invited_by: string | null; created_at: Date; expires_at: Date }>(
        `SELECT i.id, i.email, i.role, u.email AS invited_by, i.created_at, i.expires_at
           FROM invitations i LEFT JOIN users u ON u.id = i.invited_by_user_id
          WHERE i.workspace_id = $1 AND i.accepted_at IS NULL AND i.expires_at > $2 ORDER BY i.created_at DESC`,
        [workspaceId, new Date(clock.now())],
      );
      return rows.map((r) => ({ id: r.id, email: r.email, role: r.role, invitedBy: r.invited_by, createdAt: r.created_at, expiresAt: r.expires_at }));
    },

    async cancelInvitation(workspaceId: string, actorId: string, invitationId: string): Promise<void> {
      if (!canManage(await roleOf(pool, workspaceId, actorId))) throw new MembershipError('Only owners and admins can cancel invitations.');
      const { rowCount } = await pool.query('DELETE FROM invitations WHERE workspace_id = $1 AND id = $2 AND accepted_at IS NULL', [workspaceId, invitationId]);
      if (!rowCount) throw new MembershipError('That invitation is not pending in this workspace: it was accepted or cancelled already.');
    },

    /** What an invitation link is about, before the person accepts it. */
    async describeInvitation(token: string): Promise<{ email: string; workspaceName: string; role: Role; usable: boolean } | undefined> {
      if (!token || token.length > 128) return undefined;
      const { rows } = await pool.query<{ email: string; name: string; role: Role; accepted_at: Date | null; expires_at: Date }>(
        `SELECT i.email, w.name, i.role, i.accepted_at, i.expires_at FROM invitations i JOIN workspaces w ON w.id = i.workspace_id WHERE i.token_hash = $1`,
        [sha256(token)],
      );
      const row = rows[0];
      if (!row) return undefined;
      return { email: row.email, workspaceName: row.name, role: row.role, usable: !row.accepted_at && row.expires_at.getTime() > clock.now() };
    },

    /** Joins the signed-in person to the workspace, when the invitation is theirs (same email), live and unused. */
    async acceptInvitation(token: string, user: { id: string; email: string }): Promise<AcceptResult> {
      if (!token || token.length > 128) return { ok: false, reason: 'unknown' };
      return withTransaction(pool, async (client) => {
        const { rows } = await client.query<{ workspace_id: string; name: string; email: string; role: Role; accepted_at: Date | null; expires_at: Date }>(
          `SELECT i.workspace_id, w.name, i.email, i.role, i.accepted_at, i.expires_at
             FROM invitations i JOIN workspaces w ON w.id = i.workspace_id WHERE i.token_hash = $1 FOR UPDATE OF i`,
          [sha256(token)],
        );
        const row = rows[0];
        if (!row) return { ok: false, reason: 'unknown' };
        if (row.accepted_at) return { ok: false, reason: 'used' };
        if (row.expires_at.getTime() <= clock.now()) return { ok: false, reason: 'expired' };
        if (row.email !== user.email.toLowerCase()) return { ok: false, reason: 'other_email', email: row.email };
        const { rowCount } = await client.query(
          `INSERT INTO memberships (workspace_id, user_id, role, created_at) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
          [row.workspace_id, user.id, row.role, new Date(clock.now())],
        );
        await client.query('UPDATE invitations SET accepted_at = $2, accepted_by_user_id = $3 WHERE token_hash = $1', [sha256(token), new Date(clock.now()), user.id]);
        return { ok: true, workspaceId: row.workspace_id, workspaceName: row.name, alreadyMember: rowCount === 0 };
      });
    },

    /**
     * What deleting an account would do: the workspaces it alone belongs to are deleted with it;
     * it cannot be deleted while it is the only owner of a workspace others belong to.
     */
    async accountDeletionPlan(userId: string): Promise<{ soleWorkspaces: { id: string; name: string }[]; blockedBy: { id: string; name: string }[] }> {
      const { rows } = await pool.query<{ id: string; name: string; members: number; owners: number; role: Role }>(
        `SELECT w.id, w.name, m.role,
                (SELECT count(*)::int FROM memberships x WHERE x.workspace_id = w.id) AS members,
                (SELECT count(*)::int FROM memberships x WHERE x.workspace_id = w.id AND x.role = 'owner') AS owners
           FROM memberships m JOIN workspaces w ON w.id = m.workspace_id WHERE m.user_id = $1 ORDER BY lower(w.name)`,
        [userId],
      );
      return {
        soleWorkspaces: rows.filter((r) => r.members === 1).map(({ id, name }) => ({ id, name })),
        blockedBy: rows.filter((r) => r.members > 1 && r.role === 'owner' && r.owners === 1).map(({ id, name }) => ({ id, name })),
      };
    },

    /**
     * Deletes the account: its keys revoked everywhere, the workspaces it alone belonged to deleted,
     * then the user (memberships, grants and web sessions go with it). The caller revokes the user's
     * OAuth grants first (libs/oauth), so their tokens go too.
     */
    async deleteAccount(userId: string): Promise<void> {
      await withTransaction(pool, async (client) => {
        const { rows: blocked } = await client.query<{ name: string }>(
          `SELECT w.name FROM memberships m JOIN workspaces w ON w.id = m.workspace_id
            WHERE m.user_id = $1 AND m.role = 'owner'
              AND (SELECT count(*) FROM memberships x WHERE x.workspace_id = w.id) > 1
              AND (SELECT count(*) FROM memberships x WHERE x.workspace_id = w.id AND x.role = 'owner') = 1`,
          [userId],
        );
        if (blocked.length) {
          throw new MembershipError(`You are the only owner of ${blocked.map((b) => b.name).join(', ')}: make someone else an owner first.`);
        }
        await client.query('UPDATE api_keys SET revoked_at = $2 WHERE created_by_user_id = $1 AND revoked_at IS NULL', [userId, new Date(clock.now())]);
        // Their pending invitations go with them (the foreign key alone would keep them, unsigned).
        await client.query('DELETE FROM invitations WHERE invited_by_user_id = $1 AND accepted_at IS NULL', [userId]);
        const { rows: sole } = await client.query<{ workspace_id: string }>(
          `SELECT m.workspace_id FROM memberships m WHERE m.user_id = $1
              AND (SELECT count(*) FROM memberships x WHERE x.workspace_id = m.workspace_id) = 1`,
          [userId],
        );
        const ids = sole.map((s) => s.workspace_id);
        if (ids.length) {
          // Tables without a foreign key to workspaces are cleared by hand; the rest cascade.
          for (const table of ['shaping_notes', 'workspace_skills']) {
            await client.query(`DELETE FROM ${table} WHERE workspace_id = ANY($1::text[])`, [ids]);
          }
          await client.query('DELETE FROM workspaces WHERE id = ANY($1::text[])', [ids]);
        }
        await client.query('DELETE FROM users WHERE id = $1', [userId]);
      });
    },
  };
}
