import { z } from 'zod';
import { READ_LIMITS, readSource } from '@loupe/sources';
import { defineTool, ToolError } from '../tool-kit';

const segment = z.object({
  position: z.number(),
  kind: z.string(),
  speaker: z.string().nullable(),
  heading: z.string().nullable(),
  text: z.string(),
  start_ms: z.number().nullable(),
});

export const readSourceTool = defineTool({
  name: 'read_source',
  title: 'Read a source',
  description:
    'Read the content of one source (a call transcript, meeting notes, an email thread, a support conversation, a document) in order: ' +
    'conversations as speaker-attributed segments, documents as titled sections. Get source ids from find_sources or view_item. ' +
    'To read around an excerpt of find_sources, pass from_position = its position. ' +
    `Pages hold up to ${READ_LIMITS.maxSegments} segments or about ${READ_LIMITS.maxChars.toLocaleString('en')} characters; when has_more is true, call again with offset = next_offset.`,
  inputSchema: {
    source_id: z.string().min(1).max(128).describe('The source id (src_…).'),
    offset: z.number().int().min(0).optional().describe('First segment to return (0 = the start); use next_offset of the previous page.'),
    from_position: z.number().int().min(0).optional().describe('Start reading at this segment position (an excerpt\'s position from find_sources); the same as offset, give one or the other.'),
    limit: z.number().int().min(1).max(READ_LIMITS.maxSegments).optional().describe(`Segments per page (default ${READ_LIMITS.defaultSegments}, at most ${READ_LIMITS.maxSegments}).`),
  },
  outputSchema: {
    source: z.object({
      id: z.string(), title: z.string(), source_type: z.string(), nature: z.string(), status: z.string(), occurred_at: z.string(),
      product_id: z.string(), project_ids: z.array(z.string()), participants: z.array(z.unknown()), tags: z.array(z.string()),
      thread_id: z.string().nullable(), record_id: z.string().nullable(),
    }),
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
    const page = await readSource(ctx.pool, ctx.principal.workspaceId, args.source_id, { offset: args.from_position ?? args.offset, limit: args.limit });
    if (!page) throw new ToolError(`Source not found or access denied: ${args.source_id} is not a source of this workspace. Use find_sources to look sources up.`);
    if (page.source.status !== 'ready' || page.total_segments === 0) {
      throw new ToolError(`This source has no content yet: ${args.source_id} is still being processed. Try again in a minute.`);
    }
    return page;
  },
});
