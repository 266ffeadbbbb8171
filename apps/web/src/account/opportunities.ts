import { once } from 'node:events';
import { Router, type Request } from 'express';
import {
  decodeCursor, encodeCursor, getOpportunity, listOpportunities, listRecentSignals, NO_QUOTE_SHARE, OPPORTUNITY_SORTS, opportunityGrowth, opportunityQuoteShares,
  type OpportunityFilter, type OpportunityRow,
  type OpportunitySort,
} from '@loupe/evidence';
import { listProducts } from '@loupe/workspaces';
import type pg from 'pg';
import { pages, renderAccount, str, type AccountDeps, type Runtime } from './context';
import { line, text } from './csv';

export const OPPORTUNITIES_PAGE = 25;
export const EVIDENCE_PAGE = 25;
/** The opportunities read at a time for a CSV export: the export streams, one page in memory at most. */
export const CSV_PAGE = 500;

/** A page number from the query: 1 and up, at most `max`. */
export const pageOf = (raw: unknown, max = 10_000) => Math.min(max, Math.max(1, Number.parseInt(str(raw), 10) || 1));

export const SORT_LABELS: Record<OpportunitySort, string> = {
  evidence: 'most evidence first', companies: 'most companies first', revenue: 'most revenue first', growth: 'most growth in the last 7 days first',
};

/** What the filters offer: the segments, plans and stages of the companies behind the product's opportunities. */
export async function opportunityFacets(db: Pick<pg.Pool, 'query'>, workspaceId: string, productId: string): Promise<{ segments: string[]; plans: string[]; stages: string[] }> {
  const values = (column: string) =>
    `array(SELECT DISTINCT v FROM opportunities o CROSS JOIN LATERAL unnest(o.${column}) v WHERE o.workspace_id = $1 AND o.product_id = $2 ORDER BY v LIMIT 200)`;
  const { rows } = await db.query<{ segments: string[]; plans: string[]; stages: string[] }>(
    `SELECT ${values('segments')} AS segments, ${values('plans')} AS plans, ${values('stages')} AS stages`, [workspaceId, productId],
  );
  return rows[0]!;
}

/** The order and filters of the query, a filter kept only when the product has that value (else it is no filter at all). */
function chosen(req: Request, facets: { segments: string[]; plans: string[]; stages: string[] }) {
  const sort: OpportunitySort = (OPPORTUNITY_SORTS as readonly string[]).includes(str(req.query.sort)) ? (str(req.query.sort) as OpportunitySort) : 'evidence';
  const pick = (values: string[], raw: unknown) => (values.includes(str(raw)) ? str(raw) : '');
  const filter = { segment: pick(facets.segments, req.query.segment), plan: pick(facets.plans, req.query.plan), stage: pick(facets.stages, req.query.stage) };
  const forList: OpportunityFilter = { segment: filter.segment || undefined, plan: filter.plan || undefined, stage: filter.stage || undefined };
  return { sort, filter, forList, filtered: Boolean(filter.segment || filter.plan || filter.stage) };
}

/** An amount as the pages write it (fmt.amount takes the stored text): two decimals at most, never an exponent. */
export const amountText = (n: number) => n.toFixed(2);

/** "Acme app" → "acme-app": the product in a file name. */
const slug = (name: string, fallback: string) => name.toLowerCase().normalize('NFKD').replace(/[\u0300-\u036f]/g, '').replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '').slice(0, 60) || fallback;

const CSV_COLUMNS = ['title', 'evidence', 'companies', 'revenue', 'segments', 'plans', 'stages', 'nearest_renewal', 'newest_evidence_at', 'signals_last_7_days', 'url'];

/**
 * Opportunities (issues 27 and 44): a product's opportunities by evidence, companies, revenue or growth,
 * filtered by the segment, plan or stage of the companies behind them (as get_opportunities), each with
 * its companies, revenue, nearest renewal and growth; the same list as a CSV for planning meetings; and
 * one opportunity with its impact (the split by segment, plan and stage) and its signals: the quote, who
 * said it, their company, and the source as a link.
 */
