import { z } from 'zod';
import { NATURES, RECORD_TYPES } from '@loupe/records';
import {
  HIGHLIGHT, SEARCH_LIMITS, SearchQueryError, searchSources, startSemanticRankings, type SearchFilters, type SearchPage, type SemanticSearch,
} from '@loupe/sources';
import { findCompanies } from '@loupe/evidence';
import { blocks, next, oneLine, pageLine, UNTRUSTED, UNTRUSTED_NOTE, when } from '../render';
import { nameText } from '../schemas';
import { defineTool, fitToPage, PAGE_CHARS, pageFields, ToolError, type ToolContext } from '../tool-kit';

/** Sources per page (issue 24 item 8: 1–100, default 20, like get_opportunities). */
export const FIND_SOURCES_LIMITS = { defaultLimit: 20, maxLimit: 100 } as const;


const excerpt = z.object({
  position: z.number().describe('Segment position: read_source(source_id, from_position) starts there'),
  speaker: z.string().nullish(),
  heading: z.string().nullish(),
  snippet: z.string().describe(`The segment around the matched words, which stand between ${HIGHLIGHT.start} and ${HIGHLIGHT.stop}`),
});

const item = z.object({
  id: z.string(),
  title: z.string(),
  source_type: z.string(),
  nature: z.string(),
  occurred_at: z.string(),
  product_id: z.string(),
  project_ids: z.array(z.string()),
  participants: z.number().describe('How many participants the source names'),
  segments: z.number(),
  status: z.string(),
  score: z.number().optional().describe('Relevance (higher is better), with a query'),
  title_matched: z.boolean().optional(),
  excerpts: z.array(excerpt).optional().describe('The best-matching segments, best first'),
});

/** Only the hits of sources with a signal of these companies. */
async function ofCompanies<T extends { sourceId: string }>(pool: ToolContext['pool'], workspaceId: string, companyIds: string[], lists: T[][]): Promise<T[][]> {
  const ids = [...new Set(lists.flat().map((h) => h.sourceId))];
  if (!ids.length) return lists;
  const { rows } = await pool.query<{ source_id: string }>(
    'SELECT DISTINCT source_id FROM signals WHERE workspace_id = $1 AND source_id = ANY($2::text[]) AND company_id = ANY($3::text[])', [workspaceId, ids, companyIds]);
  const keep = new Set(rows.map((r) => r.source_id));
  return lists.map((list) => list.filter((h) => keep.has(h.sourceId)));
}

function digestOf(page: SearchPage, query: string | undefined, shown: number, next: number | undefined): string {
  if (page.total === 0) {
    return query
      ? 'No source matches these words. Try other or fewer words, or remove filters.'
      : 'No source matches. Widen the search (no filters) or check the product with get_products.';
  }
  const order = page.sort === 'newest' ? 'newest first' : 'most relevant first';
  const line = pageLine(['source matches', 'sources match'], page.offset, shown, page.total, page.total_is_lower_bound);
  if (shown === 0) return line;
  const parts = [`${line.slice(0, -1)}, ${order}.`];
  if (page.matched === 'none') parts.push('No source has these words: these say something alike in other words.');
  else if (page.matched === 'some_words') parts.push('No source has all the words: these have some of them, the rarest words weighing most.');
  else if (page.with_all_words !== undefined && page.with_all_words < page.total) {
    parts.push(`The first ${page.with_all_words} have all the words; the others have some of them, the rarest words weighing most.`);
  }
  if (page.total_is_lower_bound && query) parts.push('The words are common: only the first candidates were ranked; add words or filters to narrow.');
  if (next !== undefined) parts.push(`More: offset ${next}.`);
  if (query) parts.push(`Matched words are marked ${HIGHLIGHT.start}like this${HIGHLIGHT.stop}.`);
  return parts.join(' ');
}

