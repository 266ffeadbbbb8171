/**
 * How alike two signals are, deterministically and without a model: the overlap of their
 * normalised terms. Text is lower-cased, split into words, stripped of stop words, and each word
 * reduced to a crude stem (plural, -ing, -ed, -tion… endings removed, so "exports", "exporting" and
 * "export" meet). A few product-vocabulary equivalences map different words for one thing to one
 * term ("single sign-on", "SAML", "Okta" → sso; "Excel", "spreadsheet", "CSV" → spreadsheet).
 * Those mapped terms are concepts and weigh 2, other terms 1. The score is the weighted overlap
 * coefficient w(A ∩ B) / min(w(A), w(B)), in [0, 1]; a pair sharing less than weight 2 (one plain word)
 * scores 0, since one common word is a coincidence more often than a theme.
 * Replace `similarity` (or pass `{ similarity, threshold }` to recomputeOpportunities / clusterSignals)
 * for a better method; the lexicon below is small and hand-written, so unseen synonyms do not meet.
 */
const STOP = new Set(
  ('a an and are as at be but by can could do does for from get gets had has have how i if in into is it its just like make me more ' +
    'my need needs no not of on or our out so than that the their them then there these they this to too us very was we were what ' +
    'when which who will with would you your about again always every everyone one two half also only still would really thing things ' +
    'want wants please take takes taking time want able use using used')
    .split(' '),
);

const PHRASES: Array<[RegExp, string]> = [
  [/single[\s-]+sign[\s-]*on/g, ' sso '],
  [/\b(saml|okta|oidc|identity provider|company login|google workspace login)\b/g, ' sso '],
  [/\bsign[\s-]*in\b|\blog[\s-]*in\b/g, ' login '],
  [/\b(excel|csv|xlsx|spreadsheets?)\b/g, ' spreadsheet '],
  [/\b(times? out|timed out|timeouts?|takes forever|too slow|slowly|sluggish)\b/g, ' slow '],
  [/\b(crash(es|ed|ing)?|freez(es|ing)|force[\s-]*clos(es|ed))\b/g, ' crash '],
  [/\b(iphone|android|ios|phone)\b/g, ' mobile '],
];

const CONCEPTS = new Set(['sso', 'login', 'spreadsheet', 'slow', 'crash', 'mobile']);

function stem(word: string): string {
  if (CONCEPTS.has(word)) return word;
  for (const suffix of ['ations', 'ation', 'ings', 'ing', 'ers', 'ies', 'ied', 'ed', 'es', 's']) {
    if (word.length > suffix.length + 3 && word.endsWith(suffix)) return word.slice(0, -suffix.length).replace(/e$/, '');
  }
  return word.replace(/e$/, '');
}

export function terms(text: string): Set<string> {
  let t = ` ${text.toLowerCase()} `;
  for (const [pattern, replacement] of PHRASES) t = t.replace(pattern, replacement);
  const out = new Set<string>();
  for (const word of t.split(/[^a-z0-9]+/)) {
    if (word.length < 3 || STOP.has(word) || /^\d+$/.test(word)) continue;
    out.add(stem(word));
  }
  return out;
}

const weight = (term: string) => (CONCEPTS.has(term) ? 2 : 1);
const total = (set: Set<string>) => [...set].reduce((sum, t) => sum + weight(t), 0);

export function similarity(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 || b.size === 0) return 0;
  let shared = 0;
  for (const t of a) if (b.has(t)) shared += weight(t);
  if (shared < 2) return 0;
  return shared / Math.min(total(a), total(b));
}

/** Two signals belong to one opportunity when their similarity reaches this (single link). */
export const SIMILARITY_THRESHOLD = 0.2;
