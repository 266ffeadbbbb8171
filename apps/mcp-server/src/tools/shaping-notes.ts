import { z } from 'zod';
import {
  checkCitations, createShapingNote, listShapingNotes, type NoteCitations, ProductNotFoundError, restoreVersion, SHAPING_LIMITS, SHAPING_STATUSES, ShapingError, ShapingNoteNotFoundError,
  shapingStatusDisplayName, ShapingVersionNotFoundError, updateShapingNote, type ShapingNote, type ShapingNoteWrite,
} from '@loupe/shaping';
import { blocks, next, oneLine, pageLine, when } from '../render';
import { defineTool, fitToPage, PAGE_CHARS, pageFields, requireProductId, ToolError, type ToolContext } from '../tool-kit';

const STATUSES = SHAPING_STATUSES.map((s) => s.status) as [string, ...string[]];

/** A note as a write answers it: everything but the content the caller just sent (issue 24 item 6). */
export const shapingNoteShape = {
  id: z.string(),
  product_id: z.string(),
  title: z.string(),
  subtitle: z.string().nullish(),
  status: z.string().nullish(),
  status_name: z.string().nullish(),
  tags: z.array(z.string()),
  version: z.number(),
  created_at: z.string(),
  updated_at: z.string(),
};

export function noteSummary(note: ShapingNote) {
  return {
    id: note.id,
    product_id: note.productId,
    title: note.title,
    subtitle: note.subtitle,
    status: note.status,
    status_name: shapingStatusDisplayName(note.status),
    tags: note.tags,
    version: note.version,
    created_at: note.createdAt.toISOString(),
    updated_at: note.updatedAt.toISOString(),
  };
}

/** What a note cites, checked: its source and signal ids, and its quotes matched against the sources they are attributed to. */
export const citationsShape = z.object({
  sources: z.array(z.string()), signals: z.array(z.string()), unknown_ids: z.array(z.string()),
  quotes: z.array(z.object({ text: z.string(), verified: z.boolean(), source_id: z.string().optional(), position: z.number().optional(), speaker: z.string().optional() })),
  quotes_verified: z.number(), quotes_not_found: z.array(z.string()), unattributed_quotes: z.array(z.string()),
});
type Citations = z.infer<typeof citationsShape>;

export async function citationsOf(ctx: ToolContext, content: string): Promise<Citations> {
  const c: NoteCitations = await checkCitations(ctx.pool, ctx.principal.workspaceId, content);
  return {
    sources: c.sources, signals: c.signals, unknown_ids: c.unknownIds,
    quotes: c.quotes.map((q) => ({ text: q.text, verified: q.verified, source_id: q.sourceId, position: q.position, speaker: q.speaker })),
    quotes_verified: c.quotes.filter((q) => q.verified).length, quotes_not_found: c.quotes.filter((q) => !q.verified).map((q) => q.text), unattributed_quotes: c.unattributed,
  };
}

/** The citations as the model reads them: what was checked, and plainly what to correct. */
export function renderCitations(c: Citations): string {
  const lines = [`## Citations\n${c.sources.length} source${c.sources.length === 1 ? '' : 's'} and ${c.signals.length} signal${c.signals.length === 1 ? '' : 's'} cited; quotes: ${c.quotes_verified} of ${c.quotes.length} found in their cited sources.`];
  if (c.unknown_ids.length) lines.push(`**Unknown ids** (no source or signal of this workspace): ${c.unknown_ids.map((id) => `\`${id}\``).join(', ')}. Correct them (find_sources, get_opportunities) with update_shaping_note.`);
  if (c.quotes_not_found.length) lines.push(`**Quotes not found** in the sources they cite (not the customer's words as said): correct them with update_shaping_note, copying the words from read_source:\n${c.quotes_not_found.map((q) => `- "${oneLine(q, 200)}"`).join('\n')}`);
  if (c.unattributed_quotes.length) lines.push(`${c.unattributed_quotes.length} quote${c.unattributed_quotes.length === 1 ? '' : 's'} not checked: the note cites no source or signal to check ${c.unattributed_quotes.length === 1 ? 'it' : 'them'} against.`);
  return lines.join('\n\n');
}

/** The note in full (view_item). */
export function noteView(note: ShapingNote) {
  return { ...noteSummary(note), content: note.content };
}

/** Shaping errors in the words of spec 7.4, with what to do next. */
export function shapingToolError(error: unknown, ids: { productId?: string; noteId?: string }): never {
  if (error instanceof ProductNotFoundError) throw new ToolError(`Product not found: ${ids.productId} is not a product of this workspace. Call get_products for the valid ids.`);
  if (error instanceof ShapingNoteNotFoundError) throw new ToolError(`Shaping note ${ids.noteId} does not exist or you are not allowed to access it. Find notes with list_shaping_notes.`);
  if (error instanceof ShapingVersionNotFoundError) throw new ToolError(`${error.message}: view_item(item_id: "${ids.noteId}", item_type: "shaping_note") lists its versions.`);
  if (error instanceof ShapingError) throw new ToolError(error.message);
  throw error;
}

