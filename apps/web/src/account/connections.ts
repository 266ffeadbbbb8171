import { canManage } from '@loupe/accounts';
import { cancelWaitingSyncs, connectionView, findConnection, listConnectionRows, setPaused } from '@loupe/connectors';
import { enqueue, QUEUES } from '@loupe/jobs';
import type { ConnectionView } from '@loupe/records';
import { Router, type Response } from 'express';
import { form, pages, renderAccount, str, type AccountDeps, type InWorkspace, type Runtime } from './context';

const VENDORS: Record<string, string> = { zendesk: 'Zendesk Support', intercom: 'Intercom', slack: 'Slack', gong: 'Gong' };

/** What the page shows of a connection: its view (never its credentials), with the vendor's name. */
function shown(c: ConnectionView) {
  return { ...c, vendor: VENDORS[c.kind] ?? c.kind, host: new URL(c.base_url).host };
}

/**
 * Connections to vendors (issue 45): everyone in the workspace sees each connection's status, last sync, what it
 * brought in and its last error; owners and admins sync it now, pause and resume it. Connections are made
 * through the API (credentials go in there and never come back).
 */
export function connectionPages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);

  const show = async (ctx: InWorkspace, res: Response, extra: Record<string, unknown> = {}, status = 200) => {
    const rows = await listConnectionRows(ctx.rt.pool, ctx.workspace.id);
    renderAccount(res, 'account-connections', ctx, {
      title: 'Connections', section: 'connections', manager: canManage(ctx.workspace.role), connections: rows.map((r) => shown(connectionView(r))), ...extra,
    }, status);
  };

  router.get('/account/w/:ws/connections', inWorkspace((ctx, req, res) => show(ctx, res, { done: str(req.query.done) })));

  router.post('/account/w/:ws/connections/:id/:action', form, inWorkspace(async (ctx, req, res) => {
    const action = String(req.params.action);
    if (!['sync', 'pause', 'resume'].includes(action)) return show(ctx, res, { error: 'There is no such action.' }, 404);
    if (!canManage(ctx.workspace.role)) return show(ctx, res, { error: 'Only owners and admins can sync, pause or resume a connection.' }, 403);
    const row = await findConnection(ctx.rt.pool, ctx.workspace.id, String(req.params.id));
    if (!row) return show(ctx, res, { error: 'That connection does not exist (any more).' }, 404);
    if (!deps.boss) return show(ctx, res, { error: 'Syncing is not available here: this server has no job queue.' }, 503);
    const now = new Date();
    if (action === 'pause') {
      await setPaused(ctx.rt.pool, ctx.workspace.id, row.id, true, now);
      await cancelWaitingSyncs(ctx.rt.pool, deps.boss, row.id);
    }
    else if (action === 'resume') {
      const resumed = await setPaused(ctx.rt.pool, ctx.workspace.id, row.id, false, now);
      if (row.status === 'paused' && resumed?.status === 'active') await enqueue(deps.boss, QUEUES.syncConnection, { workspaceId: row.workspace_id, connectionId: row.id, reason: 'now' });
    } else {
      if (row.status !== 'active') {
        return show(ctx, res, {
          error: row.status === 'paused' ? 'This connection is paused: resume it to sync.' : 'This connection is failing: give it new credentials (PATCH /api/v1/connections/{id}) to sync it again.',
        }, 409);
      }
      await enqueue(deps.boss, QUEUES.syncConnection, { workspaceId: row.workspace_id, connectionId: row.id, reason: 'now' });
    }
    res.redirect(303, `/account/w/${ctx.workspace.id}/connections?done=${action}`);
  }));

  return router;
}
