import { Router, type Response } from 'express';
import { roleMay } from '@loupe/accounts';
import {
  confirmErasure, ErasureInputError, ErasureStateError, getErasure, listErasures, listSuppressions, liftSuppression, MIN_PARTICIPANT_ID_LENGTH, parseErasureInput,
  requestErasure, type ErasureView, type SampleKind,
} from '@loupe/erasure';
import { form, pages, renderAccount, str, type AccountDeps, type InWorkspace, type Runtime } from './context';

const PHASE_LABELS: Record<string, string> = {
  discover_records: 'Finding the person in records', discover_sources: 'Finding the person in sources', discover_signals: 'Finding the person in signals',
  shared_records: 'Checking who else carries their names', shared_sources: 'Checking who else carries their names', shared_signals: 'Checking who else carries their names',
  records: 'Redacting records and deleting their files', sources: 'Redacting sources', signals: 'Deleting and redacting signals',
  signal_changes: 'Redacting signal history', opportunities: 'Renaming opportunities', shaping_notes: 'Redacting shaping notes',
  other: 'Redacting other copies', done: 'Done',
};

/** While a dry run runs, the same phases only look: they say so. */
const previewLabel = (phase: string) => (phase.startsWith('discover') || phase.startsWith('shared') ? PHASE_LABELS[phase] : 'Counting what would be erased') ?? phase;

const COUNT_LABELS: Array<[keyof ErasureView['counts'], string, string]> = [
  ['records', 'record', 'records'], ['attachments', 'file deleted', 'files deleted'], ['sources', 'source', 'sources'], ['segments', 'segment', 'segments'],
  ['signalsDeleted', 'signal deleted', 'signals deleted'], ['signalsRedacted', 'signal redacted', 'signals redacted'], ['signalChanges', 'history entry', 'history entries'],
  ['opportunities', 'opportunity', 'opportunities'], ['shapingNotes', 'shaping note', 'shaping notes'], ['other', 'other copy', 'other copies'],
];

const SAMPLE_LABELS: Record<SampleKind, string> = {
  record: 'Record', source: 'Source', signal: 'Signal', signal_change: 'Signal history', opportunity: 'Opportunity', shaping_note: 'Shaping note', other: 'Other copy',
};

function summary(e: ErasureView): string {
  const parts = COUNT_LABELS.filter(([k]) => (e.counts[k] ?? 0) > 0).map(([k, one, many]) => `${e.counts[k]} ${e.counts[k] === 1 ? one : many}`);
  if (e.status === 'expired') return 'Preview not confirmed';
  if (e.dryRun) return e.status === 'previewed' ? (parts.length ? `Would erase ${parts.join(', ')}` : 'Nothing names them') : '—';
  return parts.length ? parts.join(', ') : e.status === 'complete' ? 'Nothing named them' : '—';
}

const STATUS_LABELS: Record<string, string> = { queued: 'Queued', running: 'Running', previewed: 'Preview ready', complete: 'Complete', expired: 'Preview expired', failed: 'Failed' };

/** The rows of the counts table: label and number, only those above zero. */
const countRows = (e: ErasureView) => COUNT_LABELS.filter(([k]) => (e.counts[k] ?? 0) > 0).map(([k, one, many]) => ({ label: e.counts[k] === 1 ? one : many, n: e.counts[k]! }));

const fieldLabel = (message: string) => message.replace(/^email: /, 'Email: ').replace(/^participant_id: /, 'Participant id: ');

/**
 * Privacy (issue 28 item 2, issue 41 finding 3): erase a person from the workspace, follow the erasure,
 * see and lift suppressions, and the audit of who asked. Everyone in the workspace sees it; only owners
 * act, since an erasure cannot be undone. An erasure starts as a preview (a dry run): its page shows what
 * would be erased, with a few examples, and the names found beside the address or id, to tick; the owner
 * confirms there. Nothing on the Privacy page names an erased person: requests show only which kind of
 * identifier was given; a preview, which only owners see, names what it found, until it is confirmed or expires.
 */