const common = {
  subtitle: z.string().max(SHAPING_LIMITS.subtitleMaxChars).optional().describe('One line under the title.'),
  tags: z.array(z.string().min(1).max(SHAPING_LIMITS.tagMaxChars)).max(SHAPING_LIMITS.maxTags).optional().describe('Replace the list.'),
};

function renderWrite(verb: string, r: z.infer<z.ZodObject<typeof writeShape>>) {
  const citations = renderCitations(r.citations);
  const head = r.unchanged
    ? `# Shaping note unchanged (version ${r.version})\n\nIt already was exactly this: no new version was made.`
    : `# Shaping note ${verb}${r.restored_from ? ` from version ${r.restored_from}` : ''}: version ${r.version}`;
  return blocks(head, [`**${r.title}** \`${r.id}\``, r.subtitle, `**Status**: ${r.status_name ?? 'outside the pipeline'}`, r.tags.length ? `**Tags**: ${r.tags.join(', ')}` : undefined].filter(Boolean).join('\n'), citations)
    + next([`view_item(item_id: "${r.id}", item_type: "shaping_note") to read it`, 'update_shaping_note to change it']);
}

const writeShape = { ...shapingNoteShape, unchanged: z.boolean().optional(), restored_from: z.number().optional(), citations: citationsShape };

export const createShapingNoteTool = defineTool({
  name: 'create_shaping_note',
  title: 'Create a shaping note',
  description:
    'Write a new shaping note (problem, pitch, PRD, plan in markdown) citing source and signal ids. First read the shaping or write-prd skill; check ' +
    'list_shaping_notes: change an existing one with update_shaping_note.',
  inputSchema: {
    product_id: z.string().max(128).optional().describe('From get_products; default: the key\'s.'),
    title: z.string().min(1).max(SHAPING_LIMITS.titleMaxChars).describe('Its title.'),
    content: z.string().min(1).describe('Markdown, up to 1 MB.'),
    status: z.enum(STATUSES).optional().describe('Pipeline stage; omitted: outside.'),
    ...common,
  },
  outputSchema: writeShape,
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: false },
  access: 'read',
  async handler(args, ctx) {
    const productId = requireProductId(args.product_id, ctx.principal);
    try {
      const note = await createShapingNote(ctx.pool, {
        workspaceId: ctx.principal.workspaceId, productId, title: args.title, content: args.content, subtitle: args.subtitle ?? null,
        status: args.status ?? null, tags: args.tags ?? [], createdByUserId: ctx.principal.userId,
      }, ctx.clock);
      return { ...noteSummary(note), citations: await citationsOf(ctx, note.content) };
    } catch (error) {
      return shapingToolError(error, { productId });
    }
  },
  render: (r) => renderWrite('created', r),
});

export const updateShapingNoteTool = defineTool({
  name: 'update_shaping_note',
  title: 'Update a shaping note',
  description:
    'Change a shaping note (read it first with view_item): given fields replace old ones (send whole content). Each change is a version; ' +
    'restore_version: N brings one back. Ids: list_shaping_notes.',
  inputSchema: {
    note_id: z.string().min(1).max(128).describe('shn_… id.'),
    title: z.string().min(1).max(SHAPING_LIMITS.titleMaxChars).optional().describe('New title.'),
    content: z.string().min(1).optional().describe('The whole markdown.'),
    status: z.enum([...STATUSES, '']).optional().describe('"": out of the pipeline.'),
    ...common,
    subtitle: z.string().max(SHAPING_LIMITS.subtitleMaxChars).optional().describe('"" removes it.'),
    restore_version: z.number().int().min(1).optional().describe('Make version N current; alone.'),
  },
  outputSchema: writeShape,
  // Not destructive: the state it replaces is kept as a version and can be restored.
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  async handler(args, ctx) {
    const { note_id: noteId, restore_version: restore, ...fields } = args;
    const given = Object.entries(fields).filter(([, v]) => v !== undefined).map(([k]) => k);
    if (restore !== undefined && given.length) {
      throw new ToolError(`Give restore_version alone: it brings back a whole earlier version, so ${given.join(', ')} would be ignored. Restore first, then update.`);
    }
    if (restore === undefined && given.length === 0) {
      throw new ToolError('Nothing to update: give at least one of title, content, subtitle, status, tags, or restore_version.');
    }
    let note: ShapingNoteWrite;
    try {
      note = restore !== undefined
        ? await restoreVersion(ctx.pool, { workspaceId: ctx.principal.workspaceId, noteId, version: restore, restoredByUserId: ctx.principal.userId }, ctx.clock)
        : await updateShapingNote(ctx.pool, {
          workspaceId: ctx.principal.workspaceId, noteId, title: fields.title, content: fields.content,
          subtitle: fields.subtitle, status: fields.status, tags: fields.tags, updatedByUserId: ctx.principal.userId,
        }, ctx.clock);
    } catch (error) {
      return shapingToolError(error, { noteId });
    }
    return {
      ...noteSummary(note), ...(note.unchanged ? { unchanged: true } : {}), ...(restore !== undefined && !note.unchanged ? { restored_from: restore } : {}),
      citations: await citationsOf(ctx, note.content),
    };
  },
  render: (r) => renderWrite(r.restored_from ? 'restored' : 'updated', r),
});

