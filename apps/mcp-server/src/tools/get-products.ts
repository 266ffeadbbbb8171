import { z } from 'zod';
import { statementBatcher } from '@loupe/http';
import { blocks, next } from '../render';
import { defineTool } from '../tool-kit';

/**
 * Each asking workspace's products with their projects, as one JSON array per request: the get_products
 * calls that overlap share one statement (`statementBatcher`), each answered with its own workspace's.
 */
const WORKSPACE_PRODUCTS = {
  name: 'mcp-get-products',
  text: `SELECT l.n,
                (SELECT COALESCE(json_agg(json_build_object('id', p.id, 'name', p.name, 'description', p.description, 'status', p.status,
                                                            'projects', COALESCE((SELECT json_agg(json_build_object('id', j.id, 'name', j.name) ORDER BY j.name, j.id)
                                                                                    FROM projects j WHERE j.product_id = p.id AND j.workspace_id = p.workspace_id), '[]'))
                                          ORDER BY p.name, p.id), '[]')
                   FROM products p WHERE p.workspace_id = l.param) AS products
           FROM batch_requests($1::text[]) AS l(param, n)`,
};

const project = z.object({ id: z.string(), name: z.string() });
const product = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullish(),
  status: z.string(),
  projects: z.array(project),
});

export const getProducts = defineTool({
  name: 'get_products',
  title: 'List products',
  description:
    'Call first: the products and projects; most tools take a product_id, add_source a project_id. is_default: used when product_id is omitted. ' +
    'Several and no default: ask the user.',
  inputSchema: {},
  outputSchema: { products: z.array(product.extend({ is_default: z.boolean() })), default_product_id: z.string().nullish() },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  async handler(_args, ctx) {
    const rows = (await statementBatcher<{ products: z.infer<typeof product>[] }>(ctx.pool, WORKSPACE_PRODUCTS).run([ctx.principal.workspaceId]))?.products ?? [];
    const defaultId = ctx.principal.defaultProductId;
    return {
      products: rows.map((r) => ({ ...r, is_default: r.id === defaultId })),
      default_product_id: rows.some((r) => r.id === defaultId) ? defaultId : null,
    };
  },
  render(r) {
    if (r.products.length === 0) return 'No products in this workspace yet: a person creates them in the Loupe settings.';
    const rows = r.products.map((p) =>
      `- **${p.name}** \`${p.id}\`${p.is_default ? ' (default)' : ''}, ${p.status}${p.description ? `: ${p.description}` : ''}\n  Projects: ${p.projects.length ? p.projects.map((j) => `${j.name} \`${j.id}\``).join(', ') : 'none'}`);
    const choose = r.default_product_id ? `Without product_id, tools use ${r.default_product_id}.` : r.products.length > 1 ? 'No default product: ask the user which product, then pass product_id.' : undefined;
    return blocks(`# Products (${r.products.length})`, rows.join('\n'), choose)
      + next(['find_sources, get_opportunities or list_shaping_notes with product_id', 'add_source with a project_id']);
  },
});
