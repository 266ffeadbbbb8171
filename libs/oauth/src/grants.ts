import type pg from 'pg';
import type { Clock } from '@loupe/http';
import { sha256 } from './hash';

export interface WorkspaceGrant {
  grantId: string;
  workspaceId: string;
  userId: string;
  clientId: string;
  clientName: string;
  scopes: string[];
  /** The consent page's answer when third-party servers are connected; OAuth tokens never carry them either way. */
  thirdPartyAccess: 'service_only' | 'including_third_party' | null;
}

/**
 * Binds an oidc-provider grant to the one workspace the user chose. Says whether this is the
 * first time this application is connected to this workspace (a confirmation email goes out then).
 */
export async function bindGrantToWorkspace(pool: pg.Pool, grant: WorkspaceGrant, clock: Clock): Promise<{ firstConnection: boolean }> {
  const { rows } = await pool.query<{ first: boolean }>(
    `WITH earlier AS (SELECT 1 FROM oauth_grants WHERE workspace_id = $2 AND client_id = $4 LIMIT 1)
     INSERT INTO oauth_grants (grant_id, workspace_id, user_id, client_id, client_name, scopes, third_party_access, created_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
     RETURNING NOT EXISTS (SELECT 1 FROM earlier) AS first`,
    [grant.grantId, grant.workspaceId, grant.userId, grant.clientId, grant.clientName, grant.scopes, grant.thirdPartyAccess, new Date(clock.now())],
  );
  return { firstConnection: rows[0]!.first };
}

export interface GrantStanding {
  workspaceId: string;
  userId: string;
  /** The user still belongs to the workspace and the grant was not revoked. */
  active: boolean;
}

/** Where a grant stands now: its workspace, and whether the user may still act in it. */
export async function grantStanding(pool: pg.Pool, grantId: string): Promise<GrantStanding | undefined> {
  const { rows } = await pool.query<{ workspace_id: string; user_id: string; active: boolean }>(
    `SELECT g.workspace_id, g.user_id,
            g.revoked_at IS NULL AND EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = g.workspace_id AND m.user_id = g.user_id) AS active
       FROM oauth_grants g WHERE g.grant_id = $1`,
    [grantId],
  );
  const row = rows[0];
  return row ? { workspaceId: row.workspace_id, userId: row.user_id, active: row.active } : undefined;
}

export interface GrantUser {
  id: string;
  email: string;
  email_verified: boolean;
}

// Named: it runs on every refresh and userinfo call.
const GRANT_USER = {
  name: 'oauth-grant-user',
  text: `SELECT u.id, u.email, u.email_verified
           FROM oauth_grants g JOIN users u ON u.id = g.user_id
          WHERE g.grant_id = $1 AND g.user_id = $2 AND g.revoked_at IS NULL
            AND EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = g.workspace_id AND m.user_id = g.user_id)`,
};

/**
 * The user a token of `grantId` acts for, when the grant still stands for `userId` (as `grantStanding`
 * decides: not revoked, the user still a member of its workspace); undefined otherwise. One statement.
 */
export async function standingGrantUser(pool: pg.Pool, grantId: string, userId: string): Promise<GrantUser | undefined> {
  const { rows } = await pool.query<GrantUser>({ ...GRANT_USER, values: [grantId, userId] });
  return rows[0];
}

/** True when third-party MCP servers are connected to the workspace (the consent page then asks about them). */
export async function hasThirdPartyServers(pool: pg.Pool, workspaceId: string): Promise<boolean> {
  const { rows } = await pool.query('SELECT 1 FROM third_party_servers WHERE workspace_id = $1 LIMIT 1', [workspaceId]);
  return rows.length > 0;
}

/**
 * RFC 7009 revocation by token value. A refresh token takes its whole family with it (every code,
 * access and refresh token of its grant, and the grant); an access token only itself. A token of
 * another client, or no token at all, changes nothing. The caller always answers 200.
 */
export async function revokeToken(pool: pg.Pool, token: string, clientId: string | undefined, clock: Clock): Promise<'family' | 'token' | 'none'> {
  if (!token || token.length > 512) return 'none';
  const { rows } = await pool.query<{ model: string; grant_id: string | null; client_id: string | null }>(
    `SELECT model, grant_id, payload->>'clientId' AS client_id FROM oauth_models
      WHERE id_hash = $1 AND model IN ('AccessToken', 'RefreshToken')`,
    [sha256(token)],
  );
  const row = rows[0];
  if (!row || (clientId !== undefined && row.client_id !== clientId)) return 'none';
  if (row.model === 'AccessToken' || !row.grant_id) {
    await pool.query('DELETE FROM oauth_models WHERE model = $1 AND id_hash = $2', [row.model, sha256(token)]);
    return 'token';
  }
  await revokeGrant(pool, row.grant_id, clock);
  return 'family';
}

