import { Router } from 'express';
import { API_KEY_PERMISSIONS, ApiKeyError, createApiKey, revokeApiKey } from '@loupe/api-keys';
import { canManage, roleMay } from '@loupe/accounts';
import { listProducts } from '@loupe/workspaces';
import { form, pages, renderAccount, str, type AccountDeps, type InWorkspace, type Runtime } from './context';

/** Spec 5.8 leaves the number open; ten live keys per workspace keeps them reviewable. */
export const MAX_ACTIVE_KEYS = 10;

const PERMISSION_LABELS: Record<string, string> = {
  'api:read': 'Read batches (ingestion API)',
  'api:write': 'Send records (ingestion API)',
  'mcp:read': 'Use the MCP tools',
  'mcp:write': 'Write signals over MCP',
  'mcp:thirdparty': "Use the workspace's third-party MCP tools",
};

interface KeyRow {
  id: string; name: string; display_prefix: string; permissions: string[]; default_product: string | null;
  created_at: Date; last_used_at: Date | null; revoked_at: Date | null; created_by: string | null; created_by_user_id: string | null;
}

async function activeKeys(ctx: InWorkspace): Promise<number> {
  const { rows } = await ctx.rt.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM api_keys WHERE workspace_id = $1 AND revoked_at IS NULL', [ctx.workspace.id]);
  return rows[0]!.n;
}

async function keysOf(ctx: InWorkspace, onlyMine: boolean): Promise<KeyRow[]> {
  const { rows } = await ctx.rt.pool.query<KeyRow>(
    `SELECT k.id, k.name, k.display_prefix, k.permissions, p.name AS default_product, k.created_at, k.last_used_at, k.revoked_at,
            u.email AS created_by, k.created_by_user_id
       FROM api_keys k LEFT JOIN products p ON p.id = k.default_product_id LEFT JOIN users u ON u.id = k.created_by_user_id
      WHERE k.workspace_id = $1 AND ($2::text IS NULL OR k.created_by_user_id = $2)
      ORDER BY k.revoked_at IS NOT NULL, k.created_at DESC`,
    [ctx.workspace.id, onlyMine ? ctx.user.id : null],
  );
  return rows;
}

/**
 * API keys (spec 5.8): owners and admins see and revoke every key of the workspace; members see,
 * create and revoke their own (a key acts as the person who created it). A new key is shown once.
 */
export function keyPages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);

  const show = async (ctx: InWorkspace, res: Parameters<typeof renderAccount>[0], extra: Record<string, unknown> = {}, status = 200) => {
    const manager = canManage(ctx.workspace.role);
    const keys = await keysOf(ctx, !manager);
    const active = await activeKeys(ctx);
    renderAccount(res, 'account-keys', ctx, {
      title: 'API keys', section: 'keys', manager, keys, active, max: MAX_ACTIVE_KEYS,
      products: await listProducts(deps.db, ctx.workspace.id),
      // mcp:thirdparty is offered to owners only (it uses the credentials they connected).
      permissions: API_KEY_PERMISSIONS.filter((p) => p !== 'mcp:thirdparty' || roleMay(ctx.workspace.role, 'useThirdPartyTools')).map((p) => ({ id: p, label: PERMISSION_LABELS[p] ?? p })),
      labels: PERMISSION_LABELS,
      ...extra,
    }, status);
  };

  router.get('/account/w/:ws/keys', inWorkspace((ctx, req, res) => show(ctx, res, { done: str(req.query.done) })));

  router.post('/account/w/:ws/keys', form, inWorkspace(async (ctx, req, res) => {
    const name = str(req.body.name).trim();
    const raw = req.body.permissions as unknown;
    const permissions = (Array.isArray(raw) ? raw : [raw]).filter((p): p is string => typeof p === 'string');
    const productId = str(req.body.product) || undefined;
    const values = { name, permissions, product: productId };
    const fail = (error: string) => show(ctx, res, { error, values }, 400);
    if (name.length < 1 || name.length > 80) return fail('Give the key a name of 1 to 80 characters, saying where it is used (for example "Zendesk sync").');
    if (!permissions.length) return fail('Choose at least one permission.');
    if (permissions.some((p) => !(API_KEY_PERMISSIONS as readonly string[]).includes(p))) return fail('Choose the permissions from the list on this page.');
    if (permissions.some((p) => p.startsWith('mcp:')) && !productId) return fail('MCP permissions need a default product: choose one.');
    if (permissions.includes('mcp:thirdparty') && !roleMay(ctx.workspace.role, 'useThirdPartyTools')) {
      return fail("Only owners can create keys with the third-party permission: those tools use the credentials the workspace's owners connected. Ask an owner.");
    }
    if ((await activeKeys(ctx)) >= MAX_ACTIVE_KEYS) {
      return fail(`This workspace already has ${MAX_ACTIVE_KEYS} active keys, the most it can have. Revoke one you no longer use, then create this one.`);
    }
    try {
      const { key, apiKey } = await createApiKey(deps.db, {
        workspaceId: ctx.workspace.id, name, permissions, defaultProductId: productId, createdByUserId: ctx.user.id, servicePrefix: ctx.rt.servicePrefix,
      });
      renderAccount(res, 'account-key-created', ctx, { title: 'Your new API key', section: 'keys', key, apiKey, labels: PERMISSION_LABELS });
    } catch (error) {
      if (error instanceof ApiKeyError) return fail(error.message);
      throw error;
    }
  }));

  router.post('/account/w/:ws/keys/:id/revoke', form, inWorkspace(async (ctx, req, res) => {
    const keyId = String(req.params.id);
    const { rows } = await ctx.rt.pool.query<{ created_by_user_id: string | null }>('SELECT created_by_user_id FROM api_keys WHERE id = $1 AND workspace_id = $2', [keyId, ctx.workspace.id]);
    const key = rows[0];
    if (!key || (!canManage(ctx.workspace.role) && key.created_by_user_id !== ctx.user.id)) {
      return show(ctx, res, { error: 'That key is not one you can revoke.' }, 404);
    }
    await revokeApiKey(deps.db, ctx.workspace.id, keyId);
    res.redirect(303, `/account/w/${ctx.workspace.id}/keys?done=revoked`);
  }));

  return router;
}
