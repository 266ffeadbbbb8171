import { Router } from 'express';
import { decodeCursor, encodeCursor, getOpportunity, listOpportunities, listRecentSignals, opportunityGrowth } from '@loupe/evidence';
import { listProducts } from '@loupe/workspaces';
import { pages, renderAccount, str, type AccountDeps, type Runtime } from './context';

export const OPPORTUNITIES_PAGE = 25;
export const EVIDENCE_PAGE = 25;

/** A page number from the query: 1 and up, at most `max`. */
export const pageOf = (raw: unknown, max = 10_000) => Math.min(max, Math.max(1, Number.parseInt(str(raw), 10) || 1));

/**
 * Opportunities (issue 27): a product's opportunities biggest first with their companies and growth
 * over the last 7 and 30 days (the numbers get_opportunities gives), and one opportunity with its
 * signals: the quote, who said it, their company, and the source as a link.
 */
export function opportunityPages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);

  router.get('/account/w/:ws/opportunities', inWorkspace(async (ctx, req, res) => {
    const products = await listProducts(deps.db, ctx.workspace.id);
    const product = products.find((p) => p.id === str(req.query.product)) ?? products[0];
    const page = pageOf(req.query.page);
    const list = product
      ? await listOpportunities(ctx.rt.pool, ctx.workspace.id, product.id, { limit: OPPORTUNITIES_PAGE, offset: (page - 1) * OPPORTUNITIES_PAGE })
      : { items: [], total: 0, pendingSignals: 0, settling: false };
    const growth = await opportunityGrowth(ctx.rt.pool, ctx.workspace.id, list.items.map((o) => o.id), new Date(ctx.rt.clock.now()));
    const pagesTotal = Math.max(1, Math.ceil(list.total / OPPORTUNITIES_PAGE));
    const link = (n: number) => `/account/w/${ctx.workspace.id}/opportunities?product=${encodeURIComponent(product?.id ?? '')}&page=${n}`;
    renderAccount(res, 'account-opportunities', ctx, {
      title: 'Opportunities', section: 'opportunities', products, product, list, page, pagesTotal, offset: (page - 1) * OPPORTUNITIES_PAGE,
      growth: Object.fromEntries(list.items.map((o) => [o.id, growth.get(o.id) ?? { week: 0, month: 0 }])),
      prevLink: page > 1 ? link(page - 1) : undefined, nextLink: page < pagesTotal ? link(page + 1) : undefined,
    });
  }));

  router.get('/account/w/:ws/opportunities/:id', inWorkspace(async (ctx, req, res) => {
    const o = await getOpportunity(ctx.rt.pool, ctx.workspace.id, String(req.params.id), { limit: 1, offset: 0 });
    if (!o) {
      return renderAccount(res, 'account-missing', ctx, {
        title: 'Opportunity not found', section: 'opportunities', back: `/account/w/${ctx.workspace.id}/opportunities`, backLabel: 'Back to opportunities',
        message: 'This opportunity does not exist in this workspace: when signals are regrouped an opportunity can merge into another.',
      }, 404);
    }
    // Its evidence newest first, a page at a time from opportunity_signals' key (a cursor, not an offset).
    const after = decodeCursor(str(req.query.after));
    const evidence = await listRecentSignals(ctx.rt.pool, ctx.workspace.id, { opportunityId: o.id }, { limit: EVIDENCE_PAGE, after });
    const growth = (await opportunityGrowth(ctx.rt.pool, ctx.workspace.id, [o.id], new Date(ctx.rt.clock.now()))).get(o.id) ?? { week: 0, month: 0 };
    const products = await listProducts(deps.db, ctx.workspace.id);
    const here = `/account/w/${ctx.workspace.id}/opportunities/${o.id}`;
    renderAccount(res, 'account-opportunity', ctx, {
      title: o.title, section: 'opportunities', o, evidence: evidence.items, growth, product: products.find((p) => p.id === o.productId),
      paged: Boolean(after), firstLink: here, nextLink: evidence.next ? `${here}?after=${encodeURIComponent(encodeCursor(evidence.next))}` : undefined,
    });
  }));

  return router;
}
