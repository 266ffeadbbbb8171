import { z } from 'zod';
import { HIGHLIGHT, SEARCH_LIMITS, SearchQueryError, searchSources, type SearchPage } from '@loupe/sources';
import { defineTool, fitToPage, PAGE_CHARS, pageFields, ToolError } from '../tool-kit';

const excerpt = z.object({
  position: z.number().describe('Segment position: read_source(source_id, from_position) starts there'),
  speaker: z.string().nullable(),
  heading: z.string().nullable(),
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

function digestOf(page: SearchPage, query: string | undefined, shown: number, next: number | undefined): string {
  if (page.total === 0) {
    return query
      ? 'No source matches these words. Try other or fewer words, or remove filters.'
      : 'No source matches. Widen the search (no filters) or check the product with get_products.';
  }
  const total = page.total_is_lower_bound ? `At least ${page.total}` : `${page.total}`;
  const order = page.sort === 'newest' ? 'newest first' : 'most relevant first';
  const parts = [`${total} source${page.total === 1 ? '' : 's'} match; showing ${page.offset + 1}–${page.offset + shown}, ${order}.`];
  if (page.matched === 'some_words') parts.push('No source has all the words: these have some of them, the rarest words weighing most.');
  else if (page.with_all_words !== undefined && page.with_all_words < page.total) {
    parts.push(`The first ${page.with_all_words} have all the words; the others have some of them, the rarest words weighing most.`);
  }
  if (page.total_is_lower_bound && query) parts.push('The words are common: only the first candidates were ranked; add words or filters to narrow.');
  if (next !== undefined) parts.push(`More remain: call find_sources again with offset ${next}.`);
  parts.push(query
    ? `Excerpts mark matched words ${HIGHLIGHT.start}like this${HIGHLIGHT.stop}; read the context with read_source(source_id, from_position = the excerpt's position).`
    : 'Read one with read_source(source_id).');
  return parts.join(' ');
}

export const findSources = defineTool({
  name: 'find_sources',
  title: 'Find sources',
  description:
    'Search the customer evidence of this workspace (calls, meetings, emails, support conversations, documents) by words in their title or content, ' +
    'and filter by product, project, source type, nature and date. With a query, results are ranked by relevance (sources with all the words first, ' +
    'then, when few have them all, sources with some of them; a title match ranks above a body match) and each carries its best-matching excerpts ' +
    '(segment position, speaker, snippet with the matched words marked); without a query, newest first. Plain sentences work ("customers struggling with onboarding"). ' +
    'Use it to discover what was ingested before read_source (start at an excerpt with from_position) or add_signals. ' +
    'Results are paged: when next_offset is present, call again with offset = next_offset.',
  inputSchema: {
    query: z.string().max(500).optional().describe('What to look for: plain words or a sentence; also "exact phrase", -exclude, or. Omit to list everything newest first.'),
    sort: z.enum(['relevance', 'newest']).optional().describe('relevance (default with a query) or newest (the only order without a query).'),
    limit: z.number().int().min(1).max(SEARCH_LIMITS.maxLimit).optional().describe(`Sources per page (default ${SEARCH_LIMITS.defaultLimit}, at most ${SEARCH_LIMITS.maxLimit}).`),
    product_id: z.string().max(128).optional().describe('Only sources of this product (from get_products).'),
    project_id: z.string().max(128).optional().describe('Only sources of this project.'),
    source_type: z.string().max(64).optional().describe('e.g. meeting_notes, call_transcription, email_thread, conversation, document.'),
    nature: z.string().max(64).optional().describe('e.g. meeting, communication, document.'),
    since: z.iso.datetime({ offset: true }).optional().describe('Only sources that happened at or after this time (ISO 8601).'),
    until: z.iso.datetime({ offset: true }).optional().describe('Only sources that happened before this time (ISO 8601).'),
    offset: z.number().int().min(0).optional().describe('Where the page starts; use next_offset of the previous page.'),
  },
  outputSchema: {
    digest: z.string(),
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
    const query = args.query?.trim() || undefined;
    let page: SearchPage;
    try {
      page = await searchSources(ctx.pool, ws, {
        query,
        sort: query ? args.sort : 'newest',
        limit: args.limit ?? (query ? SEARCH_LIMITS.defaultLimit : SEARCH_LIMITS.maxLimit),
        offset: args.offset ?? 0,
        filters: {
          productId: args.product_id, projectId: args.project_id, sourceType: args.source_type, nature: args.nature,
          since: args.since ? new Date(args.since) : undefined, until: args.until ? new Date(args.until) : undefined,
        },
      });
    } catch (err) {
      if (err instanceof SearchQueryError) throw new ToolError(err.message);
      throw err;
    }
    const { kept, cut } = fitToPage(page.items, PAGE_CHARS.withGuidance);
    const paging = pageFields(page.offset, kept.length, page.total);
    const { items: _items, ...rest } = page;
    return { ...rest, digest: digestOf(page, query, kept.length, paging.next_offset), items: kept, ...paging, cut_to_fit: cut };
  },
});
