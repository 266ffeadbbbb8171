import { z } from 'zod';
import { isPossibleSourceId, MAX_SOURCE_ID_LENGTH, READ_LIMITS, readSource } from '@loupe/sources';
import { blocks, compact, facts, next, UNTRUSTED, UNTRUSTED_NOTE, when } from '../render';
import { defineTool, ToolError } from '../tool-kit';

const segment = z.object({
  position: z.number(),
  kind: z.string(),
  speaker: z.string().nullish(),
  heading: z.string().nullish(),
  text: z.string(),
  start_ms: z.number().nullish(),
});
type Segment = z.infer<typeof segment>;

const participantLine = (p: unknown) => {
  if (!p || typeof p !== 'object') return String(p);
  const { name, email, id, role } = p as Record<string, unknown>;
  const who = [name, email && email !== name ? `<${String(email)}>` : undefined].filter(Boolean).join(' ') || String(id ?? '?');
  return role && role !== 'unknown' ? `${who} (${String(role)})` : who;
};

/** One segment as a line of the text: `[position] Speaker: text`, a section as its heading then its text. */
function segmentText(s: Pick<Segment, 'position' | 'speaker' | 'heading' | 'text'>): string {
  const heading = s.heading ? `### ${s.heading}\n` : '';
  return `${heading}[${s.position}]${s.speaker ? ` ${s.speaker}:` : ''} ${s.text}`;
}

export const readSourceTool = defineTool({
  name: 'read_source',
  title: 'Read a source',
  description:
    'Read a source in order ([position] Speaker: text) for context and exact quotes before add_signals. Ids: find_sources, view_item. ' +
    `Pages ≤ ${READ_LIMITS.maxSegments} segments or ~${READ_LIMITS.maxChars.toLocaleString('en')} characters; has_more: offset = next_offset. DO NOT USE to search (find_sources).`,
  inputSchema: {
    source_id: z.string().min(1).max(MAX_SOURCE_ID_LENGTH).refine(isPossibleSourceId, 'source_id is a src_… id: printable ASCII, no spaces').describe('src_… id.'),
    offset: z.number().int().min(0).optional().describe('First segment: the last page\'s next_offset.'),
    from_position: z.number().int().min(0).optional().describe('Same as offset: an excerpt\'s position.'),
    limit: z.number().int().min(1).max(READ_LIMITS.maxSegments).optional().describe(`Default ${READ_LIMITS.defaultSegments}.`),
  },
  outputSchema: {
    source: z.object({
      id: z.string(), title: z.string(), source_type: z.string(), nature: z.string(), status: z.string(), occurred_at: z.string(),
      product_id: z.string(), project_ids: z.array(z.string()), participants: z.array(z.unknown()), tags: z.array(z.string()),
      thread_id: z.string().nullish(), record_id: z.string().nullish(),
    }),
    untrusted_content: z.string(),
    segments: z.array(segment),
    offset: z.number(),
    returned: z.number(),
    total_segments: z.number(),
    has_more: z.boolean(),
    next_offset: z.number().optional(),
  },
  annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'read',
  async handler(args, ctx) {
    if (args.offset !== undefined && args.from_position !== undefined && args.offset !== args.from_position) {
      throw new ToolError('Give offset or from_position, not both: they name the same thing (the first segment to return).');
    }
    const offset = args.from_position ?? args.offset ?? 0;
    const page = await readSource(ctx.pool, ctx.principal.workspaceId, args.source_id, { offset, limit: args.limit });
    if (!page) throw new ToolError(`Source not found or access denied: ${args.source_id} is not a source of this workspace. Use find_sources to look sources up.`);
    if (page.source.status !== 'ready' || page.total_segments === 0) {
      throw new ToolError(`This source has no content yet: ${args.source_id} is still being processed. Try again in a minute.`);
    }
    if (offset >= page.total_segments) {
      throw new ToolError(`offset ${offset} is past the end: ${args.source_id} has ${page.total_segments} segments (positions 0–${page.total_segments - 1}). Call again with a smaller offset, e.g. 0.`);
    }
    // The cap (spec 8.3, about 60,000 characters) is on what the client receives: the segments travel
    // in the text and in structuredContent, so each segment counts as both, beside the source's details.
    const head = compact(page.source);
    let chars = 2 * JSON.stringify(head).length + 600;
    const kept: typeof page.segments = [];
    for (const s of page.segments) {
      const size = JSON.stringify(compact(s)).length + segmentText(s).length + 2;
      if (kept.length > 0 && chars + size > READ_LIMITS.maxChars) break;
      kept.push(s);
      chars += size;
    }
    const end = offset + kept.length;
    const hasMore = end < page.total_segments;
    return {
      source: page.source,
      ...UNTRUSTED,
      segments: kept,
      offset,
      returned: kept.length,
      total_segments: page.total_segments,
      has_more: hasMore,
      ...(hasMore ? { next_offset: end } : {}),
    };
  },
  render(r) {
    const s = r.source;
    return blocks(
      `# ${s.title} \`${s.id}\``,
      facts([
        ['Type', `${s.source_type} (${s.nature})`], ['When', when(s.occurred_at)], ['Participants', s.participants.map(participantLine)],
        ['Tags', s.tags], ['Thread', s.thread_id], ['Product', s.product_id],
        ['Segments', `${r.offset}–${r.offset + r.returned - 1} of ${r.total_segments} (positions)`],
      ]),
      UNTRUSTED_NOTE,
      r.segments.map(segmentText).join('\n'),
    ) + next(r.has_more
      ? [`more: read_source(source_id: "${s.id}", offset: ${r.next_offset})`, 'add_signals(source_id, signals) to record what customers said']
      : ['add_signals(source_id, signals) to record what customers said']);
  },
});
