import { hash } from 'node:crypto';
import type { Request } from 'express';
import type pg from 'pg';
import { authenticateApiKey } from '@loupe/api-keys';
import type { AccessTokenCheck } from '@loupe/oauth';
import type { Principal } from './principal';

export type Authentication =
  | { ok: true; principal: Principal }
  | { ok: false; status: 401 | 403; body: Record<string, string>; challenge?: boolean };

export interface AuthDeps {
  pool: pg.Pool;
  servicePrefix: string;
  verifyAccessToken: (token: string) => Promise<AccessTokenCheck>;
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

/**
 * The two ways in (spec 5.1, 5.8, 7.2): a bearer token wins over a key; the workspace and the acting
 * user come from the credential only. The token check includes membership, so a removed user is
 * refused on the very next request; a key acts as its creator and stops when the creator leaves.
 */
export async function authenticate(req: Request, deps: AuthDeps): Promise<Authentication> {
  const authorization = req.get('authorization');
  if (authorization !== undefined) {
    const match = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
    if (!match) return { ok: false, status: 401, body: { error: 'invalid_token', error_description: 'The Authorization header must be "Bearer <access token>"' } };
    const check = await deps.verifyAccessToken(match[1]!);
    if (!check.ok) return { ok: false, status: 401, body: { error: 'invalid_token', error_description: check.description } };
    const scopes = new Set(check.token.scopes);
    if (!MCP_ACCESS.some((s) => scopes.has(s))) {
      return { ok: false, status: 403, body: { error: 'insufficient_scope', error_description: 'This access token was granted without mcp:read or mcp:write; connect again asking for them' } };
    }
    scopes.delete('mcp:thirdparty'); // never on OAuth connections (spec 5.3)
    return {
      ok: true,
      principal: {
        kind: 'oauth', workspaceId: check.token.workspaceId, userId: check.token.userId, scopes, defaultProductId: null, clientId: check.token.clientId,
        rateKey: credentialRateKey(req)!,
      },
    };
  }
  const key = req.get('x-api-key');
  if (key === undefined) {
    return { ok: false, status: 401, challenge: true, body: { error: 'Unauthorized', error_description: 'Send an OAuth access token (Authorization: Bearer) or an API key (x-api-key)' } };
  }
  const principal = await authenticateApiKey(deps.pool, key, deps.servicePrefix, deps.now());
  if (!principal) return { ok: false, status: 401, body: { error: 'Invalid API key: it is unknown or was revoked. Create a key in the workspace settings.' } };
  if (!principal.permissions.some((p) => MCP_ACCESS.includes(p))) {
    return { ok: false, status: 403, body: { error: 'This API key has no MCP permission: it needs mcp:read (and mcp:write to write signals).' } };
  }
  if (!principal.creatorIsMember) {
    return { ok: false, status: 401, body: { error: 'Invalid API key: the person who created it no longer belongs to the workspace. Create a new key.' } };
  }
  const scopes = new Set(principal.permissions.filter((p) => p.startsWith('mcp:')));
  // Third-party tools run with the credentials the workspace's owners connected: only a key whose
  // creator is an owner now (or a key of the admin CLI) may use them (issue 23 item 8).
  if (principal.createdByUserId !== null && principal.creatorRole !== 'owner') scopes.delete('mcp:thirdparty');
  return {
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
  };
}
