/**
 * The quoted spans of a signal's or a note's text: “…”, «…», „…“, "…" and `>` lines. A span of fewer
 * than MIN_QUOTED_WORDS words is a term in quotes ("CSV export"), not somebody's words.
 */
import { wordsOf } from './words';

export const MIN_QUOTED_WORDS = 3;

const SPANS = /“([^”\n]*)”|«([^»\n]*)»|„([^“”\n]*)[“”]|"([^"\n]*)"/g;
const BLOCK_LINE = /^\s*>\s?(.*)$/;
/** Any character that can open a quote: text without one quotes nothing. */
const QUOTE_MARK = /["“«„>]/;

/** Quoted spans in order of appearance, each as written (without its quote marks), repeats left out. */
export function quotesIn(text: string): string[] {
  if (!QUOTE_MARK.test(text)) return [];
  const found: string[] = [];
  let block: string[] = [];
  const endBlock = () => {
    const joined = block.join(' ');
    block = [];
    // A block quote holding quoted spans stands for them; else it is the words, less who said it and where.
    const spans = [...joined.matchAll(SPANS)].map((m) => (m[1] ?? m[2] ?? m[3] ?? m[4] ?? '').trim()).filter((q) => wordsOf(q).length);
    if (spans.length) {
      found.push(...spans);
      return;
    }
    const quote = withoutAttribution(joined);
    if (wordsOf(quote).length) found.push(quote);
  };
  for (const line of text.split(/\r?\n/)) {
    const quoted = BLOCK_LINE.exec(line);
    if (quoted) {
      block.push(quoted[1]!);
      continue;
    }
    endBlock();
    for (const m of line.matchAll(SPANS)) {
      const span = (m[1] ?? m[2] ?? m[3] ?? m[4] ?? '').trim();
      if (wordsOf(span).length >= MIN_QUOTED_WORDS) found.push(span);
    }
  }
  endBlock();
  return distinct(found);
}

const CITED_ID = /[([]?\b(?:src|sig)_[0-9a-z]+\b[)\]]?/gi;
/** A block quote's text without a leading **Speaker:** label, cited ids, and a trailing "— Name" attribution. */
function withoutAttribution(text: string): string {
  return text
    .replace(CITED_ID, ' ')
    .replace(/^\s*\*\*[^*]{1,60}\*\*:?\s*/, '')
    .replace(/\s+(?:—|–|--)\s*[^—–]{0,80}$/, '')
    .trim();
}

/** The exact words given apart from the text (a signal's `quote`), without quote marks around them. */
export function givenQuote(quote: string | null | undefined): string | undefined {
  const t = quote?.trim().replace(/^["“«„]+|["”»“]+$/g, '').trim();
  return t && wordsOf(t).length ? t : undefined;
}

export function distinct(quotes: readonly string[]): string[] {
  const seen = new Set<string>();
  return quotes.filter((q) => {
    const key = wordsOf(q).join(' ');
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
