import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';

const user = (text: string) => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] });

/** The main workflows, each naming the tools to call in order. */
export function registerPrompts(server: McpServer) {
  server.registerPrompt(
    'analyse_source',
    {
      title: 'Analyse a source into signals',
      description: 'Read one source and record the customer signals in it (needs, problems, pain points, feedback, quotes).',
      argsSchema: { source_id: z.string().describe('The source to analyse (from find_sources)') },
    },
    ({ source_id }) =>
      user(
        `Analyse the Loupe source ${source_id} into signals.\n` +
          '1. Call read_skills(["extract-signals"]) and follow it.\n' +
          `2. Call read_source(source_id: "${source_id}") and keep calling with offset = next_offset until has_more is false.\n` +
          '3. List each distinct observation: one need, problem, pain point, feedback or quote per signal, in the customer\'s words, with who said it.\n' +
          `4. Call add_signals(source_id: "${source_id}", signals: [...]) with at most 100 per call; an "Unknown signal type" error lists the types to use.\n` +
          '5. Summarise what you recorded and the strongest evidence.',
      ),
  );
  server.registerPrompt(
    'draft_shaping_note',
    {
      title: 'Draft a shaping note from an opportunity',
      description: 'Turn an opportunity and its evidence into a shaping note in the pipeline.',
      argsSchema: { opportunity_id: z.string().describe('The opportunity (from get_opportunities)') },
    },
    ({ opportunity_id }) =>
      user(
        `Draft a shaping note for the Loupe opportunity ${opportunity_id}.\n` +
          '1. Call read_skills(["shaping"]).\n' +
          `2. Call view_item(item_id: "${opportunity_id}", item_type: "opportunity") for its evidence; read the strongest sources with read_source.\n` +
          '3. Write the note: problem (with quotes), appetite, solution sketch, rabbit holes, no-gos.\n' +
          '4. Call create_shaping_note(product_id, title, content, status: "ideas") and share the note id.',
      ),
  );
  server.registerPrompt(
    'weekly_evidence_digest',
    {
      title: 'Weekly evidence digest',
      description: 'Summarise what customers said this week and how it moves the opportunities.',
      argsSchema: { product_id: z.string().describe('The product (from get_products)') },
    },
    ({ product_id }) =>
      user(
        `Write this week's customer evidence digest for product ${product_id}.\n` +
          '1. Call read_skills(["weekly-evidence-digest"]).\n' +
          `2. Call find_sources(product_id: "${product_id}", since: <7 days ago, ISO 8601>) and page through next_offset.\n` +
          '3. Read the most relevant sources with read_source.\n' +
          `4. Call get_opportunities(product_id: "${product_id}") to see which opportunities gained evidence.\n` +
          '5. Write the digest: top themes with quotes and source ids, new or growing opportunities, open questions.',
      ),
  );
}