export function opportunityPages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { inWorkspace } = pages(runtime);

  router.get('/account/w/:ws/opportunities', inWorkspace(async (ctx, req, res) => {
    const products = await listProducts(deps.db, ctx.workspace.id);
    const product = products.find((p) => p.id === str(req.query.product)) ?? products[0];
    const page = pageOf(req.query.page);
    const facets = product ? await opportunityFacets(ctx.rt.pool, ctx.workspace.id, product.id) : { segments: [], plans: [], stages: [] };
    const { sort, filter, forList, filtered } = chosen(req, facets);
    const now = new Date(ctx.rt.clock.now());
    const list = product
      ? await listOpportunities(ctx.rt.pool, ctx.workspace.id, product.id, { limit: OPPORTUNITIES_PAGE, offset: (page - 1) * OPPORTUNITIES_PAGE }, { sort, filter: forList, now })
      : { items: [], total: 0, pendingSignals: 0, settling: false };
    const growth = await opportunityGrowth(ctx.rt.pool, ctx.workspace.id, list.items.map((o) => o.id), now);
    const verified = await opportunityQuoteShares(ctx.rt.pool, ctx.workspace.id, list.items.map((o) => o.id));
    const pagesTotal = Math.max(1, Math.ceil(list.total / OPPORTUNITIES_PAGE));
    const base = `/account/w/${ctx.workspace.id}/opportunities`;
    const keep = new URLSearchParams(Object.entries({ product: product?.id ?? '', sort: sort === 'evidence' ? '' : sort, ...filter }).filter(([, v]) => v));
    const link = (n: number) => `${base}?${new URLSearchParams([...keep, ['page', String(n)]])}`;
    renderAccount(res, 'account-opportunities', ctx, {
      title: 'Opportunities', section: 'opportunities', products, product, list, page, pagesTotal, offset: (page - 1) * OPPORTUNITIES_PAGE,
      facets, sort, sortLabels: SORT_LABELS, filter, filtered, amountText,
      growth: Object.fromEntries(list.items.map((o) => [o.id, growth.get(o.id) ?? { week: 0, month: 0 }])),
      verified: Object.fromEntries(list.items.map((o) => [o.id, verified.get(o.id)])),
      firstLink: `${base}?${keep}`, csvLink: `${base}.csv?${keep}`, clearLink: `${base}?${new URLSearchParams({ product: product?.id ?? '' })}`,
      prevLink: page > 1 ? link(page - 1) : undefined, nextLink: page < pagesTotal ? link(page + 1) : undefined,
    });
  }));

  // The list as CSV, in the same order and with the same filters, a page at a time (never the whole product in memory).
  router.get('/account/w/:ws/opportunities.csv', inWorkspace(async (ctx, req, res) => {
    const products = await listProducts(deps.db, ctx.workspace.id);
    const product = req.query.product === undefined ? products[0] : products.find((p) => p.id === str(req.query.product));
    if (!product) {
      return renderAccount(res, 'account-missing', ctx, {
        title: 'Product not found', section: 'opportunities', back: `/account/w/${ctx.workspace.id}/opportunities`, backLabel: 'Back to opportunities',
        message: 'This product does not exist in this workspace, so it has no opportunities to download.',
      }, 404);
    }
    const facets = await opportunityFacets(ctx.rt.pool, ctx.workspace.id, product.id);
    const { sort, forList } = chosen(req, facets);
    const now = new Date(ctx.rt.clock.now());
    const pageUrl = (o: OpportunityRow) => `${ctx.rt.issuer}/account/w/${ctx.workspace.id}/opportunities/${o.id}`;
    res.status(200).set({
      'Content-Type': 'text/csv; charset=utf-8',
      'Content-Disposition': `attachment; filename="opportunities-${slug(product.name, product.id)}-${now.toISOString().slice(0, 10)}.csv"`,
      'Cache-Control': 'no-store',
    });
    let closed = false;
    res.on('close', () => { closed = true; });
    const send = async (chunk: string) => {
      if (!res.write(chunk) && !closed) await Promise.race([once(res, 'drain'), once(res, 'close')]);
    };
    // The byte order mark: Excel then reads the file as UTF-8 (accents, quotes); other spreadsheets ignore it.
    await send(`\uFEFF${line(CSV_COLUMNS)}`);
    for (let offset = 0; !closed; offset += CSV_PAGE) {
      const { items } = await listOpportunities(ctx.rt.pool, ctx.workspace.id, product.id, { limit: CSV_PAGE, offset }, { sort, filter: forList, now });
      const growth = await opportunityGrowth(ctx.rt.pool, ctx.workspace.id, items.map((o) => o.id), now);
      await send(items.map((o) => line([
        text(o.title), String(o.evidenceCount), String(o.uniqueCompanyCount), amountText(o.revenue).replace(/\.00$/, ''),
        text(o.segments.join('; ')), text(o.plans.join('; ')), text(o.stages.join('; ')), o.nearestRenewal ?? '', o.newestEvidenceAt?.toISOString() ?? '',
        String(growth.get(o.id)?.week ?? 0), pageUrl(o),
      ])).join(''));
      if (items.length < CSV_PAGE) break;
    }
    res.end();
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
    const verified = (await opportunityQuoteShares(ctx.rt.pool, ctx.workspace.id, [o.id])).get(o.id) ?? NO_QUOTE_SHARE;
    const here = `/account/w/${ctx.workspace.id}/opportunities/${o.id}`;
    renderAccount(res, 'account-opportunity', ctx, {
      title: o.title, section: 'opportunities', o, evidence: evidence.items, growth, verified, product: products.find((p) => p.id === o.productId), amountText,
      byDomain: Math.max(0, o.uniqueCompanyCount - o.impact.resolved_companies),
      paged: Boolean(after), firstLink: here, nextLink: evidence.next ? `${here}?after=${encodeURIComponent(encodeCursor(evidence.next))}` : undefined,
    });
  }));

  return router;
}
