import { z } from 'zod';
import { lockLandings } from '@loupe/batches';
import { findSuppressed, type Candidate } from '@loupe/erasure';
import { addSignals, QUOTES_VERIFIED, SignalNotFoundError, SourceNotFoundError, UnknownSignalTypeError, updateSignals, type SignalQuotes } from '@loupe/evidence';
import { QUEUES } from '@loupe/jobs';
import { blocks, next, oneLine } from '../render';
import { defineTool, ToolError, type ToolContext } from '../tool-kit';
import { refusedForSuppression } from './suppressed';

const signalInput = z.strictObject({
  type: z.string().min(1).max(64).describe('need, problem, pain_point, feedback, quote, feature_request, or custom.'),
  title: z.string().min(1).max(200).describe('One line.'),
  content: z.string().min(1).max(20_000).describe("With the customer's words quoted."),
  who_said_it: z.string().max(256).optional().describe('Name or email.'),
  participant_id: z.string().max(256).optional().describe('From read_source.'),
  created_at: z.iso.datetime({ offset: true }).optional().describe('ISO 8601; default: the source\'s.'),
  theme: z.string().max(80).optional().describe('3–6 words, e.g. "Slow CSV export"; same per problem.'),
  quote: z.string().max(2_000).optional().describe('Their exact words.'),
});

/** A signal's quotes as the tools return them: each found in the source or not, where and by whom it was said. */
const quoteChecks = {
  quotes: z.array(z.object({ text: z.string(), verified: z.boolean(), position: z.number().optional(), speaker: z.string().optional(), other_speaker: z.boolean().optional() })),
  quotes_verified: z.enum(QUOTES_VERIFIED),
};
const checksOf = (q: SignalQuotes) => ({ quotes: q.quotes, quotes_verified: q.quotesVerified });

/**
 * What the model reads about its quotes: those not found (to correct with update_signals) and those said
 * by another speaker than it named; nothing when every quote was found where it said.
 */
function quoteLines(signals: ReadonlyArray<{ id: string } & z.infer<z.ZodObject<typeof quoteChecks>>>): string | undefined {
  const missing: string[] = [];
  const others: string[] = [];
  for (const s of signals) {
    for (const q of s.quotes) {
      if (!q.verified) missing.push(`- \`${s.id}\`: "${oneLine(q.text, 200)}"`);
      else if (q.other_speaker) others.push(`- \`${s.id}\`: "${oneLine(q.text, 200)}" was said by ${oneLine(q.speaker ?? 'another speaker', 100)} (segment ${q.position})`);
    }
  }
  const checked = signals.reduce((n, s) => n + s.quotes.length, 0);
  if (!checked) return undefined;
  const found = signals.reduce((n, s) => n + s.quotes.filter((q) => q.verified).length, 0);
  return [
    `Quotes: ${found} of ${checked} found in the source.`,
    missing.length ? `**Not found in the source** (not the customer's words as said): correct each with update_signals, copying the words from read_source:\n${missing.join('\n')}` : undefined,
    others.length ? `**Said by someone else** than who_said_it names: correct who_said_it or the quote with update_signals:\n${others.join('\n')}` : undefined,
  ].filter(Boolean).join('\n\n');
}

/** New and changed signals are placed in opportunities in the background (worker queue opportunities.recompute); a re-sent one schedules nothing. */
async function scheduleRecompute(ctx: ToolContext, productIds: string[]) {
  for (const productId of productIds) {
    await ctx.schedule?.(QUEUES.recomputeOpportunities, { workspaceId: ctx.principal.workspaceId, productId }, { singletonKey: `${ctx.principal.workspaceId}:${productId}` });
  }
}

type SignalFields = {
  title?: string | undefined; content?: string | undefined; who_said_it?: string | null | undefined; participant_id?: string | null | undefined; theme?: string | null | undefined;
  quote?: string | null | undefined;
};

/**
 * Refuses signals that name a person erased from the workspace, as add_source refuses a source: their
 * participant id, or an address (or id) as who said it, or an address in the title, content, theme or quote.
 * Checked in the call's transaction under the landing lock (shared), so an erasure asked for meanwhile
 * either waits for these signals to commit (and then erases them) or is seen here.
 */
