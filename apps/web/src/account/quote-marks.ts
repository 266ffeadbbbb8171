/**
 * How a signal's or a note's quotes show on the evidence pages (issue 48): a mark saying whether its
 * quotes were found in the source, and the link from a found quote to its segment on the source page.
 */
import type { QuotesVerified, StoredQuote } from '@loupe/evidence';
import { SEGMENTS_PAGE } from './sources';

export interface QuoteMark {
  label: string;
  tone: 'ok' | 'warn' | 'bad' | 'muted';
}

/** The mark of a signal's quotes; none for a signal without quotes. */
export function signalMark(quotes: readonly StoredQuote[] | null, verified: QuotesVerified | null): QuoteMark | undefined {
  if (!verified || !quotes) return { label: 'Quotes not checked', tone: 'muted' };
  const found = quotes.filter((q) => q.verified).length;
  if (verified === 'no_quote') return undefined;
  if (verified === 'all') return { label: quotes.length === 1 ? 'Quote verified' : `${quotes.length} quotes verified`, tone: 'ok' };
  if (verified === 'none') return { label: quotes.length === 1 ? 'Quote not found in the source' : 'Quotes not found in the source', tone: 'bad' };
  return { label: `${found} of ${quotes.length} quotes found in the source`, tone: 'warn' };
}

/** The source page at a segment, that segment highlighted: its page of segments, scrolled to it. */
export function segmentLink(workspaceId: string, sourceId: string, position: number): string {
  const from = position >= SEGMENTS_PAGE ? `from=${Math.floor(position / SEGMENTS_PAGE) * SEGMENTS_PAGE}&` : '';
  return `/account/w/${workspaceId}/sources/${sourceId}?${from}quote=${position}#seg-${position}`;
}

/** The share of an opportunity's signals with every quote verified, as a whole percentage. */
export const percent = (share: number) => `${Math.round(share * 100)}%`;

export const quoteMarks = { signalMark, segmentLink, percent };
export type QuoteMarks = typeof quoteMarks;
