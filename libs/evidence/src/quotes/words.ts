/**
 * Text as the words a quote is compared by: case, whitespace, punctuation and typographic quotes do
 * not count; contractions are spelled out and small numbers written as digits, so "don't" and
 * "do not", "two" and "2" are the same words. Everything else (every letter, every digit) counts.
 */

const APOSTROPHES = /[’‘ʼ`´]/g;
const NUMBER_WORDS = [
  'zero', 'one', 'two', 'three', 'four', 'five', 'six', 'seven', 'eight', 'nine', 'ten',
  'eleven', 'twelve', 'thirteen', 'fourteen', 'fifteen', 'sixteen', 'seventeen', 'eighteen', 'nineteen',
];
const TENS = ['twenty', 'thirty', 'forty', 'fifty', 'sixty', 'seventy', 'eighty', 'ninety'];
const DIGITS = new Map([...NUMBER_WORDS.map((w, i) => [w, String(i)] as const), ...TENS.map((w, i) => [w, String((i + 2) * 10)] as const)]);
// Contractions, with or without their apostrophe ("don't", "dont"), as typed in chats and by models.
const SPELLED = new Map<string, string[]>([
  ...['do', 'does', 'did', 'is', 'are', 'was', 'were', 'could', 'would', 'should', 'have', 'has', 'had'].map((w) => [`${w}nt`, [w, 'not']] as [string, string[]]),
  ['cant', ['can', 'not']], ['cannot', ['can', 'not']], ['wont', ['will', 'not']], ['shant', ['shall', 'not']],
  ['im', ['i', 'am']], ['ive', ['i', 'have']], ['youre', ['you', 'are']],
]);
const SUFFIXES: ReadonlyArray<[string, string]> = [["n't", 'not'], ["'re", 'are'], ["'ve", 'have'], ["'ll", 'will'], ["'m", 'am']];
// Letters and digits, keeping a decimal point or an apostrophe inside a word ("3.5", "o'brien").
const WORD = /[\p{L}\p{N}]+(?:['.][\p{L}\p{N}]+)*/gu;
const ASCII_WORD = /[a-z0-9]+(?:['.][a-z0-9]+)*/g;

// One lookup per word: a number word's digits, or a contraction written without its apostrophe, spelled out.
const REWRITE = new Map<string, readonly string[]>([...[...DIGITS].map(([w, d]) => [w, [d]] as const), ...SPELLED]);

/** Pushes a token's words: a contraction spelled out, a number word as digits, anything else as is. */
function pushWords(out: string[], token: string): void {
  if (token.includes("'")) {
    const bare = token.replace(/'/g, '');
    if (!REWRITE.has(bare)) {
      for (const [suffix, word] of SUFFIXES) {
        if (token.endsWith(suffix) && token.length > suffix.length) {
          out.push(token.slice(0, -suffix.length).replace(/'/g, ''), word);
          return;
        }
      }
    }
    token = bare;
  }
  const known = REWRITE.get(token);
  if (known === undefined) out.push(token);
  else if (known.length === 1) out.push(known[0]!);
  else out.push(known[0]!, known[1]!);
}

/** Appends the words of `text` to `out` (no list per text: a source's segments go into one). */
export function appendWords(out: string[], text: string): void {
  const ascii = /^[\x00-\x7f]*$/.test(text); // ASCII text needs no compatibility normalisation
  const plain = ascii ? text : text.normalize('NFKC').replace(APOSTROPHES, "'");
  const t = plain.toLowerCase().replace(/(\d),(?=\d{3}\b)/g, '$1');
  const pattern = ascii ? ASCII_WORD : WORD;
  pattern.lastIndex = 0;
  for (let m = pattern.exec(t); m; m = pattern.exec(t)) pushWords(out, m[0]);
}

export function wordsOf(text: string): string[] {
  const out: string[] = [];
  appendWords(out, text);
  return out;
}

/** Sounds a speaker makes that a quote may leave out; words that carry meaning are never among them. */
export const FILLERS: ReadonlySet<string> = new Set(['um', 'umm', 'uh', 'uhh', 'uhm', 'er', 'erm', 'ah', 'eh', 'hmm', 'hm', 'mm', 'mmm', 'mhm']);
/** Two-word fillers ("you know", "I mean"), as "first second". */
export const FILLER_PAIRS: ReadonlySet<string> = new Set(['you know', 'i mean']);
