import { hash } from 'node:crypto';
import type { Request } from 'express';
import type pg from 'pg';
import { keyMay } from '@loupe/accounts';
import { apiKeyPrincipal, hashApiKey, looksLikeApiKey, type ApiKeyRow } from '@loupe/api-keys';
import { isPaused, type WorkspaceStanding } from '@loupe/credits';
import { takeTogetherWith, type CountedLookup, type RateDecision, type RateLimiter } from '@loupe/http';
import { accessTokenCheck, sha256, type AccessTokenRow } from '@loupe/oauth';
import type { Principal } from './principal';

export type Authentication =
  | { ok: true; principal: Principal }
  | { ok: false; status: 401 | 403; body: Record<string, string>; challenge?: boolean };

export interface AuthDeps {
  pool: pg.Pool;
  servicePrefix: string;
  /** Decides whether an access token has expired. */
  now: () => Date;
}

/**
 * What the per-credential limit counts, from the headers alone (so it can be counted while the
 * credential is checked): the SHA-256 of the bearer token when there is one (it wins), else of the key.
 */
export function credentialRateKey(req: Request): string | undefined {
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(req.get('authorization') ?? '')?.[1];
  if (bearer) return `mcp-token:${hash('sha256', bearer, 'base64url')}`;
  if (req.get('authorization') !== undefined) return undefined;
  const key = req.get('x-api-key');
  return key ? `mcp-key:${hash('sha256', key, 'base64url')}` : undefined;
}

/** Either opens the MCP endpoint (spec 5.3, 5.8). */
const MCP_ACCESS = ['mcp:read', 'mcp:write'];

/** The workspace's standing as the credential's statement read it (see `CREDENTIAL_LOOKUPS`). */
const standingColumns = `w.id AS standing_workspace_id, w.credit_balance AS standing_balance, w.plan_id AS standing_plan_id,
                         p.overage_allowed AS standing_overage_allowed, w.local_data_storage AS standing_local`;

/**
 * What one MCP request reads of the database before its tool runs, answered by the statement that
 * counts its rate limits (`takeTogetherWith`): the key or access token with its creator's or user's
 * membership, and the workspace's standing (credits, plan, data kept locally). Read every request,
 * nothing cached: a revoked key, a revoked grant or a removed member is refused on the next request.
 * Each credential is found through its unique index (the LATERAL ... LIMIT 1): as a plain join, the
 * generic plan of the prepared statement scanned every key, or every access token, of the service.
 */
export const CREDENTIAL_LOOKUPS = {
  apiKey: {
    name: 'mcp-api-key-with-standing',
    select: `SELECT l.n, k.id, k.workspace_id, k.permissions, k.default_product_id, k.created_by_user_id, k.last_used_at,
                    (k.created_by_user_id IS NULL OR m.user_id IS NOT NULL) AS creator_is_member, m.role AS creator_role,
                    ${standingColumns}
               FROM batch_requests($4::text[]) AS l(param, n)
               JOIN LATERAL (SELECT * FROM api_keys WHERE secret_hash = l.param AND revoked_at IS NULL LIMIT 1) k ON true
               LEFT JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.created_by_user_id
               LEFT JOIN workspaces w ON w.id = k.workspace_id
               LEFT JOIN plans p ON p.id = w.plan_id`,
  },
  accessToken: {
    name: 'mcp-access-token-with-standing',
    select: `SELECT l.n, t.payload, g.workspace_id,
                    g.revoked_at IS NULL AND m.user_id IS NOT NULL AS active,
                    ${standingColumns}
               FROM batch_requests($4::text[]) AS l(param, n)
               JOIN LATERAL (SELECT * FROM oauth_models WHERE model = 'AccessToken' AND id_hash = l.param LIMIT 1) t ON true
               LEFT JOIN oauth_grants g ON g.grant_id = t.grant_id
               LEFT JOIN memberships m ON m.workspace_id = g.workspace_id AND m.user_id = g.user_id
               LEFT JOIN workspaces w ON w.id = g.workspace_id
               LEFT JOIN plans p ON p.id = w.plan_id`,
  },
} satisfies Record<string, CountedLookup>;

interface StandingRow {
  standing_workspace_id: string | null;
  standing_balance: number | string | null;
  standing_plan_id: string | null;
  standing_overage_allowed: boolean | null;
  standing_local: boolean | null;
}

function standingOf(row: StandingRow): WorkspaceStanding | undefined {
  if (!row.standing_workspace_id) return undefined;
  const balance = Number(row.standing_balance);
  const overageAllowed = row.standing_overage_allowed === true;
  return {
    workspaceId: row.standing_workspace_id, balance, planId: row.standing_plan_id, overageAllowed,
    paused: isPaused(balance, row.standing_plan_id, overageAllowed), localDataStorage: row.standing_local === true,
  };
}

