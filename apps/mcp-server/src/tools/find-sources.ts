import { z } from 'zod';
import { defineTool, fitToPage, PAGE_CHARS, pageFields, ToolError } from '../tool-kit';

const PAGE_ROWS = 100;

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
});

export const findSources = defineTool({
  name: 'find_sources',
  title: 'Find sources',
  description:
    'Search the customer evidence of this workspace (calls, meetings, emails, support conversations, documents) by words in their title or content, ' +
    'and filter by product, project, source type, nature and date. Newest first. Use it to discover what was ingested before read_source (the content) ' +
    'or add_signals (record observations from a source). Results are paged: when next_offset is present, call again with offset = next_offset.',
  inputSchema: {
    query: z.string().max(500).optional().describe('Words to look for (web-search syntax: "exact phrase", -exclude, or). Omit to list everything.'),
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
    const where = ['s.workspace_id = $1'];
    const params: unknown[] = [ws];
    const add = (sql: string, value: unknown) => {
      params.push(value);
      where.push(sql.replaceAll('$?', `$${params.length}`));
    };
    if (args.query?.trim()) {
      add(
        `(s.title ILIKE '%' || $? || '%' OR to_tsvector('english', s.title) @@ websearch_to_tsquery('english', $?)
          OR EXISTS (SELECT 1 FROM source_segments g WHERE g.source_id = s.id AND to_tsvector('english', coalesce(g.heading, '') || ' ' || g.text) @@ websearch_to_tsquery('english', $?)))`,
        args.query.trim(),
      );
    }
    if (args.product_id) add('s.product_id = $?', args.product_id);
    if (args.project_id) add('$? = ANY (s.project_ids)', args.project_id);
    if (args.source_type) add('s.type = $?', args.source_type);
    if (args.nature) add('s.nature = $?', args.nature);
    if (args.since) add('s.occurred_at >= $?', new Date(args.since));
    if (args.until) add('s.occurred_at < $?', new Date(args.until));
    const offset = args.offset ?? 0;
    const clause = where.join(' AND ');
    const [{ rows: count }, { rows }] = await Promise.all([
      ctx.pool.query<{ total: number }>(`SELECT count(*)::int AS total FROM sources s WHERE ${clause}`, params),
      ctx.pool.query<{ id: string; title: string; type: string; nature: string; occurred_at: Date; product_id: string; project_ids: string[] | null; participants: unknown[]; segment_count: number; status: string }>(
        `SELECT s.id, s.title, s.type, s.nature, s.occurred_at, s.product_id, s.project_ids, s.participants, s.segment_count, s.status
           FROM sources s WHERE ${clause} ORDER BY s.occurred_at DESC, s.id DESC LIMIT ${PAGE_ROWS} OFFSET ${offset}`,
        params,
      ),
    ]);
    const total = count[0]!.total;
    const candidates = rows.map((r) => ({
      id: r.id,
      title: r.title,
      source_type: r.type,
      nature: r.nature,
      occurred_at: r.occurred_at.toISOString(),
      product_id: r.product_id,
      project_ids: r.project_ids ?? [],
      participants: Array.isArray(r.participants) ? r.participants.length : 0,
      segments: r.segment_count,
      status: r.status,
    }));
    const { kept, cut } = fitToPage(candidates, PAGE_CHARS.withGuidance);
    const paging = pageFields(offset, kept.length, total);
    const digest = total === 0
      ? 'No source matches. Widen the search (fewer words, no filters) or check the product with get_products.'
      : `${total} source${total === 1 ? '' : 's'} match; showing ${offset + 1}–${offset + kept.length}, newest first.` +
        (paging.next_offset !== undefined ? ` More remain: call find_sources again with offset ${paging.next_offset}.` : '') +
        ' Read one with read_source(source_id).';
    return { digest, items: kept, ...paging, cut_to_fit: cut };
  },
});
