import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { ErrorCode, GetPromptRequestSchema, ListPromptsRequestSchema, McpError, type GetPromptResult, type Icon, type Prompt as Prompt_ } from '@modelcontextprotocol/sdk/types.js';

const user = (text: string) => ({ messages: [{ role: 'user' as const, content: { type: 'text' as const, text } }] });

interface Prompt {
  name: string;
  title: string;
  description: string;
  /** The one required argument. */
  arg: { name: string; description: string };
  messages(value: string): ReturnType<typeof user>;
}

/** The main workflows, each naming the tools to call in order. */
const PROMPTS: Prompt[] = [];
function registerPrompt(name: string, config: { title: string; description: string; argsSchema: Record<string, string> }, messages: (args: Record<string, string>) => ReturnType<typeof user>) {
  const [argName, argDescription] = Object.entries(config.argsSchema)[0]!;
  PROMPTS.push({ name, title: config.title, description: config.description, arg: { name: argName, description: argDescription }, messages: (value) => messages({ [argName]: value }) });
}

/** prompts/list: the workflows, in a fixed order; `icons` (issue 25) where the protocol version has them. */
export function listPrompts(icons?: Icon[]): Prompt_[] {
  return PROMPTS.map((p) => ({
    name: p.name, title: p.title, description: p.description, ...(icons ? { icons } : {}),
    arguments: [{ name: p.arg.name, description: p.arg.description, required: true }],
  }));
}

/** prompts/get: an unknown prompt or a missing argument is -32602 (an McpError). */
export function getPrompt(name: unknown, args: Record<string, unknown> | undefined): GetPromptResult {
  const prompt = PROMPTS.find((p) => p.name === name);
  if (!prompt) throw new McpError(ErrorCode.InvalidParams, `Prompt ${String(name)} not found: the prompts are ${PROMPTS.map((p) => p.name).join(', ')}`);
  const value = args?.[prompt.arg.name];
  if (typeof value !== 'string' || value.length === 0) {
    throw new McpError(ErrorCode.InvalidParams, `Invalid arguments for prompt ${prompt.name}: ${prompt.arg.name} is required (${prompt.arg.description})`);
  }
  return { description: prompt.description, ...prompt.messages(value) };
}

/** prompts/list and prompts/get on a server (an unknown prompt or a missing argument is -32602). */
export function registerPrompts(server: Server, icons?: Icon[]) {
  server.setRequestHandler(ListPromptsRequestSchema, () => ({ prompts: listPrompts(icons) }));
  server.setRequestHandler(GetPromptRequestSchema, (request) => getPrompt(request.params.name, request.params.arguments));
}

registerPrompt(
  'analyse_source',
  {
    title: 'Analyse a source into signals',
    description: 'Read one source and record the customer signals in it (needs, problems, pain points, feedback, quotes).',
    argsSchema: { source_id: 'The source to analyse (from find_sources)' },
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
registerPrompt(
  'draft_shaping_note',
  {
    title: 'Draft a shaping note from an opportunity',
    description: 'Turn an opportunity and its evidence into a shaping note in the pipeline.',
    argsSchema: { opportunity_id: 'The opportunity (from get_opportunities)' },
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
registerPrompt(
  'weekly_evidence_digest',
  {
    title: 'Weekly evidence digest',
    description: 'Summarise what customers said this week and how it moves the opportunities.',
    argsSchema: { product_id: 'The product (from get_products)' },
  },
  ({ product_id }) =>
    user(
      `Write this week's customer evidence digest for product ${product_id}.\n` +
        '1. Call read_skills(["weekly-evidence-digest"]).\n' +
        `2. Call find_sources(product_id: "${product_id}", since: <7 days ago, ISO 8601>) and page through next_offset.\n` +
        '3. Read the most relevant sources with read_source.\n' +
        `4. Call get_opportunities(product_id: "${product_id}"): signals_last_7_days says which opportunities gained evidence this week.\n` +
        '5. Write the digest: top themes with quotes and source ids, new or growing opportunities, open questions.',
    ),
);
registerPrompt(
  'prioritise_by_impact',
  {
    title: 'Prioritise opportunities by customer impact',
    description: 'Rank a product\'s opportunities by the companies, revenue, segments and renewals behind them.',
    argsSchema: { product_id: 'The product (from get_products)' },
  },
  ({ product_id }) =>
    user(
      `Rank what to build next for product ${product_id} by customer impact.\n` +
        '1. Call read_skills(["prioritise-by-impact"]) and follow it.\n' +
        `2. Call get_opportunities(product_id: "${product_id}", sort: "revenue"), then with sort: "companies" and sort: "growth".\n` +
        '3. For the top opportunities, call view_item(item_type: "opportunity") for their evidence and view_item(item_type: "company") for the companies behind them.\n' +
        '4. Write the ranking: companies, revenue and near renewals per opportunity, the case for the first with quotes, and what to watch.',
    ),
);
