import { z } from 'zod';
import { addSignals, SignalNotFoundError, SourceNotFoundError, UnknownSignalTypeError, updateSignals } from '@loupe/evidence';
import { QUEUES } from '@loupe/jobs';
import { defineTool, ToolError, type ToolContext } from '../tool-kit';

const signalInput = z.object({
  type: z.string().min(1).max(64).describe('A signal type key or name active in the workspace: need, problem, pain_point, feedback, quote, feature_request, or a custom one.'),
  title: z.string().min(1).max(200).describe('One line naming the observation.'),
  content: z.string().min(1).max(20_000).describe("The observation, with the customer's words in quotes where possible."),
  who_said_it: z.string().max(256).optional().describe('Name or email of the person, as the source shows it.'),
  participant_id: z.string().max(256).optional().describe('The participant id from read_source (usually an email).'),
  created_at: z.iso.datetime({ offset: true }).optional().describe('When it was said (ISO 8601); the source time when omitted.'),
  theme: z.string().max(80).optional().describe('3–6 words naming the problem or need (e.g. "Slow CSV export"); use the same words for the same problem, as in get_opportunities keywords.'),
});

/** New and changed signals are placed in opportunities in the background (worker queue opportunities.recompute); a re-sent one schedules nothing. */
async function scheduleRecompute(ctx: ToolContext, productIds: string[]) {
  for (const productId of productIds) {
    await ctx.schedule?.(QUEUES.recomputeOpportunities, { workspaceId: ctx.principal.workspaceId, productId }, { singletonKey: `${ctx.principal.workspaceId}:${productId}` });
  }
}

function evidenceError(error: unknown): never {
  if (error instanceof UnknownSignalTypeError || error instanceof SourceNotFoundError || error instanceof SignalNotFoundError) throw new ToolError(error.message);
  throw error;
}

export const addSignalsTool = defineTool({
  name: 'add_signals',
  title: 'Add signals',
  description:
    'Record 1–100 customer signals observed in one source: needs, problems, pain points, feedback, quotes (or a custom type of the workspace). ' +
    'Read the "extract-signals" skill and the source (read_source) first. One observation per signal. All or nothing: if one item is refused, none is stored. ' +
    'Sending the same source, type and content again returns the existing signal marked reused, so retries are safe. Needs mcp:write.',
  inputSchema: {
    source_id: z.string().min(1).max(128).describe('The source the signals come from.'),
    signals: z.array(signalInput).min(1).max(100),
  },
  outputSchema: { signals: z.array(z.object({ id: z.string(), reused: z.boolean() })), created: z.number(), reused: z.number() },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'write',
  async handler(args, ctx) {
    try {
      const out = await addSignals(ctx.pool, {
        workspaceId: ctx.principal.workspaceId,
        sourceId: args.source_id,
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
});

const updateInput = z.object({
  id: z.string().min(1).max(128).describe('The signal id (sig_…).'),
  title: z.string().min(1).max(200).optional(),
  content: z.string().min(1).max(20_000).optional(),
  type: z.string().min(1).max(64).optional().describe('A new signal type key or name.'),
  created_at: z.iso.datetime({ offset: true }).optional(),
  who_said_it: z.string().max(256).nullable().optional().describe('null clears it.'),
  participant_id: z.string().max(256).nullable().optional().describe('null clears it.'),
  theme: z.string().max(80).nullable().optional().describe('3–6 words naming the problem; null clears it.'),
});

export const updateSignalsTool = defineTool({
  name: 'update_signals',
  title: 'Update signals',
  description:
    'Edit 1–100 existing signals at once, all or nothing: each field you give replaces the old value, omitted fields stay, ' +
    'null clears who_said_it or participant_id. Use view_item(item_type: "signal") to read a signal first. Needs mcp:write.',
  inputSchema: { updates: z.array(updateInput).min(1).max(100) },
  outputSchema: { updated: z.array(z.string()) },
  annotations: { readOnlyHint: false, destructiveHint: false, idempotentHint: true, openWorldHint: false },
  access: 'write',
  async handler(args, ctx) {
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
});
