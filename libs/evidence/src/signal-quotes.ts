/**
 * A signal's quotes checked against its source as it is written (issue 48): the source's segments are
 * read once per call, and each signal's checks are stored with it (signals.quotes, quotes_verified).
 */
import type pg from 'pg';
import { checkQuotes, quotesOf, quotesVerified, sourceWords, type QuoteCheck, type QuotesVerified, type SourceWords } from './quotes';

/** A quote check as stored and returned: snake_case, fields left out when empty. */
export interface StoredQuote {
  text: string;
  verified: boolean;
  position?: number;
  speaker?: string;
  /** Found, but said by another speaker than the signal names. */
  other_speaker?: true;
}

export interface SignalQuotes {
  quotes: StoredQuote[];
  quotesVerified: QuotesVerified;
}

const stored = (c: QuoteCheck): StoredQuote => ({
  text: c.text, verified: c.verified, ...(c.position !== undefined ? { position: c.position } : {}),
  ...(c.speaker ? { speaker: c.speaker } : {}), ...(c.otherSpeaker ? { other_speaker: true as const } : {}),
});

export const hasQuotes = (item: { content: string; quote?: string | null | undefined }) => quotesOf(item.content, item.quote).length > 0;

export async function readSourceWords(db: Pick<pg.PoolClient, 'query'>, sourceId: string): Promise<SourceWords> {
  const { rows } = await db.query<{ position: number; speaker: string | null; text: string }>(
    'SELECT position, speaker, text FROM source_segments WHERE source_id = $1 ORDER BY position',
    [sourceId],
  );
  return sourceWords(rows);
}

interface Participant { id?: unknown; name?: unknown; email?: unknown }

/** The names a signal gives its speaker: who said it, and the participant's id, name and email. */
export function speakerAliases(participants: unknown, whoSaidIt: string | null | undefined, participantId: string | null | undefined): string[] {
  const aliases = [whoSaidIt, participantId].filter((a): a is string => !!a?.trim());
  if (participantId && Array.isArray(participants)) {
    const p = (participants as Participant[]).find((x) => x && x.id === participantId);
    for (const v of [p?.name, p?.email]) if (typeof v === 'string' && v.trim()) aliases.push(v);
  }
  return aliases;
}

/** The checks of one signal; `src` is undefined only when the signal has no quote (nothing to read). */
export function signalQuotes(src: SourceWords | undefined, item: { content: string; quote?: string | null | undefined }, aliases: readonly string[]): SignalQuotes {
  const checks = src ? checkQuotes(src, { content: item.content, quote: item.quote, speakerAliases: aliases }) : [];
  return { quotes: checks.map(stored), quotesVerified: quotesVerified(checks) };
}
