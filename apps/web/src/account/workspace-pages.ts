import { Router } from 'express';
import { canManage } from '@loupe/accounts';
import { consumerNames, creditStatus, planOf, usageByConsumer } from '@loupe/credits';
import { findConnection, listConnections, revokeGrant, SCOPE_DESCRIPTIONS, type Scope } from '@loupe/oauth/grants';
import { createProduct, createProject, listProducts, NotFoundError, renameProduct, renameProject } from '@loupe/workspaces';
import { form, pages, renderAccount, str, type AccountDeps, type InWorkspace, type Runtime } from './context';

const NAME_MAX = 120;
const nameOk = (name: string) => name.length >= 1 && name.length <= NAME_MAX;

/**
 * Connected applications (beyond the spec, which has no such page): owners and admins see every
 * application connected to the workspace and can revoke any; members see and revoke their own.
 * Products and projects: everyone sees them with their ids; owners and admins create and rename.
 * Credits and usage: the balance, the plan, and what used the credits.
 */
export function workspacePages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);

  const showApps = async (ctx: InWorkspace, res: Parameters<typeof renderAccount>[0], extra: Record<string, unknown> = {}, status = 200) => {
    const manager = canManage(ctx.workspace.role);
    const connections = await listConnections(ctx.rt.pool, ctx.workspace.id, manager ? {} : { userId: ctx.user.id });
    renderAccount(res, 'account-apps', ctx, {
      title: 'Connected applications', section: 'apps', manager,
      connections: connections.map((c) => ({ ...c, permissions: c.scopes.map((s) => SCOPE_DESCRIPTIONS[s as Scope]).filter(Boolean) })),
      ...extra,
    }, status);
  };

  router.get('/account/w/:ws/apps', inWorkspace((ctx, req, res) => showApps(ctx, res, { done: str(req.query.done) === 'revoked' })));

  router.post('/account/w/:ws/apps/:grantId/revoke', form, inWorkspace(async (ctx, req, res) => {
    const grantId = String(req.params.grantId);
    const connection = await findConnection(ctx.rt.pool, ctx.workspace.id, grantId, canManage(ctx.workspace.role) ? undefined : ctx.user.id);
    if (!connection) return showApps(ctx, res, { error: 'That application is not connected to this workspace, or it is not yours to disconnect.' }, 404);
    await revokeGrant(ctx.rt.pool, grantId, ctx.rt.clock);
    res.redirect(303, `/account/w/${ctx.workspace.id}/apps?done=revoked`);
  }));

  const showProducts = async (ctx: InWorkspace, res: Parameters<typeof renderAccount>[0], extra: Record<string, unknown> = {}, status = 200) => {
    renderAccount(res, 'account-products', ctx, {
      title: 'Products and projects', section: 'products', manager: canManage(ctx.workspace.role),
      products: await listProducts(deps.db, ctx.workspace.id), max: NAME_MAX, ...extra,
    }, status);
  };
  /** Runs a change an owner or admin may make, then shows the page again (or the problem). */
  const change = (work: (ctx: InWorkspace, name: string, params: Record<string, string>) => Promise<string>) =>
    inWorkspace(async (ctx, req, res) => {
      if (!canManage(ctx.workspace.role)) return showProducts(ctx, res, { error: 'Only owners and admins can change products and projects.' }, 403);
      const name = str(req.body.name).trim();
      if (!nameOk(name)) return showProducts(ctx, res, { error: `Give it a name of 1 to ${NAME_MAX} characters.` }, 400);
      try {
        const done = await work(ctx, name, req.params as Record<string, string>);
        res.redirect(303, `/account/w/${ctx.workspace.id}/products?done=${done}`);
      } catch (error) {
        if (error instanceof NotFoundError) return showProducts(ctx, res, { error: 'That product or project is not in this workspace.' }, 404);
        throw error;
      }
    });

  router.get('/account/w/:ws/products', inWorkspace((ctx, req, res) => showProducts(ctx, res, { done: str(req.query.done) })));
  router.post('/account/w/:ws/products', form, change(async (ctx, name) => (await createProduct(deps.db, ctx.workspace.id, { name }), 'product-created')));
  router.post('/account/w/:ws/products/:id/rename', form, change(async (ctx, name, p) => (await renameProduct(deps.db, ctx.workspace.id, p.id!, name), 'renamed')));
  router.post('/account/w/:ws/products/:id/projects', form, change(async (ctx, name, p) => (await createProject(deps.db, ctx.workspace.id, p.id!, { name }), 'project-created')));
  router.post('/account/w/:ws/projects/:id/rename', form, change(async (ctx, name, p) => (await renameProject(deps.db, ctx.workspace.id, p.id!, name), 'renamed')));

  router.get('/account/w/:ws/usage', inWorkspace(async (ctx, _req, res) => {
    const status = await creditStatus(ctx.rt.pool, ctx.workspace.id);
    const plan = await planOf(ctx.rt.pool, status.planId);
    const usage = await usageByConsumer(ctx.rt.pool, ctx.workspace.id, new Date(ctx.rt.clock.now() - 30 * 86_400_000));
    const nameOf = await consumerNames(ctx.rt.pool, ctx.workspace.id);
    renderAccount(res, 'account-usage', ctx, {
      title: 'Credits and usage', section: 'usage', status, plan,
      usage: usage.map((u) => ({
        ...u,
        who: u.consumer === 'records' ? 'Processed records and added sources' : `${u.consumer === 'api_key' ? 'API key' : 'Application'}: ${nameOf.get(u.id!) ?? u.id}`,
      })),
    });
  }));

  return router;
}
