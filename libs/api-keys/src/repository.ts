import { newId, type Db } from '@loupe/db';
import type pg from 'pg';
import { parsePermissions, type ApiKeyPermission } from './permissions';
import { generateApiKey, hashApiKey, looksLikeApiKey } from './secret';

export class ApiKeyError extends Error {
  override name = 'ApiKeyError';
}

export interface NewApiKey {
  workspaceId: string;
  name: string;
  permissions: readonly string[];
  defaultProductId?: string | undefined;
  createdByUserId?: string | undefined;
  servicePrefix: string;
}

/** Creates a key and returns its secret, which is never stored and cannot be shown again. */
export async function createApiKey(db: Db, input: NewApiKey) {
  const permissions = parsePermissions(input.permissions);
  const workspace = await db.workspace.findUnique({ where: { id: input.workspaceId } });
  if (!workspace) throw new ApiKeyError(`Workspace ${input.workspaceId} not found`);
  if (input.defaultProductId) {
    const product = await db.product.findFirst({ where: { id: input.defaultProductId, workspaceId: input.workspaceId } });
    if (!product) throw new ApiKeyError(`Product ${input.defaultProductId} not found in workspace ${input.workspaceId}`);
  }
  if (permissions.some((p) => p.startsWith('mcp:')) && !input.defaultProductId) {
    throw new ApiKeyError('MCP permissions require a default product (--product)');
  }
  const { key, displayPrefix, hash } = generateApiKey(input.servicePrefix);
  const row = await db.apiKey.create({
    data: {
      id: newId('key'),
      workspaceId: input.workspaceId,
      name: input.name,
      displayPrefix,
      secretHash: hash,
      permissions,
      defaultProductId: input.defaultProductId ?? null,
      createdByUserId: input.createdByUserId ?? null,
    },
  });
  return { key, apiKey: row };
}

export async function listApiKeys(db: Db, workspaceId: string) {
  return db.apiKey.findMany({
    where: { workspaceId },
    orderBy: { createdAt: 'asc' },
    select: {
      id: true,
      name: true,
      displayPrefix: true,
      permissions: true,
      defaultProductId: true,
      createdAt: true,
      lastUsedAt: true,
      revokedAt: true,
    },
  });
}

export async function revokeApiKey(db: Db, workspaceId: string, keyId: string, now = new Date()) {
  const { count } = await db.apiKey.updateMany({ where: { id: keyId, workspaceId, revokedAt: null }, data: { revokedAt: now } });
  if (count === 0) {
    const existing = await db.apiKey.findFirst({ where: { id: keyId, workspaceId } });
    if (!existing) throw new ApiKeyError(`API key ${keyId} not found in workspace ${workspaceId}`);
  }
}

export interface ApiKeyPrincipal {
  keyId: string;
  workspaceId: string;
  permissions: ApiKeyPermission[];
  defaultProductId: string | null;
  createdByUserId: string | null;
  /** The key's creator still belongs to its workspace (true for keys made without a creator). */
  creatorIsMember: boolean;
  /** The creator's role in the workspace now (null for a key made without a creator, or a creator who left). */
  creatorRole: 'owner' | 'admin' | 'member' | null;
}

// Named, so each connection parses and plans it once: it runs on every authenticated request.
const AUTHENTICATE = {
  name: 'api-key-authenticate',
  text: `SELECT k.id, k.workspace_id, k.permissions, k.default_product_id, k.created_by_user_id, k.last_used_at,
                (k.created_by_user_id IS NULL OR m.user_id IS NOT NULL) AS creator_is_member, m.role AS creator_role
           FROM api_keys k
           LEFT JOIN memberships m ON m.workspace_id = k.workspace_id AND m.user_id = k.created_by_user_id
          WHERE k.secret_hash = $1 AND k.revoked_at IS NULL`,
};

/**
 * The principal of a presented key, or null for a missing, unknown or revoked one.
 * The lookup is by SHA-256 of the key through a unique index: no secret is compared
 * in application code, so there is no timing to leak. `last_used_at` is refreshed at
 * most once a minute to keep the hot path free of writes.
 */
export async function authenticateApiKey(
  pool: pg.Pool,
  presented: string | undefined,
  servicePrefix: string,
  now = new Date(),
): Promise<ApiKeyPrincipal | null> {
  if (!presented || !looksLikeApiKey(presented, servicePrefix)) return null;
  const { rows } = await pool.query<ApiKeyRow>({ ...AUTHENTICATE, values: [hashApiKey(presented)] });
  const row = rows[0];
  return row ? apiKeyPrincipal(pool, row, now) : null;
}

/** The columns of `AUTHENTICATE` (other statements that read a key, the MCP server's, answer the same). */
export interface ApiKeyRow {
  id: string;
  workspace_id: string;
  permissions: ApiKeyPermission[];
  default_product_id: string | null;
  created_by_user_id: string | null;
  last_used_at: Date | null;
  creator_is_member: boolean;
  creator_role: 'owner' | 'admin' | 'member' | null;
}

/** The principal of a key row read by its hash (unrevoked); `last_used_at` refreshed at most once a minute, off the request's path. */
export function apiKeyPrincipal(pool: Pick<pg.Pool, 'query'>, row: ApiKeyRow, now: Date): ApiKeyPrincipal {
  if (!row.last_used_at || now.getTime() - row.last_used_at.getTime() > 60_000) {
    pool.query('UPDATE api_keys SET last_used_at = $2 WHERE id = $1', [row.id, now]).catch(() => {});
  }
  return {
    keyId: row.id,
    workspaceId: row.workspace_id,
    permissions: row.permissions,
    defaultProductId: row.default_product_id,
    createdByUserId: row.created_by_user_id,
    creatorIsMember: row.creator_is_member,
    creatorRole: row.creator_role,
  };
}
