import { canManage } from '@loupe/accounts';
import { getRetention, RETENTION_MAX_DAYS, setRetention } from '@loupe/lifecycle';
import { Router, type Response } from 'express';
import { form, pages, renderAccount, str, type InWorkspace, type Runtime } from './context';

/** Choices offered besides a number of days of one's own. */
const PRESETS = [30, 90, 180, 365, 730];

/**
 * Data retention (issue 28): everyone sees how long the workspace keeps its sources; owners and admins
 * set it (off, or 1 to 36,500 days). The worker deletes sources that occurred longer ago, hourly, in slices.
 */
export function retentionPages(runtime: Runtime): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);

  const show = async (ctx: InWorkspace, res: Response, extra: Record<string, unknown> = {}, status = 200) => {
    const days = await getRetention(ctx.rt.pool, ctx.workspace.id);
    renderAccount(res, 'account-retention', ctx, {
      title: 'Data retention', section: 'retention', manager: canManage(ctx.workspace.role), days, presets: PRESETS, max: RETENTION_MAX_DAYS, ...extra,
    }, status);
  };

  router.get('/account/w/:ws/retention', inWorkspace((ctx, req, res) => show(ctx, res, { done: str(req.query.done) })));

  router.post('/account/w/:ws/retention', form, inWorkspace(async (ctx, req, res) => {
    if (!canManage(ctx.workspace.role)) return show(ctx, res, { error: 'Only owners and admins can change how long sources are kept.' }, 403);
    const choice = str(req.body.retention);
    const custom = str(req.body.days).trim();
    let days: number | null;
    if (choice === 'off') days = null;
    else if (choice === 'custom') days = /^\d{1,5}$/.test(custom) ? Number(custom) : Number.NaN;
    else days = /^\d{1,5}$/.test(choice) ? Number(choice) : Number.NaN;
    if (days !== null && (!Number.isInteger(days) || days < 1 || days > RETENTION_MAX_DAYS)) {
      return show(ctx, res, { error: `Give a whole number of days from 1 to ${RETENTION_MAX_DAYS.toLocaleString('en')}, or choose “Keep everything”.` }, 400);
    }
    await setRetention(ctx.rt.pool, ctx.workspace.id, days);
    res.redirect(303, `/account/w/${ctx.workspace.id}/retention?done=${days === null ? 'off' : 'set'}`);
  }));

  return router;
}
