import { z } from 'zod';
import { blocks, next } from '../render';
import { defineTool } from '../tool-kit';

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
  render(r) {
    if (r.products.length === 0) return 'No products in this workspace yet: a person creates them in the Loupe settings.';
    const rows = r.products.map((p) =>
      `- **${p.name}** \`${p.id}\`${p.is_default ? ' (default)' : ''}, ${p.status}${p.description ? `: ${p.description}` : ''}\n  Projects: ${p.projects.length ? p.projects.map((j) => `${j.name} \`${j.id}\``).join(', ') : 'none'}`);
    const choose = r.default_product_id ? `Without product_id, tools use ${r.default_product_id}.` : r.products.length > 1 ? 'No default product: ask the user which product, then pass product_id.' : undefined;
    return blocks(`# Products (${r.products.length})`, rows.join('\n'), choose)
      + next(['find_sources, get_opportunities or list_shaping_notes with product_id', 'add_source with a project_id']);
  },
});
