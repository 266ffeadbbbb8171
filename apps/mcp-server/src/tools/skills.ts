import { z } from 'zod';
import { findSkills, readSkills } from '@loupe/skills';
import { blocks, next } from '../render';
import { defineTool, ToolError } from '../tool-kit';

const summary = z.object({ name: z.string(), title: z.string(), description: z.string(), source: z.enum(['built_in', 'workspace']) });

export const findSkillsTool = defineTool({
  name: 'find_skills',
  title: 'Find skills',
  description:
    'Free. Methodology guides (research, extracting signals, summaries, shaping, PRDs, weekly digest, your own) and the products. ' +
    'At a task\'s start; then read_skills.',
  inputSchema: { query: z.string().max(200).optional().describe('Words to filter by.') },
  outputSchema: {
    skills: z.array(summary),
    products: z.array(z.object({ id: z.string(), name: z.string() })),
    selected_product_id: z.string().nullish(),
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
  render(r) {
    const skills = r.skills.map((s) => `- **${s.name}**${s.source === 'workspace' ? ' (workspace)' : ''}: ${s.description}`);
    const products = r.products.map((p) => `${p.name} \`${p.id}\`${p.id === r.selected_product_id ? ' (selected)' : ''}`).join(', ');
    return blocks(
      `# Skills (${r.skills.length})`,
      skills.join('\n') || 'No skill matches; call find_skills without a query for all of them.',
      `**Products**: ${products || 'none'}${r.selected_product_id ? '' : r.products.length > 1 ? '. None selected: ask the user which one.' : ''}`,
    ) + next(['read_skills(names) for a guide\'s full text']);
  },
});

export const readSkillsTool = defineTool({
  name: 'read_skills',
  title: 'Read skills',
  description: 'Free. The full text of skills, with references. Names from find_skills.',
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
  render(r) {
    return blocks(
      ...r.skills.map((s) => blocks(`# ${s.title} (${s.name})`, s.body, ...s.references.map((ref) => `## Reference: ${ref.name}\n\n${ref.body}`))),
      r.missing.length ? `Not found: ${r.missing.join(', ')} (find_skills lists the names).` : undefined,
    );
  },
});
