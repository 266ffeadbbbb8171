import { getCompanyEvidence, getOpportunity, getSignal, NO_QUOTE_SHARE, opportunityQuoteShares, type SignalView } from '@loupe/evidence';
import { UNTRUSTED } from '../render';
import { fitToPage, PAGE_CHARS, type ToolContext } from '../tool-kit';

const signalJson = (s: SignalView) => ({
  id: s.id, source_id: s.sourceId, product_id: s.productId, type: s.type, type_name: s.typeName, title: s.title, content: s.content,
  who_said_it: s.whoSaidIt, participant_id: s.participantId, theme: s.theme, created_at: s.createdAt.toISOString(), updated_at: s.updatedAt.toISOString(),
  quote: s.quote, quotes: s.quotes, quotes_verified: s.quotesVerified,
});

/** Evidence rows per page of an opportunity, and the content shown of each (the signal itself has it all). */
export const EVIDENCE_PAGE = 50;
const EVIDENCE_CONTENT_CHARS = 1_500;

/** A signal with the title of its source and the opportunity it belongs to (issue 24 item 9). */
export async function viewSignal(ctx: ToolContext, id: string) {
  const signal = await getSignal(ctx.pool, ctx.principal.workspaceId, id);
  if (!signal) return undefined;
  const { rows } = await ctx.pool.query<{
    source_title: string | null; opportunity_id: string | null; opportunity_title: string | null; company: { id: string; external_id: string; name: string } | null;
  }>(
    `SELECT (SELECT title FROM sources WHERE id = $2 AND workspace_id = $1) AS source_title, o.id AS opportunity_id, o.title AS opportunity_title,
            (SELECT jsonb_build_object('id', c.id, 'external_id', c.external_id, 'name', c.name)
               FROM signals s JOIN companies c ON c.id = s.company_id AND c.workspace_id = $1 WHERE s.workspace_id = $1 AND s.id = $3) AS company
       FROM (SELECT 1) one
       LEFT JOIN opportunity_signals os ON os.signal_id = $3
       LEFT JOIN opportunities o ON o.id = os.opportunity_id AND o.workspace_id = $1`,
    [ctx.principal.workspaceId, signal.sourceId, signal.id],
  );
  const r = rows[0];
  return {
    ...signalJson(signal),
    source_title: r?.source_title ?? null,
    opportunity: r?.opportunity_id ? { id: r.opportunity_id, title: r.opportunity_title } : null,
    ...(r?.company ? { company: r.company } : {}),
    ...UNTRUSTED,
  };
}

/** An opportunity with one page of its evidence, newest first: at most EVIDENCE_PAGE signals and about PAGE_CHARS of text. */
export async function viewOpportunity(ctx: ToolContext, id: string, offset = 0) {
  const o = await getOpportunity(ctx.pool, ctx.principal.workspaceId, id, { limit: EVIDENCE_PAGE, offset });
  if (!o) return undefined;
  const verified = (await opportunityQuoteShares(ctx.pool, ctx.principal.workspaceId, [o.id])).get(o.id) ?? NO_QUOTE_SHARE;
  // The company each speaker resolved to (its name), so the evidence says who is behind it.
  const { rows: companies } = await ctx.pool.query<{ id: string; name: string }>(
    `SELECT s.id, c.name FROM signals s JOIN companies c ON c.id = s.company_id AND c.workspace_id = $1 WHERE s.workspace_id = $1 AND s.id = ANY($2::text[])`,
    [ctx.principal.workspaceId, o.evidence.map((e) => e.id)],
  );
  const companyOf = new Map(companies.map((r) => [r.id, r.name]));
  const rows = o.evidence.map((s) => {
    const json = { ...signalJson(s), ...(companyOf.has(s.id) ? { company: companyOf.get(s.id)! } : {}) };
    if (json.content.length <= EVIDENCE_CONTENT_CHARS) return json;
    return { ...json, content: `${json.content.slice(0, EVIDENCE_CONTENT_CHARS)}…`, content_truncated: true };
  });
  const { kept } = fitToPage(rows, PAGE_CHARS.withGuidance);
  const next = offset + kept.length < o.evidenceTotal ? offset + kept.length : undefined;
  return {
    id: o.id, product_id: o.productId, title: o.title, subtitle: o.subtitle, type: o.type, keywords: o.keywords, created_at: o.createdAt.toISOString(),
    updated_at: o.updatedAt.toISOString(), evidence_count: o.evidenceCount, unique_company_count: o.uniqueCompanyCount,
    verified_signals: verified.verified, verified_share: Math.round(verified.share * 100) / 100,
    companies: o.uniqueCompanyCount, revenue: o.revenue, ...(o.nearestRenewal ? { nearest_renewal: o.nearestRenewal } : {}),
    impact: {
      resolved_companies: o.impact.resolved_companies,
      ...Object.fromEntries((['segments', 'plans', 'stages'] as const).map((k) => [k, o.impact[k].map((x) => ({ ...x, value: x.value ?? 'not given' }))])),
    },
    ...UNTRUSTED,
    evidence: kept, evidence_offset: offset, evidence_returned: kept.length, evidence_total: o.evidenceTotal,
    ...(next !== undefined ? { evidence_next_offset: next, more_evidence: `view_item again with offset ${next} for more evidence` } : {}),
    ...(kept.some((k) => 'content_truncated' in k) ? { truncated_content: 'long signals are cut: view_item(item_type: "signal") shows one whole' } : {}),
  };
}

/** Leaves out null values: structured content carries no nulls. */
const present = <T extends Record<string, unknown>>(o: T) => Object.fromEntries(Object.entries(o).filter(([, v]) => v !== null && v !== undefined));

/** A company by our id or its external id: its fields and attributes, the opportunities it is in (by its share of their signals), its latest sources and signals. */
export async function viewCompany(ctx: ToolContext, id: string) {
  const c = await getCompanyEvidence(ctx.pool, ctx.principal.workspaceId, id);
  if (!c) return undefined;
  return {
    ...present({
      id: c.id, external_id: c.externalId, name: c.name, domains: c.domains, arr: c.arr, plan: c.plan, segment: c.segment, stage: c.stage,
      renewal_date: c.renewalDate, attributes: c.attributes, created_at: c.createdAt.toISOString(), updated_at: c.updatedAt.toISOString(),
      signal_count: c.signalCount, people_count: c.peopleCount,
    }),
    opportunities: c.opportunities.map((o) => ({ id: o.id, product_id: o.productId, title: o.title, signals: o.signals, evidence_count: o.evidenceCount, share: o.share })),
    sources: c.sources.map((s) => ({ id: s.id, title: s.title, source_type: s.type, occurred_at: s.occurredAt.toISOString(), signals: s.signals })),
    signals: c.signals.map((s) => present({
      id: s.id, source_id: s.sourceId, type: s.type, title: s.title, who_said_it: s.whoSaidIt, created_at: s.createdAt.toISOString(), opportunity_id: s.opportunityId,
    })),
    ...(c.signals.length ? UNTRUSTED : {}),
  };
}
