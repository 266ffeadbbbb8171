import { z } from 'zod';
import { findCompanies, listOpportunities, NO_QUOTE_SHARE, OPPORTUNITY_SORTS, opportunityGrowth, opportunityQuoteShares } from '@loupe/evidence';
import { blocks, next, oneLine } from '../render';
import { nameText } from '../schemas';
import { defineTool, fitToPage, PAGE_CHARS, pageFields, requireProductId, ToolError } from '../tool-kit';

const row = z.object({
  id: z.string(), title: z.string(), subtitle: z.string(), type: z.string(), keywords: z.array(z.string()), created_at: z.string(),
  updated_at: z.string().describe('When its evidence or name last changed'),
  evidence_count: z.number(), unique_company_count: z.number(),
  companies: z.number().describe('Distinct companies of its signals: the resolved company, else the email domain'),
  revenue: z.number().describe('The ARR of the distinct companies it resolved to, each counted once'),
  segments: z.array(z.string()), stages: z.array(z.string()),
  nearest_renewal: z.string().optional().describe('The nearest renewal date (YYYY-MM-DD) among its companies'),
  signals_last_7_days: z.number().describe('Its signals recorded or edited in the last 7 days: how much it grew this week'),
  verified_signals: z.number().describe('Its signals whose every quote was found in their source'),
  verified_share: z.number().describe('verified_signals / evidence_count'),
});