export const findSources = defineTool({
  name: 'find_sources',
  title: 'Find sources',
  description:
    'Search sources (calls, emails, documents…) by words, best first with excerpts, or list newest first. ' +
    'Next: read_source(source_id, from_position). DO NOT USE for opportunities (get_opportunities) or notes (list_shaping_notes).',
  inputSchema: {
    query: z.string().max(500).optional().describe('Words or a sentence; "phrase", -word, or. Omit to list.'),
    sort: z.enum(['relevance', 'newest']).optional().describe('A query\'s order.'),
    limit: z.number().int().min(1).max(FIND_SOURCES_LIMITS.maxLimit).optional().describe(`Default ${FIND_SOURCES_LIMITS.defaultLimit}.`),
    product_id: z.string().max(128).optional().describe('From get_products.'),
    project_id: z.string().max(128).optional().describe('From get_products.'),
    source_type: z.enum(RECORD_TYPES).optional().describe('Kind of source.'),
    nature: z.enum(NATURES).optional().describe('evidence: customers; guidance: your team; context: background.'),
    since: z.iso.datetime({ offset: true }).optional().describe('From (ISO 8601).'),
    until: z.iso.datetime({ offset: true }).optional().describe('Before (ISO 8601).'),
    company: nameText('company').optional().describe('Its id or name.'),
    // Refused beyond where the count stops, as search engines refuse deep pages (Elasticsearch's
    // max_result_window): nothing lies there, and an offset of 1e9 cost seconds of ranking (issue 41).
    offset: z.number().int().min(0).max(SEARCH_LIMITS.maxOffset, {
      error: `must be at most ${SEARCH_LIMITS.maxOffset.toLocaleString('en-US')}: results are counted and paged up to there. To reach further, narrow the search with query words or filters (product_id, source_type, nature, since, until)`,
    }).optional().describe('From next_offset.'),
  },
  outputSchema: {
    query: z.string().optional(),
    digest: z.string(),
    untrusted_content: z.string().optional(),
    items: z.array(item),
    returned: z.number(),
    offset: z.number(),
    total: z.number(),
    total_is_lower_bound: z.boolean().describe('The total counts only the candidates ranked (common words) or stops at 10,000 (listing)'),
    sort: z.enum(['relevance', 'newest']),
    matched: z.enum(['all_words', 'some_words', 'none']).optional(),
    with_all_words: z.number().optional().describe('How many of the matching sources have every word (they come first)'),
    next_offset: z.number().optional(),
    cut_to_fit: z.boolean(),
    not_yet_searchable: z.number().optional().describe('Sources stored but not yet searchable by meaning (indexing runs behind): results may be incomplete; ask again in a few seconds'),
    meaning_unavailable: z.boolean().optional().describe('The embedding provider did not answer: these results match words only'),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  async handler(args, ctx) {
    const ws = ctx.principal.workspaceId;
    if (args.product_id) {
      const { rowCount } = await ctx.pool.query('SELECT 1 FROM products WHERE workspace_id = $1 AND id = $2', [ws, args.product_id]);
      if (!rowCount) throw new ToolError(`Product not found: ${args.product_id} is not a product of this workspace. Call get_products for the valid ids.`);
    }
    if (args.project_id) {
      const { rowCount } = await ctx.pool.query('SELECT 1 FROM projects WHERE workspace_id = $1 AND id = $2', [ws, args.project_id]);
      if (!rowCount) throw new ToolError(`Project not found or access denied: ${args.project_id}. Call get_products for the projects of each product.`);
    }
    // A company's sources: those with a signal whose speaker resolved to it (signals.company_id, indexed),
    // not every source naming one of its people as a participant.
    let companyIds: string[] | undefined;
    if (args.company !== undefined) {
      companyIds = (await findCompanies(ctx.pool, ws, args.company)).map((c) => c.id);
      if (!companyIds.length) throw new ToolError(`Company not found: no company of this workspace has the id, external id or name "${oneLine(args.company, 200)}".`);
    }
    const query = args.query?.trim() || undefined;
    const limit = args.limit ?? FIND_SOURCES_LIMITS.defaultLimit;
    const offset = args.offset ?? 0;
    let page: SearchPage | undefined;
    const found: SearchPage['items'] = [];
    const filters: SearchFilters = {
      productId: args.product_id, projectId: args.project_id, sourceType: args.source_type, nature: args.nature,
      since: args.since ? new Date(args.since) : undefined, until: args.until ? new Date(args.until) : undefined, companyIds,
    };
    // Sources alike in meaning (issue 22), fused with the lexical ranking: as many as the page can reach.
    const semanticSearch = ctx.services.semanticSearch as SemanticSearch | undefined;
    // The semantic index answers in its thread while PostgreSQL ranks the words.
    const started = query && semanticSearch ? startSemanticRankings(semanticSearch, ws, query, filters, offset + limit) : undefined;
    // The index knows no companies: its hits are kept to the company's sources here.
    const semantic = started && companyIds ? { ...started, rankings: started.rankings.then((lists) => ofCompanies(ctx.pool, ws, companyIds, lists)) } : started;
    const pendingP = semantic && semanticSearch ? semanticSearch.pending(ws) : Promise.resolve(0);
    // Awaited below; handled here too, so that a search that fails first leaves no rejection unhandled.
    void pendingP.catch(() => undefined);
    try {
      // The search answers at most SEARCH_LIMITS.maxLimit sources a call: a larger page is read in parts.
      for (let at = offset; found.length < limit && at <= SEARCH_LIMITS.maxOffset;) {
        const part: SearchPage = await searchSources(ctx.pool, ws, {
          query,
          sort: query ? args.sort : 'newest',
          limit: Math.min(limit - found.length, SEARCH_LIMITS.maxLimit),
          offset: at,
          filters,
          extraRankings: semantic?.rankings,
          rerank: semanticSearch?.reranker(ws),
        });
        page ??= part;
        found.push(...part.items);
        at += part.items.length;
        if (part.items.length === 0 || at >= part.total) break;
      }
    } catch (err) {
      if (err instanceof SearchQueryError) throw new ToolError(err.message);
      throw err;
    }
    const { kept, cut } = fitToPage(found, PAGE_CHARS.withGuidance);
    const paging = pageFields(offset, kept.length, page!.total);
    const { items: _items, ...rest } = page!;
    const [answered, pending] = await Promise.all([semantic?.result, pendingP]);
    const notYet = answered?.indexing ? Math.max(pending, 1) : pending;
    return {
      ...rest, query, digest: digestOf(page!, query, kept.length, paging.next_offset), items: kept, ...paging, cut_to_fit: cut,
      ...(kept.length ? UNTRUSTED : {}),
      ...(notYet ? { not_yet_searchable: notYet } : {}),
      ...(answered?.unavailable ? { meaning_unavailable: true } : {}),
    };
  },
  render(r) {
    const known = new Set(['digest', 'items', 'returned', 'offset', 'total', 'total_is_lower_bound', 'sort', 'matched', 'with_all_words', 'next_offset', 'cut_to_fit', 'query', 'untrusted_content', 'not_yet_searchable', 'meaning_unavailable']);
    // Fields the search may add (e.g. that semantic indexing is behind) are shown as they come.
    const extra = Object.entries(r).filter(([k, v]) => !known.has(k) && v !== undefined && v !== null && v !== false && typeof v !== 'object');
    const rows = r.items.map((s, i) => {
      const head = `${r.offset + i + 1}. **${oneLine(s.title, 200)}** \`${s.id}\` (${s.source_type}, ${s.nature}, ${when(s.occurred_at)}, ${s.segments} segments${s.status === 'ready' ? '' : `, ${s.status}`})`;
      const excerpts = (s.excerpts ?? []).map((e) => `   - [${e.position}]${e.speaker ? ` ${e.speaker}:` : ''} ${oneLine(e.snippet, 400)}`);
      return [head, ...excerpts].join('\n');
    });
    const steps = r.items.length ? [`read_source(source_id${r.items.some((s) => s.excerpts?.length) ? ', from_position = an excerpt\'s [position]' : ''})`] : [];
    if (r.next_offset !== undefined) steps.push(`more: find_sources with offset ${r.next_offset}`);
    return blocks(
      `# Sources${r.query ? ` for "${oneLine(r.query, 100)}"` : ''}`,
      r.digest,
      r.not_yet_searchable ? `${r.not_yet_searchable} source${r.not_yet_searchable === 1 ? ' is' : 's are'} not yet searchable by meaning (indexing): results may be incomplete; ask again in a few seconds.` : undefined,
      r.meaning_unavailable ? 'Search by meaning is unavailable right now (the embedding provider did not answer): these results match your words only.' : undefined,
      extra.length ? extra.map(([k, v]) => `**${k}**: ${String(v)}`).join('\n') : undefined,
      r.items.length ? UNTRUSTED_NOTE : undefined,
      rows.join('\n'),
    ) + next(steps);
  },
});