async function refuseSuppressed(ctx: ToolContext, list: string, items: readonly SignalFields[], what: string): Promise<void> {
  const ws = ctx.principal.workspaceId;
  await lockLandings(ctx.pool, ws, 'shared');
  const candidates: Candidate[] = items.map((s, i) => ({
    ids: [{ field: `${list}[${i}].participant_id`, value: s.participant_id }, { field: `${list}[${i}].who_said_it`, value: s.who_said_it }],
    texts: (['who_said_it', 'title', 'content', 'theme', 'quote'] as const).map((k) => ({ field: `${list}[${i}].${k}`, value: s[k] })),
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
    'Record 1–100 signals from one source, all or nothing; first read_skills extract-signals and read_source. ' +
    'One observation each; the same content again is reused. Quotes are checked against the source. DO NOT USE to edit (update_signals).',
  inputSchema: {
    source_id: z.string().min(1).max(128).describe('src_… id.'),
    signals: z.array(signalInput).min(1).max(100).describe('1–100.'),
  },
  outputSchema: { signals: z.array(z.object({ id: z.string(), reused: z.boolean(), ...quoteChecks })), created: z.number(), reused: z.number() },
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
          createdAt: s.created_at ? new Date(s.created_at) : undefined, theme: s.theme, quote: s.quote,
        })),
      }, ctx.clock);
      await scheduleRecompute(ctx, out.productIds);
      const signals = out.results.map((r) => ({ id: r.id, reused: r.reused, ...checksOf(r) }));
      return { signals, created: signals.filter((s) => !s.reused).length, reused: signals.filter((s) => s.reused).length };
    } catch (error) {
      return evidenceError(error);
    }
  },
  render(r) {
    return blocks(
      `# Signals: ${r.created} recorded${r.reused ? `, ${r.reused} already there (reused)` : ''}`,
      r.signals.map((s, i) => `${i + 1}. \`${s.id}\`${s.reused ? ' (reused)' : ''}${verifiedNote(s)}`).join('\n'),
      quoteLines(r.signals),
    ) + next(['get_opportunities in a few seconds to see where they joined', 'view_item(item_type: "signal") to read one']);
  },
});

const verifiedNote = (s: z.infer<z.ZodObject<typeof quoteChecks>>) => {
  const at = s.quotes.filter((q) => q.verified).map((q) => q.position);
  return s.quotes_verified === 'no_quote' ? ': no quote' : `: quotes ${s.quotes_verified} verified${at.length ? ` (segment ${at.join(', ')})` : ''}`;
};

const updateInput = z.strictObject({
  id: z.string().min(1).max(128).describe('sig_… id.'),
  title: z.string().min(1).max(200).optional().describe('New title.'),
  content: z.string().min(1).max(20_000).optional().describe('New content.'),
  type: z.string().min(1).max(64).optional().describe('New type.'),
  created_at: z.iso.datetime({ offset: true }).optional().describe('ISO 8601.'),
  who_said_it: z.string().max(256).nullable().optional().describe('null clears it.'),
  participant_id: z.string().max(256).nullable().optional().describe('null clears it.'),
  theme: z.string().max(80).nullable().optional().describe('null clears it.'),
  quote: z.string().max(2_000).nullable().optional().describe('null clears it.'),
});

export const updateSignalsTool = defineTool({
  name: 'update_signals',
  title: 'Update signals',
  description:
    'Edit 1–100 signals, all or nothing: given fields replace old values (not kept), null clears; read first with view_item. DO NOT USE to add (add_signals).',
  inputSchema: { updates: z.array(updateInput).min(1).max(100).describe('One per signal.') },
  outputSchema: { updated: z.array(z.object({ id: z.string(), ...quoteChecks })) },
  // Destructive: a replaced title or content is not kept anywhere (shaping notes keep versions; signals do not).
  annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: true, openWorldHint: false },
  access: 'write',
  async handler(args, ctx) {
    await refuseSuppressed(ctx, 'updates', args.updates, 'The updates were refused');
    try {
      const out = await updateSignals(ctx.pool, ctx.principal.workspaceId, args.updates.map((u) => ({
        id: u.id, title: u.title, content: u.content, type: u.type, createdAt: u.created_at ? new Date(u.created_at) : undefined,
        whoSaidIt: u.who_said_it, participantId: u.participant_id, theme: u.theme, quote: u.quote,
      })), ctx.clock);
      await scheduleRecompute(ctx, out.productIds);
      return { updated: out.quotes.map((q) => ({ id: q.id, ...checksOf(q) })) };
    } catch (error) {
      return evidenceError(error);
    }
  },
  render(r) {
    return blocks(
      `# ${r.updated.length} signal${r.updated.length === 1 ? '' : 's'} updated`,
      r.updated.map((s) => `- \`${s.id}\`${verifiedNote(s)}`).join('\n'),
      quoteLines(r.updated),
    ) + next(['view_item(item_type: "signal") to check one']);
  },
});
