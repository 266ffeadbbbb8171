import { z } from 'zod';
import { lockLandings } from '@loupe/batches';
import { findSuppressed, type Candidate } from '@loupe/erasure';
import { addSignals, SignalNotFoundError, SourceNotFoundError, UnknownSignalTypeError, updateSignals } from '@loupe/evidence';
import { QUEUES } from '@loupe/jobs';
import { blocks, next } from '../render';
import { defineTool, ToolError, type ToolContext } from '../tool-kit';
import { refusedForSuppression } from './suppressed';

const signalInput = z.strictObject({
  type: z.string().min(1).max(64).describe('need, problem, pain_point, feedback, quote, feature_request, or custom.'),
  title: z.string().min(1).max(200).describe('One line.'),
  content: z.string().min(1).max(20_000).describe("With the customer's words quoted."),
  who_said_it: z.string().max(256).optional().describe('Name or email.'),
  participant_id: z.string().max(256).optional().describe('From read_source.'),
  created_at: z.iso.datetime({ offset: true }).optional().describe('ISO 8601; default: the source\'s.'),
  theme: z.string().max(80).optional().describe('3–6 words ("Slow CSV export"), the same for one problem.'),
});

/** New and changed signals are placed in opportunities in the background (worker queue opportunities.recompute); a re-sent one schedules nothing. */
async function scheduleRecompute(ctx: ToolContext, productIds: string[]) {
  for (const productId of productIds) {
    await ctx.schedule?.(QUEUES.recomputeOpportunities, { workspaceId: ctx.principal.workspaceId, productId }, { singletonKey: `${ctx.principal.workspaceId}:${productId}` });
  }
}

type SignalFields = { title?: string | undefined; content?: string | undefined; who_said_it?: string | null | undefined; participant_id?: string | null | undefined; theme?: string | null | undefined };

/**
 * Refuses signals that name a person erased from the workspace, as add_source refuses a source: their
 * participant id, or an address (or id) as who said it, or an address in the title, content or theme.
 * Checked in the call's transaction under the landing lock (shared), so an erasure asked for meanwhile
 * either waits for these signals to commit (and then erases them) or is seen here.
 */
async function refuseSuppressed(ctx: ToolContext, list: string, items: readonly SignalFields[], what: string): Promise<void> {
  const ws = ctx.principal.workspaceId;
  await lockLandings(ctx.pool, ws, 'shared');
  const candidates: Candidate[] = items.map((s, i) => ({
    ids: [{ field: `${list}[${i}].participant_id`, value: s.participant_id }, { field: `${list}[${i}].who_said_it`, value: s.who_said_it }],
    texts: (['who_said_it', 'title', 'content', 'theme'] as const).map((k) => ({ field: `${list}[${i}].${k}`, value: s[k] })),
  }));
  const hits = await findSuppressed(ctx.pool, ws, candidates);
  const first = [...hits.entries()].sort((a, b) => a[0] - b[0])[0];
  if (first) throw new ToolError(refusedForSuppression(what, first[1]));
}

function evidenceError(error: unknown): never {
  if (error instanceof UnknownSignalTypeError || error instanceof SourceNotFoundError || error instanceof SignalNotFoundError) throw new ToolError(error.message);
  throw error;
}

export const addSignalsTool = defineTool({
  name: 'add_signals',
  title: 'Add signals',
  description:
    'Record 1–100 signals observed in one source, all or nothing. First read the extract-signals skill (read_skills) and the source (read_source). ' +
    'One observation each; the same content again returns the existing one (reused). DO NOT USE to edit (update_signals).',
  inputSchema: {
    source_id: z.string().min(1).max(128).describe('src_… id.'),
    signals: z.array(signalInput).min(1).max(100).describe('1–100.'),
  },
  outputSchema: { signals: z.array(z.object({ id: z.string(), reused: z.boolean() })), created: z.number(), reused: z.number() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'write',
  async handler(args, ctx) {
    await refuseSuppressed(ctx, 'signals', args.signals, 'The signals were refused');
    try {
      const out = await addSignals(ctx.pool, {
        workspaceId: ctx.principal.workspaceId,
        sourceId: args.source_id,
        writtenBy: { keyId: ctx.principal.keyId, clientId: ctx.principal.clientId },
        items: args.signals.map((s) => ({
          type: s.type, title: s.title, content: s.content, whoSaidIt: s.who_said_it, participantId: s.participant_id,
          createdAt: s.created_at ? new Date(s.created_at) : undefined, theme: s.theme,
        })),
      }, ctx.clock);
      await scheduleRecompute(ctx, out.productIds);
      const signals = out.results.map((r) => ({ id: r.id, reused: r.reused }));
      return { signals, created: signals.filter((s) => !s.reused).length, reused: signals.filter((s) => s.reused).length };
    } catch (error) {
      return evidenceError(error);
    }
  },
  render(r) {
    return blocks(
      `# Signals: ${r.created} recorded${r.reused ? `, ${r.reused} already there (reused)` : ''}`,
      r.signals.map((s, i) => `${i + 1}. \`${s.id}\`${s.reused ? ' (reused)' : ''}`).join('\n'),
    ) + next(['get_opportunities in a few seconds to see where they joined', 'view_item(item_type: "signal") to read one']);
  },
});

const updateInput = z.strictObject({
  id: z.string().min(1).max(128).describe('sig_… id.'),
  title: z.string().min(1).max(200).optional().describe('New title.'),
  content: z.string().min(1).max(20_000).optional().describe('New content.'),
  type: z.string().min(1).max(64).optional().describe('New type.'),
  created_at: z.iso.datetime({ offset: true }).optional().describe('ISO 8601.'),
  who_said_it: z.string().max(256).nullable().optional().describe('null clears it.'),
  participant_id: z.string().max(256).nullable().optional().describe('null clears it.'),
  theme: z.string().max(80).nullable().optional().describe('null clears it.'),
});

export const updateSignalsTool = defineTool({
  name: 'update_signals',
  title: 'Update signals',
  description:
    'Edit 1–100 signals, all or nothing: given fields replace the old value (not kept), null clears. First read it with view_item. DO NOT USE to add (add_signals).',
  inputSchema: { updates: z.array(updateInput).min(1).max(100).describe('One per signal.') },
  outputSchema: { updated: z.array(z.string()) },
  // Destructive: a replaced title or content is not kept anywhere (shaping notes keep versions; signals do not).
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  access: 'write',
  async handler(args, ctx) {
    await refuseSuppressed(ctx, 'updates', args.updates, 'The updates were refused');
    try {
      const out = await updateSignals(ctx.pool, ctx.principal.workspaceId, args.updates.map((u) => ({
        id: u.id, title: u.title, content: u.content, type: u.type, createdAt: u.created_at ? new Date(u.created_at) : undefined,
        whoSaidIt: u.who_said_it, participantId: u.participant_id, theme: u.theme,
      })), ctx.clock);
      await scheduleRecompute(ctx, out.productIds);
      return { updated: out.updated };
    } catch (error) {
      return evidenceError(error);
    }
  },
  render(r) {
    return `# ${r.updated.length} signal${r.updated.length === 1 ? '' : 's'} updated\n\n${r.updated.map((id) => `- \`${id}\``).join('\n')}`
      + next(['view_item(item_type: "signal") to check one']);
  },
});