/** Ends a grant and every code and token issued under it. */
export async function revokeGrant(pool: pg.Pool, grantId: string, clock: Clock): Promise<void> {
  await pool.query(
    `WITH tokens AS (DELETE FROM oauth_models WHERE grant_id = $1 OR (model = 'Grant' AND id_hash = $2))
     UPDATE oauth_grants SET revoked_at = $3 WHERE grant_id = $1 AND revoked_at IS NULL`,
    [grantId, sha256(grantId), new Date(clock.now())],
  );
}

const REFRESH_TOKEN_GRANT = { name: 'oauth-refresh-token-grant', text: "SELECT grant_id FROM oauth_models WHERE model = 'RefreshToken' AND id_hash = $1" };

/** The grant (token family) a refresh token belongs to, used to count refreshes per connection. */
export async function refreshTokenGrant(pool: pg.Pool, token: string): Promise<string | undefined> {
  if (!token || token.length > 512) return undefined;
  const { rows } = await pool.query<{ grant_id: string | null }>({ ...REFRESH_TOKEN_GRANT, values: [sha256(token)] });
  return rows[0]?.grant_id ?? undefined;
}

export interface Connection {
  grantId: string;
  clientId: string;
  clientName: string;
  userId: string;
  userEmail: string;
  scopes: string[];
  thirdPartyAccess: 'service_only' | 'including_third_party' | null;
  /** When it was connected. */
  createdAt: Date;
  /** When it last obtained a token (access tokens last an hour, so within the hour of its last use). */
  lastUsedAt: Date | null;
}

/** The applications connected to a workspace and not revoked (or only those one person connected), newest first. */
export async function listConnections(pool: pg.Pool, workspaceId: string, options: { userId?: string } = {}): Promise<Connection[]> {
  const { rows } = await pool.query<{
    grant_id: string; client_id: string; client_name: string; user_id: string; email: string; scopes: string[];
    third_party_access: Connection['thirdPartyAccess']; created_at: Date; last_used_at: Date | null;
  }>(
    `SELECT g.grant_id, g.client_id, g.client_name, g.user_id, u.email, g.scopes, g.third_party_access, g.created_at,
            (SELECT max(m.created_at) FROM oauth_models m WHERE m.grant_id = g.grant_id AND m.model IN ('AccessToken', 'RefreshToken')) AS last_used_at
       FROM oauth_grants g JOIN users u ON u.id = g.user_id
      WHERE g.workspace_id = $1 AND g.revoked_at IS NULL AND ($2::text IS NULL OR g.user_id = $2)
      ORDER BY g.created_at DESC`,
    [workspaceId, options.userId ?? null],
  );
  return rows.map((r) => ({
    grantId: r.grant_id, clientId: r.client_id, clientName: r.client_name, userId: r.user_id, userEmail: r.email, scopes: r.scopes,
    thirdPartyAccess: r.third_party_access, createdAt: r.created_at, lastUsedAt: r.last_used_at,
  }));
}

/** The grant `grantId` when it belongs to `workspaceId` (and to `userId` when given): what a page may revoke. */
export async function findConnection(pool: pg.Pool, workspaceId: string, grantId: string, userId?: string): Promise<Connection | undefined> {
  return (await listConnections(pool, workspaceId, userId ? { userId } : {})).find((c) => c.grantId === grantId);
}

/** Revokes every grant of a user (in one workspace, or everywhere), with all their tokens. */
export async function revokeUserGrants(pool: pg.Pool, userId: string, clock: Clock, workspaceId?: string): Promise<number> {
  const { rows } = await pool.query<{ grant_id: string }>(
    'SELECT grant_id FROM oauth_grants WHERE user_id = $1 AND revoked_at IS NULL AND ($2::text IS NULL OR workspace_id = $2)',
    [userId, workspaceId ?? null],
  );
  for (const row of rows) await revokeGrant(pool, row.grant_id, clock);
  return rows.length;
}
