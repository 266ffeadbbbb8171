import { z } from 'zod';
import { landBatchIn, withLanding } from '@loupe/batches';
import { newId } from '@loupe/db';
import type { Boss } from '@loupe/jobs';
import { itemOfRecord, NATURES, RECORD_TYPES, validateItems } from '@loupe/records';
import { blocks, next } from '../render';
import { defineTool, ToolError } from '../tool-kit';
import { findSuppressed } from '@loupe/erasure';
import { refusedForSuppression } from './suppressed';
import { documentText as processDocumentText, UnreadableDocumentError, type DocumentText } from './document-text';

/** Text per call (spec 8.3): 4 MB; files about 50 MB before base64. */
export const ADD_SOURCE_LIMITS = { textBytes: 4 * 1024 * 1024, fileBytes: 50 * 1024 * 1024 } as const;

const turn = z.strictObject({
  speaker: z.string().min(1).max(256).describe('Who spoke.'),
  text: z.string().min(1).describe('What they said.'),
  start_ms: z.number().int().min(0).optional().describe('ms from the start.'),
});
const message = z.strictObject({
  author: z.string().min(1).max(256).describe('Who wrote it.'),
  text: z.string().min(1).describe('The message.'),
  sent_at: z.iso.datetime({ offset: true }).optional().describe('When (ISO 8601).'),
});
const participant = z.strictObject({
  name: z.string().max(256).optional().describe('Their name.'),
  email: z.email().max(320).optional().describe('Their email.'),
  role: z.enum(['internal', 'external', 'unknown']).optional().describe('external: the customer.'),
});

/** The UTF-8 size of every string in a value: the text of a call, counted without serialising it on the event loop. */
function utf8BytesOf(value: unknown): number {
  if (typeof value === 'string') return Buffer.byteLength(value, 'utf8');
  if (value === null || typeof value !== 'object') return 0;
  let sum = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value)) sum += utf8BytesOf(v);
  return sum;
}