export const getOpportunities = defineTool({
  name: 'get_opportunities',
  title: 'Get opportunities',
  description:
    'Opportunities (signals grouped) with companies, revenue (ARR), 7-day growth; sort/filter by impact. ' +
    'Next: view_item. DO NOT USE to search sources (find_sources).',
  inputSchema: {
    product_id: z.string().max(128).optional().describe('From get_products; default: the key\'s.'),
    limit: z.number().int().min(1).max(100).optional().describe('Default 25.'),
    offset: z.number().int().min(0).optional().describe('From next_offset.'),
    sort: z.enum(OPPORTUNITY_SORTS).optional().describe('Default evidence.'),
    segment: nameText('segment').optional().describe('Companies\'.'),
    plan: nameText('plan').optional().describe('Companies\'.'),
    stage: nameText('stage').optional().describe('Companies\'.'),
    company: nameText('company').optional().describe('Its id or name.'),
  },
  outputSchema: {
    digest: z.string(), items: z.array(row), returned: z.number(), offset: z.number(), total: z.number(), next_offset: z.number().optional(), cut_to_fit: z.boolean(),
    pending_signals: z.number(),
    regrouping_soon: z.boolean(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  async handler(args, ctx) {
    const productId = requireProductId(args.product_id, ctx.principal);
    const { rowCount } = await ctx.pool.query('SELECT 1 FROM products WHERE workspace_id = $1 AND id = $2', [ctx.principal.workspaceId, productId]);
    if (!rowCount) throw new ToolError(`Product not found: ${productId} is not a product of this workspace. Call get_products for the valid ids.`);
    const offset = args.offset ?? 0;
    let companyIds: string[] | undefined;
    if (args.company !== undefined) {
      companyIds = (await findCompanies(ctx.pool, ctx.principal.workspaceId, args.company)).map((c) => c.id);
      if (!companyIds.length) throw new ToolError(`Company not found: no company of this workspace has the id, external id or name "${oneLine(args.company, 200)}". view_item(item_type: "company") shows one by its external id.`);
    }
    const sort = args.sort ?? 'evidence';
    const filter = { segment: args.segment, plan: args.plan, stage: args.stage, companyIds };
    const filtered = Object.values(filter).some((v) => v !== undefined);
    const now = new Date(ctx.clock.now());
    const { items, total, pendingSignals, settling } = await listOpportunities(ctx.pool, ctx.principal.workspaceId, productId, { limit: args.limit ?? 25, offset }, { sort, filter, now });
    const recent = await opportunityGrowth(ctx.pool, ctx.principal.workspaceId, items.map((o) => o.id), now);
    const verified = await opportunityQuoteShares(ctx.pool, ctx.principal.workspaceId, items.map((o) => o.id));
    const rows = items.map((o) => ({
      id: o.id, title: o.title, subtitle: o.subtitle, type: o.type, keywords: o.keywords, created_at: o.createdAt.toISOString(), updated_at: o.updatedAt.toISOString(),
      evidence_count: o.evidenceCount, unique_company_count: o.uniqueCompanyCount, companies: o.uniqueCompanyCount, revenue: o.revenue, segments: o.segments,
      stages: o.stages, ...(o.nearestRenewal ? { nearest_renewal: o.nearestRenewal } : {}), signals_last_7_days: recent.get(o.id)?.week ?? 0,
      verified_signals: (verified.get(o.id) ?? NO_QUOTE_SHARE).verified, verified_share: Math.round((verified.get(o.id) ?? NO_QUOTE_SHARE).share * 100) / 100,
    }));
    const { kept, cut } = fitToPage(rows, PAGE_CHARS.withGuidance);
    const paging = pageFields(offset, kept.length, total);
    const pending = pendingSignals
      ? ` ${pendingSignals} new or changed signal${pendingSignals === 1 ? ' is' : 's are'} still being placed; call again in a few seconds for the complete picture.`
      : settling ? ' Recent signals were placed one at a time; the whole product is regrouped within a minute.' : '';
    const order = { evidence: 'most evidence', companies: 'most companies', revenue: 'most revenue', growth: 'most growth this week' }[sort];
    const shown = kept.length ? `${total} opportunit${total === 1 ? 'y' : 'ies'}${filtered ? ' match' : ''}; showing ${offset + 1}–${offset + kept.length}, ${order} first.` : '';
    const digest = total === 0 && filtered
      ? `No opportunity has evidence from companies matching these filters.${pending} Remove filters, or check the values with view_item(item_type: "company").`
      : total === 0
      ? (pendingSignals ? `No opportunities yet.${pending}` : 'No opportunities yet: they are built from signals. Record signals from sources with add_signals (see the extract-signals skill).')
      : kept.length === 0
        ? `${total} opportunit${total === 1 ? 'y' : 'ies'}; offset ${offset} is past the end (the last is at offset ${total - 1}): call again with a smaller offset, e.g. 0.${pending}`
        : shown + (paging.next_offset !== undefined ? ` More: offset ${paging.next_offset}.` : '') + pending;
    return { digest, items: kept, ...paging, cut_to_fit: cut, pending_signals: pendingSignals, regrouping_soon: settling };
  },
  render(r) {
    const rows = r.items.map((o, i) =>
      `${r.offset + i + 1}. **${oneLine(o.title, 200)}** \`${o.id}\`: ${o.evidence_count} signal${o.evidence_count === 1 ? '' : 's'}, ${o.companies} compan${o.companies === 1 ? 'y' : 'ies'}, revenue ${o.revenue.toLocaleString('en-US')}` +
      `${o.segments.length ? ` (${o.segments.slice(0, 4).join(', ')})` : ''}${o.nearest_renewal ? `, renews ${o.nearest_renewal}` : ''}` +
      `${o.signals_last_7_days ? `, +${o.signals_last_7_days} in 7 days` : ''}, ${o.verified_signals} with verified quotes (${Math.round(o.verified_share * 100)}%); ${o.type}${o.keywords.length ? `; ${o.keywords.slice(0, 6).join(', ')}` : ''}; updated ${o.updated_at.slice(0, 10)}`);
    const steps = r.items.length ? ['view_item(item_id, item_type: "opportunity") for its evidence'] : [];
    if (r.next_offset !== undefined) steps.push(`more: get_opportunities with offset ${r.next_offset}`);
    return blocks('# Opportunities', r.digest, rows.join('\n')) + next(steps);
  },
});
