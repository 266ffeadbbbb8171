import { z } from 'zod';
import { listOpportunities } from '@loupe/evidence';
import { defineTool, fitToPage, PAGE_CHARS, pageFields, requireProductId, ToolError } from '../tool-kit';

const row = z.object({
  id: z.string(), title: z.string(), subtitle: z.string(), type: z.string(), keywords: z.array(z.string()), created_at: z.string(),
  evidence_count: z.number(), unique_company_count: z.number(),
});

export const getOpportunities = defineTool({
  name: 'get_opportunities',
  title: 'Get opportunities',
  description:
    'List the opportunities of a product: signals grouped by what they mean, with how much evidence backs each (evidence_count), ' +
    'from how many companies, and the words that set it apart (keywords). Biggest first. Open one with view_item(item_type: "opportunity") for its signals. ' +
    'New signals join within seconds; pending_signals says how many are still being placed, regrouping_soon that a regrouping of the whole product is due. Paged: call again with offset = next_offset.',
  inputSchema: {
    product_id: z.string().max(128).optional().describe("The product (from get_products); defaults to the API key's default product."),
    limit: z.number().int().min(1).max(100).optional().describe('Rows per page (default 25, at most 100).'),
    offset: z.number().int().min(0).optional(),
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
    const { items, total, pendingSignals, settling } = await listOpportunities(ctx.pool, ctx.principal.workspaceId, productId, { limit: args.limit ?? 25, offset });
    const rows = items.map((o) => ({
      id: o.id, title: o.title, subtitle: o.subtitle, type: o.type, keywords: o.keywords, created_at: o.createdAt.toISOString(),
      evidence_count: o.evidenceCount, unique_company_count: o.uniqueCompanyCount,
    }));
    const { kept, cut } = fitToPage(rows, PAGE_CHARS.withGuidance);
    const paging = pageFields(offset, kept.length, total);
    const pending = pendingSignals
      ? ` ${pendingSignals} new or changed signal${pendingSignals === 1 ? ' is' : 's are'} still being placed; call again in a few seconds for the complete picture.`
      : settling ? ' Recent signals were placed one at a time; the whole product is regrouped within a minute.' : '';
    const digest = total === 0
      ? (pendingSignals ? `No opportunities yet.${pending}` : 'No opportunities yet: they are built from signals. Record signals from sources with add_signals (see the extract-signals skill).')
      : `${total} opportunit${total === 1 ? 'y' : 'ies'}; showing ${offset + 1}–${offset + kept.length}, most evidence first.` +
        (paging.next_offset !== undefined ? ` More: offset ${paging.next_offset}.` : '') + pending;
    return { digest, items: kept, ...paging, cut_to_fit: cut, pending_signals: pendingSignals, regrouping_soon: settling };
  },
});
