/**
 * A signal's quotes checked against its source: each quote found or not, where and by whom it was
 * said, and whether that speaker is the one the signal names.
 */
import { distinct, givenQuote, quotesIn } from './extract';
import { findQuote, type SourceWords } from './match';

export interface QuoteCheck {
  text: string;
  verified: boolean;
  /** The segment the quote starts in, when found. */
  position?: number;
  speaker?: string;
  /** Found, but said by someone else than the signal's speaker. */
  otherSpeaker?: true;
}

export const QUOTES_VERIFIED = ['all', 'some', 'none', 'no_quote'] as const;
export type QuotesVerified = (typeof QUOTES_VERIFIED)[number];

export function quotesVerified(checks: readonly Pick<QuoteCheck, 'verified'>[]): QuotesVerified {
  if (!checks.length) return 'no_quote';
  const found = checks.filter((c) => c.verified).length;
  return found === checks.length ? 'all' : found === 0 ? 'none' : 'some';
}

// add_signals asks for a signal's quotes twice (whether to read the source, then to check them): the last few are kept.
const recent = new Map<string, string[]>();
const RECENT_MAX = 256;

/** The quotes of a text and of its separate exact words, repeats left out. */
export function quotesOf(content: string, quote?: string | null): string[] {
  const key = `${quote ?? ''}\u0000${content}`;
  const known = recent.get(key);
  if (known) return [...known];
  const given = givenQuote(quote);
  const quotes = distinct([...(given ? [given] : []), ...quotesIn(content)]);
  if (recent.size >= RECENT_MAX) recent.clear();
  recent.set(key, quotes);
  return [...quotes];
}

/** Names, emails and email local parts as lower-case words. */
function identities(person: string): { emails: Set<string>; names: Set<string> } {
  const lower = person.toLowerCase();
  const emails = new Set(lower.match(/[^\s<>()"',;]+@[^\s<>()"',;]+/g) ?? []);
  let names = new Set(lower.replace(/[^\s<>()"',;]+@[^\s<>()"',;]+/g, ' ').match(/\p{L}+/gu) ?? []);
  if (!names.size) names = new Set([...emails].flatMap((e) => e.split('@')[0]!.match(/\p{L}+/gu) ?? []));
  return { emails, names };
}

/** Whether a segment's speaker is one of the names the signal gives for its speaker (a shared email, or one's name words within the other's). */
export function isSpeaker(aliases: readonly string[], speaker: string): boolean {
  const them = identities(speaker);
  return aliases.some((alias) => {
    const me = identities(alias);
    if ([...me.emails].some((e) => them.emails.has(e))) return true;
    if (!me.names.size || !them.names.size) return false;
    const [small, large] = me.names.size <= them.names.size ? [me.names, them.names] : [them.names, me.names];
    return [...small].every((n) => large.has(n));
  });
}

/**
 * Checks the quotes of `content` (and `quote`) in the source. `speakerAliases` are the names the signal
 * gives its speaker (who said it, the participant's name and email); empty when it names nobody.
 */
export function checkQuotes(src: SourceWords, input: { content: string; quote?: string | null; speakerAliases?: readonly string[] }): QuoteCheck[] {
  const aliases = (input.speakerAliases ?? []).filter((a) => a.trim());
  return quotesOf(input.content, input.quote).map((text) => {
    const match = findQuote(src, text);
    if (!match) return { text, verified: false };
    const check: QuoteCheck = { text, verified: true, position: match.position };
    if (match.speaker) {
      check.speaker = match.speaker;
      if (aliases.length && !isSpeaker(aliases, match.speaker)) check.otherSpeaker = true;
    }
    return check;
  });
}
