import { z } from 'zod';
import {
  createShapingNote, ProductNotFoundError, SHAPING_LIMITS, SHAPING_STATUSES, ShapingError, ShapingNoteNotFoundError,
  shapingStatusDisplayName, updateShapingNote, type ShapingNote,
} from '@loupe/shaping';
import { defineTool, requireProductId, ToolError } from '../tool-kit';

const STATUS_LIST = SHAPING_STATUSES.map((s) => `${s.status} (${s.displayName})`).join(' → ');

export const shapingNoteShape = {
  id: z.string(),
  product_id: z.string(),
  title: z.string(),
  subtitle: z.string().nullable(),
  content: z.string(),
  status: z.string().nullable(),
  status_name: z.string().nullable(),
  tags: z.array(z.string()),
  version: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
};

export function noteView(note: ShapingNote) {
  return {
    id: note.id,
    product_id: note.productId,
    title: note.title,
    subtitle: note.subtitle,
    content: note.content,
    status: note.status,
    status_name: shapingStatusDisplayName(note.status),
    tags: note.tags,
    version: note.version,
    created_at: note.createdAt.toISOString(),
    updated_at: note.updatedAt.toISOString(),
  };
}

/** Shaping errors in the words of spec 7.4, with what to do next. */
export function shapingToolError(error: unknown, ids: { productId?: string; noteId?: string }): never {
  if (error instanceof ProductNotFoundError) throw new ToolError(`Product not found: ${ids.productId} is not a product of this workspace. Call get_products for the valid ids.`);
  if (error instanceof ShapingNoteNotFoundError) throw new ToolError(`Shaping note ${ids.noteId} does not exist or you are not allowed to access it. Shaping note ids start with the ones create_shaping_note returned.`);
  if (error instanceof ShapingError) throw new ToolError(error.message);
  throw error;
}

const common = {
  subtitle: z.string().max(SHAPING_LIMITS.subtitleMaxChars).optional().describe('One line under the title.'),
  tags: z.array(z.string().min(1).max(SHAPING_LIMITS.tagMaxChars)).max(SHAPING_LIMITS.maxTags).optional(),
};

export const createShapingNoteTool = defineTool({
  name: 'create_shaping_note',
  title: 'Create a shaping note',
  description:
    'Write a shaping note: a markdown document about a product (a problem worth solving, a pitch, a PRD, a dev plan, build notes) backed by ' +
    'customer evidence. Read the "shaping" skill first (read_skills). Cite sources and signals by id so others can check them. ' +
    `Set status to place it in the pipeline ${STATUS_LIST}; omit it to keep the note out of the pipeline. Every later update is kept as a version.`,
  inputSchema: {
    product_id: z.string().max(128).optional().describe('The product (from get_products); defaults to the API key\'s default product.'),
    title: z.string().min(1).max(SHAPING_LIMITS.titleMaxChars),
    content: z.string().min(1).describe('Markdown, up to 1 MB.'),
    status: z.enum(SHAPING_STATUSES.map((s) => s.status) as [string, ...string[]]).optional(),
    ...common,
  },
  outputSchema: shapingNoteShape,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  access: 'read',
  async handler(args, ctx) {
    const productId = requireProductId(args.product_id, ctx.principal);
    try {
      const note = await createShapingNote(ctx.pool, {
        workspaceId: ctx.principal.workspaceId, productId, title: args.title, content: args.content, subtitle: args.subtitle ?? null,
        status: args.status ?? null, tags: args.tags ?? [], createdByUserId: ctx.principal.userId,
      }, ctx.clock);
      return noteView(note);
    } catch (error) {
      return shapingToolError(error, { productId });
    }
  },
});

export const updateShapingNoteTool = defineTool({
  name: 'update_shaping_note',
  title: 'Update a shaping note',
  description:
    'Change a shaping note: each field you give replaces the old value outright (send the whole new content, not a diff); omitted fields stay. ' +
    `status moves it along the pipeline ${STATUS_LIST}; status "" takes it out of the pipeline. The previous state is kept as a version. ` +
    'Call view_item(item_type: "shaping_note") first to read the current text.',
  inputSchema: {
    note_id: z.string().min(1).max(128),
    title: z.string().min(1).max(SHAPING_LIMITS.titleMaxChars).optional(),
    content: z.string().min(1).optional(),
    status: z.union([z.enum(SHAPING_STATUSES.map((s) => s.status) as [string, ...string[]]), z.literal('')]).optional(),
    ...common,
    subtitle: z.string().max(SHAPING_LIMITS.subtitleMaxChars).optional().describe('One line under the title; "" removes it.'),
  },
  outputSchema: shapingNoteShape,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  async handler(args, ctx) {
    try {
      const note = await updateShapingNote(ctx.pool, {
        workspaceId: ctx.principal.workspaceId, noteId: args.note_id, title: args.title, content: args.content,
        subtitle: args.subtitle, status: args.status, tags: args.tags, updatedByUserId: ctx.principal.userId,
      }, ctx.clock);
      return noteView(note);
    } catch (error) {
      return shapingToolError(error, { noteId: args.note_id });
    }
  },
});
