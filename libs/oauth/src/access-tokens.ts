import type pg from 'pg';
import type { Clock } from '@loupe/http';
import { sha256 } from './hash';

export interface VerifiedAccessToken {
  userId: string;
  workspaceId: string;
  clientId: string;
  grantId: string;
  scopes: string[];
  /** Milliseconds since the epoch. */
  expiresAt: number;
}

export type AccessTokenCheck =
  | { ok: true; token: VerifiedAccessToken }
  | { ok: false; reason: 'malformed' | 'unknown' | 'expired' | 'not_a_member'; description: string };

/**
 * The resource servers' check of a bearer token: one indexed query that also answers whether the
 * user still belongs to the grant's workspace, so a removed user is refused at once (spec 5.6 rule 4).
 */
export function createAccessTokenVerifier({ pool, clock, servicePrefix }: { pool: pg.Pool; clock: Clock; servicePrefix: string }) {
  const prefix = `${servicePrefix}at_`;
  return async function verifyAccessToken(value: string): Promise<AccessTokenCheck> {
    if (!value.startsWith(prefix) || value.length > 256) {
      return { ok: false, reason: 'malformed', description: `The access token is not a ${prefix}… token issued by this service` };
    }
    const { rows } = await pool.query<AccessTokenRow>({
      // Named, so each connection parses and plans it once: it runs on every MCP request with a bearer token.
      name: 'oauth-verify-access-token',
      text: `SELECT t.payload, g.workspace_id,
                    g.revoked_at IS NULL AND EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = g.workspace_id AND m.user_id = g.user_id) AS active
               FROM oauth_models t LEFT JOIN oauth_grants g ON g.grant_id = t.grant_id
              WHERE t.model = 'AccessToken' AND t.id_hash = $1`,
      values: [sha256(value)],
    });
    return accessTokenCheck(rows[0], clock.now());
  };
}

/** The columns a check of an access token reads (by the SHA-256 of its value), with its grant's standing. */
export interface AccessTokenRow {
  payload: { accountId: string; clientId: string; scope?: string; exp: number; grantId: string };
  workspace_id: string | null;
  /** The grant is not revoked and its user still belongs to its workspace. */
  active: boolean | null;
}

/** The verdict on an access token's row (undefined: no such token) at `now` (ms): the verifier's, and the MCP server's own statement's. */
export function accessTokenCheck(row: AccessTokenRow | undefined, now: number): AccessTokenCheck {
  if (!row || !row.workspace_id) return { ok: false, reason: 'unknown', description: 'The access token is unknown or was revoked' };
  const expiresAt = row.payload.exp * 1000;
  if (expiresAt <= now) return { ok: false, reason: 'expired', description: 'The access token has expired; refresh it' };
  if (!row.active) {
    return { ok: false, reason: 'not_a_member', description: 'The user no longer belongs to the workspace this token was granted for' };
  }
  return {
    ok: true,
    token: {
      userId: row.payload.accountId,
      workspaceId: row.workspace_id,
      clientId: row.payload.clientId,
      grantId: row.payload.grantId,
      scopes: row.payload.scope ? row.payload.scope.split(' ') : [],
      expiresAt,
    },
  };
}