const EXCERPT_CHARS = 240;

/** Up to EXCERPT_CHARS of the content around the first word found (its start when none). */
function excerptOf(content: string, query: string | undefined): string {
  const flat = content.replace(/\s+/g, ' ').trim();
  const lower = flat.toLowerCase();
  const at = (query ?? '').toLowerCase().split(/\s+/).filter(Boolean).map((w) => lower.indexOf(w)).filter((i) => i >= 0).sort((a, b) => a - b)[0] ?? 0;
  const start = Math.max(0, at - 60);
  const piece = flat.slice(start, start + EXCERPT_CHARS);
  return `${start > 0 ? '…' : ''}${piece}${start + EXCERPT_CHARS < flat.length ? '…' : ''}`;
}

const listRow = z.object({
  id: z.string(), title: z.string(), subtitle: z.string().nullish(), status: z.string().nullish(), status_name: z.string().nullish(),
  tags: z.array(z.string()), version: z.number(), updated_at: z.string(), excerpt: z.string(),
});

export const listShapingNotesTool = defineTool({
  name: 'list_shaping_notes',
  title: 'Find shaping notes',
  description:
    'Find a product\'s shaping notes by status, tag or words, newest first, to continue one (update_shaping_note) rather than write a second. ' +
    'Next: view_item. DO NOT USE for customer evidence (find_sources).',
  inputSchema: {
    product_id: z.string().max(128).optional().describe('From get_products; default: the key\'s.'),
    status: z.enum([...STATUSES, '']).optional().describe('"": outside the pipeline.'),
    tag: z.string().min(1).max(SHAPING_LIMITS.tagMaxChars).optional().describe('A tag.'),
    query: z.string().max(200).optional().describe('Words, all required.'),
    limit: z.number().int().min(1).max(SHAPING_LIMITS.listMaxLimit).optional().describe('Default 20.'),
    offset: z.number().int().min(0).optional().describe('From next_offset.'),
  },
  outputSchema: {
    digest: z.string(), items: z.array(listRow), returned: z.number(), offset: z.number(), total: z.number(), next_offset: z.number().optional(), cut_to_fit: z.boolean(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  async handler(args, ctx) {
    const productId = requireProductId(args.product_id, ctx.principal);
    const offset = args.offset ?? 0;
    const query = args.query?.trim() || undefined;
    const { rowCount } = await ctx.pool.query('SELECT 1 FROM products WHERE workspace_id = $1 AND id = $2', [ctx.principal.workspaceId, productId]);
    if (!rowCount) throw new ToolError(`Product not found: ${productId} is not a product of this workspace. Call get_products for the valid ids.`);
    let page: Awaited<ReturnType<typeof listShapingNotes>>;
    try {
      page = await listShapingNotes(ctx.pool, ctx.principal.workspaceId, { productId, status: args.status, tag: args.tag, query, limit: args.limit ?? 20, offset });
    } catch (error) {
      return shapingToolError(error, { productId });
    }
    const rows = page.items.map((n) => {
      const { product_id: _p, created_at: _c, ...rest } = noteSummary(n);
      return { ...rest, excerpt: excerptOf(n.content, query) };
    });
    const { kept, cut } = fitToPage(rows, PAGE_CHARS.withGuidance);
    const paging = pageFields(offset, kept.length, page.total);
    const filtered = args.status !== undefined || args.tag || query;
    const digest = page.total === 0
      ? (filtered ? 'No shaping note matches: try fewer words or no filter.' : 'This product has no shaping notes yet: write one with create_shaping_note.')
      : pageLine(['shaping note', 'shaping notes'], offset, kept.length, page.total).replace(/\.$/, kept.length ? ', most recently updated first.' : '.')
        + (paging.next_offset !== undefined ? ` More: offset ${paging.next_offset}.` : '');
    return { digest, items: kept, ...paging, cut_to_fit: cut };
  },
  render(r) {
    const rows = r.items.map((n, i) =>
      `${r.offset + i + 1}. **${oneLine(n.title, 200)}** \`${n.id}\` (${n.status_name ?? 'outside the pipeline'}, version ${n.version}, ${when(n.updated_at)}${n.tags.length ? `; ${n.tags.join(', ')}` : ''})\n   ${oneLine(n.excerpt, 300)}`);
    const steps = r.items.length ? ['view_item(item_id, item_type: "shaping_note") for the text', 'update_shaping_note(note_id, …) to change one'] : ['create_shaping_note to write one'];
    if (r.next_offset !== undefined) steps.push(`more: list_shaping_notes with offset ${r.next_offset}`);
    return blocks('# Shaping notes', r.digest, rows.join('\n')) + next(steps);
  },
});