export interface CountedAuthentication {
  auth: Authentication;
  /** The decisions of `checks`, in their order. */
  decisions: RateDecision[];
  /** The credential's workspace as the same statement read it (undefined when refused, or when the workspace is gone). */
  standing: WorkspaceStanding | undefined;
}

/**
 * The two ways in (spec 5.1, 5.8, 7.2): a bearer token wins over a key; the workspace and the acting
 * user come from the credential only. The token check includes membership, so a removed user is
 * refused on the very next request; a key acts as its creator and stops when the creator leaves.
 * One statement answers the credential, its workspace's standing and the rate limits (`checks`).
 */
export async function authenticate(req: Request, deps: AuthDeps, checks: { limiter: RateLimiter; key: string }[]): Promise<CountedAuthentication> {
  const refused = async (auth: Authentication): Promise<CountedAuthentication> => ({ auth, decisions: (await takeTogetherWith(deps.pool, checks)).decisions, standing: undefined });
  const authorization = req.get('authorization');
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) return refused({ ok: false, status: 401, body: { error: 'invalid_token', error_description: 'The Authorization header must be "Bearer <access token>"' } });
    const value = match[1]!;
    const prefix = `${deps.servicePrefix}at_`;
    if (!value.startsWith(prefix) || value.length > 256) {
      return refused({ ok: false, status: 401, body: { error: 'invalid_token', error_description: `The access token is not a ${prefix}… token issued by this service` } });
    }
    const { decisions, row } = await takeTogetherWith<AccessTokenRow & StandingRow>(deps.pool, checks, { query: CREDENTIAL_LOOKUPS.accessToken, param: sha256(value) });
    const check = accessTokenCheck(row, deps.now().getTime());
    if (!check.ok) return { decisions, standing: undefined, auth: { ok: false, status: 401, body: { error: 'invalid_token', error_description: check.description } } };
    const scopes = new Set(check.token.scopes);
    if (!MCP_ACCESS.some((s) => scopes.has(s))) {
      return { decisions, standing: undefined, auth: { ok: false, status: 403, body: { error: 'insufficient_scope', error_description: 'This access token was granted without mcp:read or mcp:write; connect again asking for them' } } };
    }
    scopes.delete('mcp:thirdparty'); // never on OAuth connections (spec 5.3)
    return {
      decisions,
      standing: standingOf(row!),
      auth: {
        ok: true,
        principal: {
          kind: 'oauth', workspaceId: check.token.workspaceId, userId: check.token.userId, scopes, defaultProductId: null, clientId: check.token.clientId,
          rateKey: credentialRateKey(req)!,
        },
      },
    };
  }
  const key = req.get('x-api-key');
  if (key === undefined) {
    return refused({ ok: false, status: 401, challenge: true, body: { error: 'Unauthorized', error_description: 'Send an OAuth access token (Authorization: Bearer) or an API key (x-api-key)' } });
  }
  const invalid: Authentication = { ok: false, status: 401, body: { error: 'Invalid API key: it is unknown or was revoked. Create a key in the workspace settings.' } };
  if (!looksLikeApiKey(key, deps.servicePrefix)) return refused(invalid);
  const { decisions, row } = await takeTogetherWith<ApiKeyRow & StandingRow>(deps.pool, checks, { query: CREDENTIAL_LOOKUPS.apiKey, param: hashApiKey(key) });
  const principal = row && apiKeyPrincipal(deps.pool, row, deps.now());
  if (!principal) return { decisions, standing: undefined, auth: invalid };
  const refuse = (auth: Authentication): CountedAuthentication => ({ decisions, standing: undefined, auth });
  if (!principal.permissions.some((p) => MCP_ACCESS.includes(p))) {
    return refuse({ ok: false, status: 403, body: { error: 'This API key has no MCP permission: it needs mcp:read (and mcp:write to write signals).' } });
  }
  if (!principal.creatorIsMember) {
    return refuse({ ok: false, status: 401, body: { error: 'Invalid API key: the person who created it no longer belongs to the workspace. Create a new key.' } });
  }
  const scopes = new Set(principal.permissions.filter((p) => p.startsWith('mcp:')));
  // Third-party tools run with the credentials the workspace's owners connected: only a key whose
  // creator is an owner now (or a key of the admin CLI) may use them (issue 23 item 8; ROLE_RULES).
  if (!keyMay(principal, 'useThirdPartyTools')) scopes.delete('mcp:thirdparty');
  return {
    decisions,
    standing: standingOf(row),
    auth: {
      ok: true,
      principal: {
        kind: 'api_key',
        workspaceId: principal.workspaceId,
        userId: principal.createdByUserId,
        scopes,
        defaultProductId: principal.defaultProductId,
        keyId: principal.keyId,
        rateKey: credentialRateKey(req)!,
      },
    },
  };
}
