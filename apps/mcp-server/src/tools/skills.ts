import { z } from 'zod';
import { findSkills, readSkills } from '@loupe/skills';
import { defineTool, ToolError } from '../tool-kit';

const summary = z.object({ name: z.string(), title: z.string(), description: z.string(), source: z.enum(['built_in', 'workspace']) });

export const findSkillsTool = defineTool({
  name: 'find_skills',
  title: 'Find skills',
  description:
    'Free. List the methodology guides (skills) of this workspace: built-in ones (customer research, extracting signals, summarising a conversation, ' +
    'shaping, writing a PRD, a weekly evidence digest) and the workspace\'s own. Read the relevant one with read_skills before doing that work. ' +
    'Also returns the products to choose from and the one this connection uses by default, if any: ask the user when there are several and none is selected.',
  inputSchema: { query: z.string().max(200).optional().describe('Words to filter the catalogue by name, title or description.') },
  outputSchema: {
    skills: z.array(summary),
    products: z.array(z.object({ id: z.string(), name: z.string() })),
    selected_product_id: z.string().nullable(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  free: true,
  async handler(args, ctx) {
    const ws = ctx.principal.workspaceId;
    const [skills, { rows: products }] = await Promise.all([
      findSkills(ctx.pool, ws, { query: args.query }),
      ctx.pool.query<{ id: string; name: string }>('SELECT id, name FROM products WHERE workspace_id = $1 ORDER BY name, id', [ws]),
    ]);
    const selected = products.some((p) => p.id === ctx.principal.defaultProductId) ? ctx.principal.defaultProductId : null;
    return { skills, products, selected_product_id: selected };
  },
});

export const readSkillsTool = defineTool({
  name: 'read_skills',
  title: 'Read skills',
  description: 'Free. Read the full text of one or more skills (names from find_skills), with their reference files.',
  inputSchema: { names: z.array(z.string().min(1).max(100)).min(1).max(20).describe('Skill names, e.g. ["extract-signals"].') },
  outputSchema: {
    skills: z.array(summary.extend({ body: z.string(), references: z.array(z.object({ name: z.string(), body: z.string() })) })),
    missing: z.array(z.string()),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  free: true,
  async handler(args, ctx) {
    const result = await readSkills(ctx.pool, ctx.principal.workspaceId, args.names);
    if (result.skills.length === 0) {
      throw new ToolError(`No skill is called ${result.missing.map((n) => JSON.stringify(n)).join(', ')}. Call find_skills for the catalogue.`);
    }
    return { skills: result.skills.map((s) => ({ ...s, references: s.references.map((r) => ({ name: r.name, body: r.body })) })), missing: result.missing };
  },
});