export function privacyPages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);
  const base = (ctx: InWorkspace) => `/account/w/${ctx.workspace.id}/privacy`;

  const show = async (ctx: InWorkspace, res: Response, extra: Record<string, unknown> = {}, status = 200) => {
    const erasures = await listErasures(ctx.rt.pool, ctx.workspace.id, 50);
    const suppressions = await listSuppressions(ctx.rt.pool, ctx.workspace.id, { includeLifted: true, limit: 200 });
    renderAccount(res, 'account-privacy', ctx, {
      title: 'Privacy', section: 'privacy', owner: roleMay(ctx.workspace.role, 'erasePerson') && roleMay(ctx.workspace.role, 'liftSuppression'), canErase: Boolean(deps.boss),
      minIdLength: MIN_PARTICIPANT_ID_LENGTH,
      erasures: erasures.map((e) => ({
        ...e, statusLabel: STATUS_LABELS[e.status] ?? e.status, phaseLabel: e.dryRun ? previewLabel(e.phase) : PHASE_LABELS[e.phase] ?? e.phase, summary: summary(e),
      })),
      running: erasures.some((e) => e.status === 'queued' || e.status === 'running'),
      active: suppressions.filter((s) => !s.liftedAt), lifted: suppressions.filter((s) => s.liftedAt), ...extra,
    }, status);
  };

  /** A dry run's page: being prepared, or what it would erase with the names to tick and the confirmation. */
  const showPreview = async (ctx: InWorkspace, res: Response, id: string, extra: Record<string, unknown> = {}, status = 200) => {
    const erasure = await getErasure(ctx.rt.pool, ctx.workspace.id, id);
    if (!erasure) return show(ctx, res, { error: 'There is no such preview here.' }, 404);
    // confirmed (or never a dry run): its progress is on the Privacy page
    if (!erasure.dryRun) return res.redirect(303, base(ctx));
    const preview = erasure.preview;
    renderAccount(res, 'account-privacy-preview', ctx, {
      title: 'Erasure preview', section: 'privacy', erasure, statusLabel: STATUS_LABELS[erasure.status] ?? erasure.status, phaseLabel: previewLabel(erasure.phase),
      counts: countRows(erasure), preview,
      samples: (preview?.samples ?? []).map((s) => ({ ...s, label: SAMPLE_LABELS[s.kind] })),
      offered: (preview?.names ?? []).filter((n) => !n.shared), shared: (preview?.names ?? []).filter((n) => n.shared),
      ticked: [], ...extra,
    }, status);
  };

  router.get('/account/w/:ws/privacy', inWorkspace((ctx, req, res) => show(ctx, res, { done: str(req.query.done) })));

  // Erasing starts with a dry run: nothing changes until the owner confirms its preview.
  router.post('/account/w/:ws/privacy/erasures', form, inWorkspace(async (ctx, req, res) => {
    const values = { email: str(req.body.email).trim(), participant_id: str(req.body.participant_id).trim() };
    if (!roleMay(ctx.workspace.role, 'erasePerson')) return show(ctx, res, { error: 'Only owners can erase a person: it cannot be undone.' }, 403);
    if (!deps.boss) return show(ctx, res, { error: 'Erasures are not available here: this server has no job queue.', values }, 503);
    let input;
    try {
      input = parseErasureInput(values);
    } catch (error) {
      if (error instanceof ErasureInputError) return show(ctx, res, { error: fieldLabel(error.message), values }, 400);
      throw error;
    }
    const erasure = await requestErasure(ctx.rt.pool, deps.boss, {
      workspaceId: ctx.workspace.id, email: input.email, participantId: input.participantId, dryRun: true, by: { userId: ctx.user.id, label: ctx.user.email }, now: new Date(),
    });
    res.redirect(303, `${base(ctx)}/erasures/${erasure.id}`);
  }));

  router.get('/account/w/:ws/privacy/erasures/:id', inWorkspace(async (ctx, req, res) => {
    if (!roleMay(ctx.workspace.role, 'erasePerson')) return show(ctx, res, { error: 'Only owners can see an erasure\'s preview: it names the person.' }, 403);
    return showPreview(ctx, res, String(req.params.id));
  }));

  router.post('/account/w/:ws/privacy/erasures/:id/confirm', form, inWorkspace(async (ctx, req, res) => {
    const id = String(req.params.id);
    if (!roleMay(ctx.workspace.role, 'erasePerson')) return show(ctx, res, { error: 'Only owners can erase a person: it cannot be undone.' }, 403);
    if (!deps.boss) return show(ctx, res, { error: 'Erasures are not available here: this server has no job queue.' }, 503);
    const raw = req.body.names as unknown;
    const names = (Array.isArray(raw) ? raw : raw === undefined ? [] : [raw]).filter((n): n is string => typeof n === 'string');
    if (str(req.body.confirm) !== 'yes') return showPreview(ctx, res, id, { error: 'Tick the box to confirm: an erasure cannot be undone.', ticked: names }, 400);
    try {
      const confirmed = await confirmErasure(ctx.rt.pool, deps.boss, { workspaceId: ctx.workspace.id, erasureId: id, names, by: { userId: ctx.user.id, label: ctx.user.email }, now: new Date() });
      if (!confirmed) return show(ctx, res, { error: 'There is no such preview here.' }, 404);
    } catch (error) {
      if (error instanceof ErasureInputError) return showPreview(ctx, res, id, { error: error.message, ticked: names }, 400);
      if (error instanceof ErasureStateError) return showPreview(ctx, res, id, { error: error.message }, 409);
      throw error;
    }
    res.redirect(303, `${base(ctx)}?done=erasing`);
  }));

  router.post('/account/w/:ws/privacy/suppressions/:id/lift', form, inWorkspace(async (ctx, req, res) => {
    if (!roleMay(ctx.workspace.role, 'liftSuppression')) return show(ctx, res, { error: 'Only owners can lift a suppression.' }, 403);
    const lifted = await liftSuppression(ctx.rt.pool, ctx.workspace.id, String(req.params.id), ctx.user.email, new Date());
    if (!lifted) return show(ctx, res, { error: 'That suppression does not exist here or was already lifted.' }, 404);
    res.redirect(303, `${base(ctx)}?done=lifted`);
  }));

  return router;
}
