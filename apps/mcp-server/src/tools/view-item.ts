import { z } from 'zod';
import { getShapingNote, listVersions, ShapingNoteNotFoundError } from '@loupe/shaping';
import { readSource } from '@loupe/sources';
import { defineTool, ToolError, type ToolContext } from '../tool-kit';
import { noteView } from './shaping-notes';
import { viewOpportunity, viewSignal } from './evidence-views';

export const ITEM_TYPES = ['signal', 'opportunity', 'source', 'shaping_note'] as const;
type ItemType = (typeof ITEM_TYPES)[number];

const notFound = (type: ItemType, id: string) =>
  new ToolError(`${type} ${id} does not exist or you are not allowed to access it. Use find_sources, get_opportunities or the ids other tools returned.`);

async function viewSource(ctx: ToolContext, id: string) {
  const page = await readSource(ctx.pool, ctx.principal.workspaceId, id, { limit: 20 });
  if (!page) return undefined;
  return { ...page.source, total_segments: page.total_segments, preview: page.segments.map((s) => ({ speaker: s.speaker, heading: s.heading, text: s.text.slice(0, 500) })), next: 'read_source(source_id) for the whole content' };
}

async function viewNote(ctx: ToolContext, id: string) {
  try {
    const note = await getShapingNote(ctx.pool, ctx.principal.workspaceId, id);
    const versions = await listVersions(ctx.pool, ctx.principal.workspaceId, id);
    return { ...noteView(note), versions: versions.map((v) => ({ version: v.version, title: v.title, status: v.status, created_at: v.createdAt.toISOString() })) };
  } catch (error) {
    if (error instanceof ShapingNoteNotFoundError) return undefined;
    throw error;
  }
}

export const viewItem = defineTool({
  name: 'view_item',
  title: 'View one item',
  description:
    'Show one item in full: a signal, an opportunity (with the signals that are its evidence, a page at a time), a source (its details and the first segments), ' +
    'or a shaping note (with its version history). Pass the id and its item_type.',
  inputSchema: {
    item_id: z.string().min(1).max(128),
    item_type: z.enum(ITEM_TYPES).describe('signal, opportunity, source or shaping_note'),
    offset: z.number().int().min(0).optional().describe("Opportunity only: where its evidence list starts (the previous answer's evidence_next_offset)."),
  },
  outputSchema: { item_type: z.enum(ITEM_TYPES), item: z.record(z.string(), z.unknown()) },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  async handler(args, ctx) {
    const loaders: Record<ItemType, (ctx: ToolContext, id: string) => Promise<Record<string, unknown> | undefined>> = {
      source: viewSource,
      shaping_note: viewNote,
      signal: viewSignal,
      opportunity: (c, id) => viewOpportunity(c, id, args.offset ?? 0),
    };
    const item = await loaders[args.item_type](ctx, args.item_id);
    if (!item) throw notFound(args.item_type, args.item_id);
    return { item_type: args.item_type, item };
  },
});
