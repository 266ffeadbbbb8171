import express, { Router, type Response } from 'express';
import { consumerNames } from '@loupe/credits';
import {
  decodeCursor, deleteSignals, editSignal, encodeCursor, EvidenceError, getSignal, listOpportunities, listRecentSignals, listSignalChanges, listSignalTypes,
  moveSignals, VERIFIED_FILTERS, type SignalFilter, type VerifiedFilter,
} from '@loupe/evidence';
import { listProducts } from '@loupe/workspaces';
import { form, pages, renderAccount, str, type AccountDeps, type InWorkspace, type Runtime } from './context';

export const SIGNALS_PAGE = 50;
/** The opportunities offered in a "move to" list (biggest first); any other is reached from its own page. */
const MOVE_CHOICES = 300;
const TITLE_MAX = 200;
const CONTENT_MAX = 20_000;

/** The bulk form: a page of checkboxes and a few fields. */
const bulkForm = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: SIGNALS_PAGE + 10 });

/** The verification filter's choices, as the list offers them. */
const VERIFIED_LABELS: Record<VerifiedFilter, string> = {
  all: 'Every quote verified', not_found: 'A quote not found', some: 'Some quotes not found', none: 'No quote found', no_quote: 'No quote', unchecked: 'Not checked (older signals)',
};

const DONE: Record<string, string> = {
  edited: 'Signal saved. Its opportunities are updated in the background if its meaning changed.',
  moved: 'Moved. It stays in this opportunity when the signals are regrouped.',
  deleted: 'Signal deleted.',
  not_a_signal: 'Marked as not a signal and removed.',
  bulk_deleted: 'The selected signals were deleted.',
  bulk_not_a_signal: 'The selected signals were marked as not signals and removed.',
  bulk_moved: 'The selected signals were moved. They stay there when the signals are regrouped.',
};

/** "key:<id>" or "app:<client id>": who wrote a signal, as the filter names it. */
function writerFilter(by: string): Pick<SignalFilter, 'keyId' | 'clientId'> {
  if (by.startsWith('key:')) return { keyId: by.slice(4) };
  if (by.startsWith('app:')) return { clientId: by.slice(4) };
  return {};
}

async function writers(ctx: InWorkspace) {
  const names = await consumerNames(ctx.rt.pool, ctx.workspace.id);
  return [...names].map(([id, name]) => ({ value: `${id.startsWith('key_') ? 'key' : 'app'}:${id}`, label: `${id.startsWith('key_') ? 'API key' : 'Application'}: ${name}` }))
    .sort((a, b) => a.label.localeCompare(b.label));
}

/**
 * Signals (issue 27): the workspace's recent signals with filters, one signal with its history, and a
 * person's corrections (edit, move, delete, "not a signal", one at a time or a page's selection), each
 * recorded with who made it. Every member of the workspace may correct its signals.
 */
