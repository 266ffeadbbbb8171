import { z } from 'zod';
import { defineTool } from '../tool-kit';

const project = z.object({ id: z.string(), name: z.string() });
const product = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().nullable(),
  status: z.string(),
  projects: z.array(project),
});

export const getProducts = defineTool({
  name: 'get_products',
  title: 'List products',
  description:
    'List every product of this workspace with its projects. Call this first: most tools need a product_id (and add_source a project_id) from here. ' +
    'is_default marks the product this connection uses when product_id is omitted (API keys have one; OAuth connections do not). Never pick a product for the user when several exist and none is default: ask.',
  inputSchema: {},
  outputSchema: { products: z.array(product.extend({ is_default: z.boolean() })), default_product_id: z.string().nullable() },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  async handler(_args, ctx) {
    const { rows } = await ctx.pool.query<{ id: string; name: string; description: string | null; status: string; projects: Array<{ id: string; name: string }> }>({
      name: 'mcp-get-products', // parsed and planned once per connection: the first call of every session
      text: `SELECT p.id, p.name, p.description, p.status,
                    COALESCE(json_agg(json_build_object('id', j.id, 'name', j.name) ORDER BY j.name, j.id) FILTER (WHERE j.id IS NOT NULL), '[]') AS projects
               FROM products p LEFT JOIN projects j ON j.product_id = p.id AND j.workspace_id = p.workspace_id
              WHERE p.workspace_id = $1
              GROUP BY p.id ORDER BY p.name, p.id`,
      values: [ctx.principal.workspaceId],
    });
    const defaultId = ctx.principal.defaultProductId;
    return {
      products: rows.map((r) => ({ ...r, is_default: r.id === defaultId })),
      default_product_id: rows.some((r) => r.id === defaultId) ? defaultId : null,
    };
  },
});
