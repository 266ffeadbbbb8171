import { Router, type Response } from 'express';
import { roleMay } from '@loupe/accounts';
import {
  ErasureInputError, listErasures, listSuppressions, liftSuppression, parseErasureInput, requestErasure, type ErasureView,
} from '@loupe/erasure';
import { form, pages, renderAccount, str, type AccountDeps, type InWorkspace, type Runtime } from './context';

const PHASE_LABELS: Record<string, string> = {
  discover_records: 'Finding the person in records', discover_sources: 'Finding the person in sources', discover_signals: 'Finding the person in signals',
  records: 'Redacting records and deleting their files', sources: 'Redacting sources', signals: 'Deleting and redacting signals',
  signal_changes: 'Redacting signal history', opportunities: 'Renaming opportunities', shaping_notes: 'Redacting shaping notes',
  other: 'Redacting other copies', done: 'Done',
};

const COUNT_LABELS: Array<[keyof ErasureView['counts'], string, string]> = [
  ['records', 'record', 'records'], ['attachments', 'file deleted', 'files deleted'], ['sources', 'source', 'sources'], ['segments', 'segment', 'segments'],
  ['signalsDeleted', 'signal deleted', 'signals deleted'], ['signalsRedacted', 'signal redacted', 'signals redacted'], ['signalChanges', 'history entry', 'history entries'],
  ['opportunities', 'opportunity', 'opportunities'], ['shapingNotes', 'shaping note', 'shaping notes'], ['other', 'other copy', 'other copies'],
];

function summary(e: ErasureView): string {
  const parts = COUNT_LABELS.filter(([k]) => (e.counts[k] ?? 0) > 0).map(([k, one, many]) => `${e.counts[k]} ${e.counts[k] === 1 ? one : many}`);
  return parts.length ? parts.join(', ') : e.status === 'complete' ? 'Nothing named them' : '—';
}

/**
 * Privacy (issue 28 item 2): erase a person from the workspace, follow the erasure, see and lift
 * suppressions, and the audit of who asked. Everyone in the workspace sees it; only owners act, since
 * an erasure cannot be undone. Nothing on the page names an erased person: requests show only which
 * kind of identifier was given.
 */
export function privacyPages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);

  const show = async (ctx: InWorkspace, res: Response, extra: Record<string, unknown> = {}, status = 200) => {
    const erasures = await listErasures(ctx.rt.pool, ctx.workspace.id, 50);
    const suppressions = await listSuppressions(ctx.rt.pool, ctx.workspace.id, { includeLifted: true, limit: 200 });
    renderAccount(res, 'account-privacy', ctx, {
      title: 'Privacy', section: 'privacy', owner: roleMay(ctx.workspace.role, 'erasePerson') && roleMay(ctx.workspace.role, 'liftSuppression'), canErase: Boolean(deps.boss),
      erasures: erasures.map((e) => ({ ...e, phaseLabel: PHASE_LABELS[e.phase] ?? e.phase, summary: summary(e) })),
      running: erasures.some((e) => e.status === 'queued' || e.status === 'running'),
      active: suppressions.filter((s) => !s.liftedAt), lifted: suppressions.filter((s) => s.liftedAt), ...extra,
    }, status);
  };

  router.get('/account/w/:ws/privacy', inWorkspace((ctx, req, res) => show(ctx, res, { done: str(req.query.done) })));

  router.post('/account/w/:ws/privacy/erasures', form, inWorkspace(async (ctx, req, res) => {
    const values = { email: str(req.body.email).trim(), participant_id: str(req.body.participant_id).trim() };
    if (!roleMay(ctx.workspace.role, 'erasePerson')) return show(ctx, res, { error: 'Only owners can erase a person: it cannot be undone.' }, 403);
    if (!deps.boss) return show(ctx, res, { error: 'Erasures are not available here: this server has no job queue.', values }, 503);
    if (str(req.body.confirm) !== 'yes') return show(ctx, res, { error: 'Tick the box to confirm: an erasure cannot be undone.', values }, 400);
    let input;
    try {
      input = parseErasureInput(values);
    } catch (error) {
      if (error instanceof ErasureInputError) return show(ctx, res, { error: error.message.replace(/^email: /, 'Email: ').replace(/^participant_id: /, 'Participant id: '), values }, 400);
      throw error;
    }
    await requestErasure(ctx.rt.pool, deps.boss, {
      workspaceId: ctx.workspace.id, email: input.email, participantId: input.participantId, by: { userId: ctx.user.id, label: ctx.user.email }, now: new Date(),
    });
    res.redirect(303, `/account/w/${ctx.workspace.id}/privacy?done=erasing`);
  }));

  router.post('/account/w/:ws/privacy/suppressions/:id/lift', form, inWorkspace(async (ctx, req, res) => {
    if (!roleMay(ctx.workspace.role, 'liftSuppression')) return show(ctx, res, { error: 'Only owners can lift a suppression.' }, 403);
    const lifted = await liftSuppression(ctx.rt.pool, ctx.workspace.id, String(req.params.id), ctx.user.email, new Date());
    if (!lifted) return show(ctx, res, { error: 'That suppression does not exist here or was already lifted.' }, 404);
    res.redirect(303, `/account/w/${ctx.workspace.id}/privacy?done=lifted`);
  }));

  return router;
}
