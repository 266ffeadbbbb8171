import { z } from 'zod';
import { listOpportunities } from '@loupe/evidence';
import { defineTool, fitToPage, PAGE_CHARS, pageFields, requireProductId, ToolError } from '../tool-kit';

const row = z.object({
  id: z.string(), title: z.string(), subtitle: z.string(), type: z.string(), created_at: z.string(),
  evidence_count: z.number(), unique_company_count: z.number(),
});

export const getOpportunities = defineTool({
  name: 'get_opportunities',
  title: 'Get opportunities',
  description:
    'List the opportunities of a product: clusters of signals about the same problem, with how much evidence backs each (evidence_count) ' +
    'and from how many companies. Biggest first. Open one with view_item(item_type: "opportunity") for its signals. ' +
    'Opportunities are recomputed in the background a few seconds after signals change. Paged: call again with offset = next_offset.',
  inputSchema: {
    product_id: z.string().max(128).optional().describe("The product (from get_products); defaults to the API key's default product."),
    limit: z.number().int().min(1).max(100).optional().describe('Rows per page (default 25, at most 100).'),
    offset: z.number().int().min(0).optional(),
  },
  outputSchema: { digest: z.string(), items: z.array(row), returned: z.number(), offset: z.number(), total: z.number(), next_offset: z.number().optional(), cut_to_fit: z.boolean() },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  async handler(args, ctx) {
    const productId = requireProductId(args.product_id, ctx.principal);
    const { rowCount } = await ctx.pool.query('SELECT 1 FROM products WHERE workspace_id = $1 AND id = $2', [ctx.principal.workspaceId, productId]);
    if (!rowCount) throw new ToolError(`Product not found: ${productId} is not a product of this workspace. Call get_products for the valid ids.`);
    const offset = args.offset ?? 0;
    const { items, total } = await listOpportunities(ctx.pool, ctx.principal.workspaceId, productId, { limit: args.limit ?? 25, offset });
    const rows = items.map((o) => ({
      id: o.id, title: o.title, subtitle: o.subtitle, type: o.type, created_at: o.createdAt.toISOString(),
      evidence_count: o.evidenceCount, unique_company_count: o.uniqueCompanyCount,
    }));
    const { kept, cut } = fitToPage(rows, PAGE_CHARS.withGuidance);
    const paging = pageFields(offset, kept.length, total);
    const digest = total === 0
      ? 'No opportunities yet: they are built from signals. Record signals from sources with add_signals (see the extract-signals skill).'
      : `${total} opportunit${total === 1 ? 'y' : 'ies'}; showing ${offset + 1}–${offset + kept.length}, most evidence first.` +
        (paging.next_offset !== undefined ? ` More: offset ${paging.next_offset}.` : '');
    return { digest, items: kept, ...paging, cut_to_fit: cut };
  },
});