export const addSource = defineTool({
  name: 'add_source',
  title: 'Add a source',
  description:
    'Add customer evidence: one of content, file_base64 + filename, transcript_turns (and/or media_url), messages. ' +
    'Processed in the background (source_id when ready, else find_sources soon). external_source + external_id make retries safe. ' +
    'DO NOT USE for signals or notes (add_signals, create_shaping_note).',
  inputSchema: {
    project_id: z.string().min(1).max(128).describe('From get_products.'),
    source_type: z.enum(RECORD_TYPES).describe('Its kind.'),
    nature: z.enum(NATURES).optional().describe('evidence (default): customers; guidance: your team; context: background.'),
    title: z.string().min(1).max(300).optional().describe('Default: the file name.'),
    subtitle: z.string().max(300).optional().describe('One line under the title.'),
    content: z.string().min(1).optional().describe('Markdown or text.'),
    transcript_turns: z.array(turn).min(1).max(20_000).optional().describe('A transcript.'),
    media_url: z.url().max(2048).optional().describe('https recording.'),
    messages: z.array(message).min(1).max(5000).optional().describe('A thread, in order.'),
    file_base64: z.string().min(1).optional().describe('≤ ~50 MB: PDF, .docx, text, CSV, JSON, HTML, subtitles.'),
    filename: z.string().min(1).max(512).optional().describe('Its extension tells the format.'),
    mime_type: z.string().max(256).optional().describe('When the name does not tell.'),
    participants: z.array(participant).max(5000).optional().describe('Who took part.'),
    occurred_at: z.iso.datetime({ offset: true }).optional().describe('ISO 8601; default now.'),
    thread_id: z.string().max(512).optional().describe('Groups a conversation.'),
    tags: z.array(z.string().min(1).max(64)).max(200).optional().describe('Free labels.'),
    external_source: z.string().min(1).max(64).optional().describe('Its system, e.g. zoom.'),
    external_id: z.string().min(1).max(512).optional().describe('Its id there.'),
  },
  outputSchema: {
    already_exists: z.boolean(),
    status: z.enum(['ready', 'processing']),
    source_id: z.string().nullish(),
    record_id: z.string(),
    batch_id: z.string().nullish(),
    message: z.string(),
  },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: false, openWorldHint: true },
  access: 'read',
  async handler(args, ctx) {
    const ws = ctx.principal.workspaceId;
    const boss = ctx.services.boss as Boss | undefined;
    if (!boss) throw new Error('add_source needs the job queue');
    if ((args.external_source === undefined) !== (args.external_id === undefined)) {
      throw new ToolError('external_source and external_id go together: pass both (e.g. "zoom" and the meeting id) or neither.');
    }
    const modes = (['content', 'transcript_turns', 'messages', 'file_base64'] as const).filter((k) => args[k] !== undefined);
    if (modes.length > 1) throw new ToolError(`Give only one of content, transcript_turns, messages, file_base64 (got ${modes.join(' and ')}).`);
    if (modes.length === 0 && !args.media_url) throw new ToolError('Nothing to add: give content, transcript_turns, messages, file_base64 or media_url.');
    if (args.media_url && !args.media_url.startsWith('https://')) throw new ToolError('media_url must be an https:// URL.');

    const { rows: projects } = await ctx.pool.query<{ product_id: string }>('SELECT product_id FROM projects WHERE workspace_id = $1 AND id = $2', [ws, args.project_id]);
    if (!projects[0]) throw new ToolError(`Project not found or access denied: ${args.project_id}. Call get_products for the projects of each product.`);
    const productId = projects[0].product_id;

    const data: Record<string, unknown> = {};
    if (args.title) data.title = args.title;
    if (args.subtitle) data.subtitle = args.subtitle;
    if (args.content !== undefined) data.content = args.content;
    if (args.transcript_turns) data.transcript = args.transcript_turns.map((t) => ({ speaker: t.speaker, text: t.text, ...(t.start_ms !== undefined ? { start_ms: t.start_ms } : {}) }));
    if (args.messages) data.messages = args.messages.map((m) => ({ from: m.author, text: m.text, ...(m.sent_at ? { sent_at: m.sent_at } : {}) }));
    if (args.file_base64 !== undefined) {
      if (args.file_base64.length > Math.ceil((ADD_SOURCE_LIMITS.fileBytes * 4) / 3) + 4) throw new ToolError('file_base64 is over about 50 MB: split the file or send its text as content.');
      // Buffer.from skips what is not base64, so a broken encoding would reach the readers as garbage.
      const encoded = args.file_base64.replace(/\s+/g, '');
      if (!/^[A-Za-z0-9+/_-]*={0,2}$/.test(encoded) || encoded.length % 4 === 1) {
        throw new ToolError('file_base64 is not valid base64 (only A–Z, a–z, 0–9, +, / and = padding): encode the file\'s bytes again, or send its text as content.');
      }
      const bytes = Buffer.from(encoded, 'base64');
      const name = args.filename ?? 'document';
      // The app passes its reader (its worker slots bound the parses at once); else the process's default.
      const documentText = (ctx.services.documentText as DocumentText | undefined) ?? processDocumentText;
      try {
        data.content = await documentText(bytes, name, args.mime_type);
      } catch (error) {
        if (error instanceof UnreadableDocumentError) throw new ToolError(`file_base64: ${error.message}. Extract its text and send it as content instead.`);
        throw error;
      }
      data.filename = name;
      if (!data.title) data.title = name.replace(/\.[a-z0-9]+$/i, '');
    }
    const textBytes = utf8BytesOf(data);
    if (textBytes > ADD_SOURCE_LIMITS.textBytes) {
      throw new ToolError(`The text is ${(textBytes / 1048576).toFixed(1)} MB; add_source takes at most 4 MB per call. Split it into several sources.`);
    }

    const vendorIds = args.external_source ? { [args.external_source]: args.external_id! } : { loupe_mcp: newId('mcpsrc') };
    if (args.external_source) {
      const { rows } = await ctx.pool.query<{ record_id: string; source_id: string | null; batch_id: string }>(
        `SELECT r.id AS record_id, s.id AS source_id, r.batch_id FROM records r LEFT JOIN sources s ON s.record_id = r.id
          WHERE r.workspace_id = $1 AND r.vendor_ids @> $2::jsonb ORDER BY r.received_at LIMIT 1`,
        [ws, JSON.stringify(vendorIds)],
      );
      const existing = rows[0];
      if (existing) {
        return {
          already_exists: true,
          status: existing.source_id ? ('ready' as const) : ('processing' as const),
          source_id: existing.source_id,
          record_id: existing.record_id,
          batch_id: existing.batch_id,
          message: `Already added from ${args.external_source} ${args.external_id}: nothing was added, and its processing is not charged again.${existing.source_id ? ' Read it with read_source.' : ' It is still being processed.'}`,
        };
      }
    }
    const now = ctx.clock.now();
    const occurred = args.occurred_at ? new Date(args.occurred_at) : new Date(now);
    const record = {
      _type: args.source_type,
      _schema_version: '1.0.0',
      _event_at: `${occurred.toISOString().slice(0, 19)}Z`,
      _vendor_ids: vendorIds,
      _product_id: productId,
      _project_ids: [args.project_id],
      _nature: args.nature ?? 'evidence',
      data,
      ...(args.thread_id ? { _thread_id: args.thread_id } : {}),
      ...(args.tags?.length ? { _tags: args.tags } : {}),
      ...(args.participants?.length
        ? { _participants: args.participants.map((p, i) => ({ id: p.email ?? p.name ?? `participant-${i + 1}`, role: p.role ?? 'unknown', ...(p.name ? { name: p.name } : {}), ...(p.email ? { email: p.email } : {}) })) }
        : {}),
      ...(args.media_url ? { _attachments: [{ type: 'unknown', vendor_url: args.media_url, ...(args.filename ? { filename: args.filename } : {}) }] } : {}),
    };
    const validated = validateItems([itemOfRecord(record)]);
    if (!validated.accepted.length) throw new ToolError(`The source was refused: ${validated.errors.map((e) => e.message).join('; ')}`);
    // A person erased from the workspace stays out until their suppression is lifted (libs/erasure),
    // checked under the landing's lock in its transaction, so one erased meanwhile is kept out too.
    const landed = await withLanding(ctx.pool, ws, async (client) => {
      const suppressed = (await findSuppressed(client, ws, [{ participants: validated.accepted[0]!.record._participants, data: validated.accepted[0]!.record.data }])).get(0);
      if (suppressed) throw new ToolError(refusedForSuppression('The source was refused', { ...suppressed, field: suppressed.field.replace('_participants', 'participants') }));
      return landBatchIn(client, boss, {
        workspaceId: ws, apiKeyId: ctx.principal.keyId ?? null, productId, type: args.source_type, source: 'mcp', format: undefined,
        accepted: validated.accepted, rejectedCount: 0, totalErrorCount: 0, errors: [], now,
      });
    });
    const { rows } = await ctx.pool.query<{ id: string; batch_id: string }>(
      'SELECT id, batch_id FROM records WHERE workspace_id = $1 AND dedup_key = $2',
      [ws, validated.accepted[0]!.dedupKey],
    );
    const recordId = rows[0]!.id;
    if (landed.insertedCount === 0) {
      // A concurrent call with the same external pair landed first.
      return { already_exists: true, status: 'processing' as const, source_id: null, record_id: recordId, batch_id: rows[0]!.batch_id, message: 'Already added by a concurrent call: nothing was added, and its processing is not charged again.' };
    }
    const result = {
      already_exists: false, status: 'processing' as 'processing' | 'ready', source_id: null as string | null, record_id: recordId, batch_id: landed.batchId,
      message: 'Added; still being processed. Call find_sources in a minute to get its source_id.',
    };
    // The worker usually builds the source within a second or two of the commit: wait briefly so the caller can use it at once.
    const waitMs = (ctx.services.addSourceWaitMs as number | undefined) ?? 5000;
    ctx.afterCommit?.(async (pool) => {
      for (let waited = 0; waited < waitMs; waited += 250) {
        const { rows: built } = await pool.query<{ id: string }>("SELECT id FROM sources WHERE record_id = $1 AND workspace_id = $2 AND status = 'ready'", [recordId, ws]);
        if (built[0]) {
          Object.assign(result, { status: 'ready', source_id: built[0].id, message: 'Added. Read it with read_source or record signals from it with add_signals.' });
          return;
        }
        await new Promise((r) => setTimeout(r, 250));
      }
    });
    return result;
  },
  render(r) {
    return blocks(
      `# ${r.already_exists ? 'Already added' : r.status === 'ready' ? 'Source added' : 'Source added, processing'}`,
      r.message,
      [r.source_id ? `**Source**: \`${r.source_id}\`` : undefined, `**Record**: \`${r.record_id}\``, r.batch_id ? `**Batch**: \`${r.batch_id}\`` : undefined].filter(Boolean).join('\n'),
    ) + next(r.source_id ? [`read_source(source_id: "${r.source_id}")`, 'add_signals(source_id, signals)'] : ['find_sources in a minute for its source_id']);
  },
});