export function signalPages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);
  const base = (ctx: InWorkspace) => `/account/w/${ctx.workspace.id}/signals`;

  const showList = async (ctx: InWorkspace, query: Record<string, unknown>, res: Response, extra: Record<string, unknown> = {}, status = 200) => {
    const products = await listProducts(deps.db, ctx.workspace.id);
    const filter = {
      product: products.some((p) => p.id === str(query.product)) ? str(query.product) : '',
      type: str(query.type).slice(0, 64),
      source: str(query.source).slice(0, 128),
      by: str(query.by).slice(0, 140),
      verified: (VERIFIED_FILTERS as readonly string[]).includes(str(query.verified)) ? str(query.verified) : '',
    };
    const after = decodeCursor(str(query.after));
    const page = await listRecentSignals(ctx.rt.pool, ctx.workspace.id, {
      productId: filter.product || undefined, type: filter.type || undefined, sourceId: filter.source || undefined, ...writerFilter(filter.by),
      verified: (filter.verified || undefined) as VerifiedFilter | undefined,
    }, { limit: SIGNALS_PAGE, after });
    const names = await consumerNames(ctx.rt.pool, ctx.workspace.id);
    // Signals move within their product: its opportunities are offered once the product is known (chosen, or the only one).
    const moveProduct = filter.product || (products.length === 1 ? products[0]!.id : '');
    const moveTo = moveProduct ? (await listOpportunities(ctx.rt.pool, ctx.workspace.id, moveProduct, { limit: MOVE_CHOICES, offset: 0 })).items : [];
    const keep = new URLSearchParams(Object.entries(filter).filter(([, v]) => v));
    const nextLink = page.next ? `${base(ctx)}?${new URLSearchParams([...keep, ['after', encodeCursor(page.next)]])}` : undefined;
    renderAccount(res, 'account-signals', ctx, {
      title: 'Signals', section: 'signals', products, filter, types: await listSignalTypes(ctx.rt.pool, ctx.workspace.id), writers: await writers(ctx),
      verifiedChoices: Object.entries(VERIFIED_LABELS).map(([value, label]) => ({ value, label })),
      signals: page.items.map((s) => ({ ...s, writer: s.writtenByKeyId ? names.get(s.writtenByKeyId) ?? 'a revoked key' : s.writtenByClientId ? names.get(s.writtenByClientId) ?? s.writtenByClientId : null })),
      productName: new Map(products.map((p) => [p.id, p.name])),
      filtered: Object.values(filter).some(Boolean), paged: Boolean(after), nextLink, firstLink: `${base(ctx)}${keep.size ? `?${keep}` : ''}`,
      moveTo, done: DONE[str(query.done)], back: `${base(ctx)}${keep.size ? `?${keep}` : ''}`,
      ...extra,
    }, status);
  };

  const showOne = async (ctx: InWorkspace, id: string, res: Response, extra: Record<string, unknown> = {}, status = 200) => {
    const signal = await getSignal(ctx.rt.pool, ctx.workspace.id, id);
    if (!signal) {
      return renderAccount(res, 'account-missing', ctx, {
        title: 'Signal not found', section: 'signals', message: 'This signal does not exist in this workspace: it may have been deleted.', back: base(ctx), backLabel: 'Back to signals',
      }, 404);
    }
    const detail = (await listRecentSignals(ctx.rt.pool, ctx.workspace.id, { signalId: id }, { limit: 1 })).items[0]!;
    const names = await consumerNames(ctx.rt.pool, ctx.workspace.id);
    const products = await listProducts(deps.db, ctx.workspace.id);
    renderAccount(res, 'account-signal', ctx, {
      title: signal.title, section: 'signals', signal: detail,
      product: products.find((p) => p.id === signal.productId),
      writer: detail.writtenByKeyId ? `API key: ${names.get(detail.writtenByKeyId) ?? 'a revoked key'}` : detail.writtenByClientId ? `Application: ${names.get(detail.writtenByClientId) ?? detail.writtenByClientId}` : null,
      types: (await listSignalTypes(ctx.rt.pool, ctx.workspace.id)).filter((t) => t.active || t.key === signal.type),
      moveTo: (await listOpportunities(ctx.rt.pool, ctx.workspace.id, signal.productId, { limit: MOVE_CHOICES, offset: 0 })).items,
      changes: await listSignalChanges(ctx.rt.pool, ctx.workspace.id, { signalId: id, limit: 50 }),
      titleMax: TITLE_MAX, contentMax: CONTENT_MAX,
      ...extra,
    }, status);
  };

  const reviewer = (ctx: InWorkspace) => ({ userId: ctx.user.id, email: ctx.user.email });
  const recompute = async (ctx: InWorkspace, productIds: string[]) => {
    for (const p of productIds) await deps.scheduleRecompute?.(ctx.workspace.id, p);
  };
  /** The list to come back to after a bulk action: the filters it was sent from, never another site. */
  const backTo = (ctx: InWorkspace, raw: unknown) => {
    const back = str(raw);
    return back.startsWith(`${base(ctx)}?`) || back === base(ctx) ? back : base(ctx);
  };
  const withDone = (url: string, done: string) => `${url}${url.includes('?') ? '&' : '?'}done=${done}`;

  router.get('/account/w/:ws/signals', inWorkspace((ctx, req, res) => showList(ctx, req.query, res)));
  router.get('/account/w/:ws/signals/:id', inWorkspace((ctx, req, res) => showOne(ctx, String(req.params.id), res, { done: DONE[str(req.query.done)] })));

  router.post('/account/w/:ws/signals/:id/edit', form, inWorkspace(async (ctx, req, res) => {
    const id = String(req.params.id);
    const title = str(req.body.title).trim();
    const content = str(req.body.content).trim();
    if (!title || title.length > TITLE_MAX) return showOne(ctx, id, res, { error: `Give the signal a title of 1 to ${TITLE_MAX} characters.` }, 400);
    if (!content || content.length > CONTENT_MAX) return showOne(ctx, id, res, { error: `Give the signal a content of 1 to ${CONTENT_MAX.toLocaleString('en-US')} characters.` }, 400);
    try {
      const { productIds } = await editSignal(ctx.rt.pool, ctx.workspace.id, {
        id, title, content, type: str(req.body.type) || undefined,
        whoSaidIt: str(req.body.who_said_it).trim().slice(0, 256) || null, theme: str(req.body.theme).trim().slice(0, 80) || null,
      }, reviewer(ctx), ctx.rt.clock);
      await recompute(ctx, productIds);
    } catch (error) {
      if (error instanceof EvidenceError) return showOne(ctx, id, res, { error: error.message }, 400);
      throw error;
    }
    res.redirect(303, `${base(ctx)}/${id}?done=edited`);
  }));

  router.post('/account/w/:ws/signals/:id/move', form, inWorkspace(async (ctx, req, res) => {
    const id = String(req.params.id);
    try {
      await moveSignals(ctx.rt.pool, ctx.workspace.id, [id], str(req.body.opportunity), reviewer(ctx), ctx.rt.clock);
    } catch (error) {
      if (error instanceof EvidenceError) return showOne(ctx, id, res, { error: error.message }, 400);
      throw error;
    }
    res.redirect(303, `${base(ctx)}/${id}?done=moved`);
  }));

  for (const action of ['delete', 'not_a_signal'] as const) {
    router.post(`/account/w/:ws/signals/:id/${action === 'delete' ? 'delete' : 'not-a-signal'}`, form, inWorkspace(async (ctx, req, res) => {
      const id = String(req.params.id);
      try {
        await deleteSignals(ctx.rt.pool, ctx.workspace.id, [id], reviewer(ctx), ctx.rt.clock, action);
      } catch (error) {
        if (error instanceof EvidenceError) return showList(ctx, {}, res, { error: error.message }, 404);
        throw error;
      }
      res.redirect(303, `${base(ctx)}?done=${action === 'delete' ? 'deleted' : action}`);
    }));
  }

  router.post('/account/w/:ws/signals/bulk', bulkForm, inWorkspace(async (ctx, req, res) => {
    const raw = req.body.ids as unknown;
    const ids = [...new Set((Array.isArray(raw) ? raw : [raw]).filter((x): x is string => typeof x === 'string' && x.length > 0 && x.length <= 128))];
    const back = backTo(ctx, req.body.back);
    const query = Object.fromEntries(new URL(back, 'http://x').searchParams);
    if (ids.length === 0) return showList(ctx, query, res, { error: 'Select at least one signal first (the boxes in the first column).' }, 400);
    const action = str(req.body.action);
    try {
      if (action === 'delete' || action === 'not_a_signal') {
        await deleteSignals(ctx.rt.pool, ctx.workspace.id, ids, reviewer(ctx), ctx.rt.clock, action);
      } else if (action === 'move') {
        if (!str(req.body.opportunity)) return showList(ctx, query, res, { error: 'Choose the opportunity to move the selected signals to.' }, 400);
        await moveSignals(ctx.rt.pool, ctx.workspace.id, ids, str(req.body.opportunity), reviewer(ctx), ctx.rt.clock);
      } else {
        return showList(ctx, query, res, { error: 'Choose what to do with the selected signals.' }, 400);
      }
    } catch (error) {
      if (error instanceof EvidenceError) return showList(ctx, query, res, { error: error.message }, 400);
      throw error;
    }
    res.redirect(303, withDone(back, `bulk_${action === 'move' ? 'moved' : action === 'delete' ? 'deleted' : 'not_a_signal'}`));
  }));

  return router;
}
