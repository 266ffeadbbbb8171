import { hashOf, tokenize } from './embed';

/**
 * Texts said again: the same message forwarded, pasted into a second ticket, sent with a typo fixed or a
 * word moved. Clustering them as separate texts makes each the other's nearest neighbour and a pair that
 * outlasts its theme in the tree, so a theme broke into more opportunities the more often its messages
 * were repeated (CLINC150 with every text twice, three domains × 50: 1.56 → 1.87 opportunities per intent).
 * A group of near-duplicates is clustered once, weighing as many texts as it holds, as near-duplicate
 * detection runs before topic modelling of feedback.
 *
 * Two texts are near-duplicates when their sets of words (./embed's tokens, any order) are the same, or
 * differ by one word only:
 *  - a frequent word more in one of them ("the", "my", "please"; rank below FREQUENT_RANK) that is no
 *    negation ("not" turns a message around), when the shorter has at least MIN_WORDS words;
 *  - one word mistyped: two words of at least TYPO_MIN_LETTERS letters one edit apart (a letter changed,
 *    added, dropped, or two neighbours swapped), exactly one of which the vocabulary knows.
 * A rare word more ("my card was declined" / "… declined twice") or one real word for another ("true" /
 * "false") changes what a short message says, so neither makes a duplicate. Measured on the 7,500
 * distinct texts of CLINC150's test and validation sets: 197 join another, 5 of them of another intent.
 *
 * Each text is compared with the first text of each group only (no chains: two texts joined are always
 * one difference apart), found through keys: the hash of its word set; the hash of the set less each
 * frequent word (a text one such word shorter has it as its set); and, for texts of at most TYPO_WORDS
 * distinct words, the set less each long word together with that word less one letter (two words one edit
 * apart share such a form, as SymSpell finds corrections). The cost grows with the words, not with the
 * pairs of texts.
 */

/** Words at least this frequent (rank in the vocabulary) say little about what a text is about (as ./embed's keywords). */
const FREQUENT_RANK = 1_000;
/** A text shorter than this is not joined by a word more or less: in two words or one, every word counts. */
const MIN_WORDS = 3;
const TYPO_MIN_LETTERS = 4;
/** Longer texts are not searched for one mistyped word (their keys grow with their letters). */
const TYPO_WORDS = 48;
const NEGATIONS = new Set(['no', 'not', 'never', 'nor', 'neither', 'none', 'nothing', 'nobody', 'without', 'cannot', 't']);

export interface Vocabulary {
  /** A word's frequency rank (0 the most frequent), undefined for a word the vocabulary does not know. */
  rankOf(word: string): number | undefined;
}

/** Two 32-bit hashes of a word (FNV-1a of the word and of it salted), summed per set so a word's removal is a subtraction. */
const hashesOf = (word: string): [number, number] => [hashOf(word), hashOf(`\u0000${word}`)];

/** The words only one side has, of two sorted word lists. */
function difference(a: readonly string[], b: readonly string[]): { onlyA: string[]; onlyB: string[] } {
  const onlyA: string[] = [];
  const onlyB: string[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i]! < b[j]!)) onlyA.push(a[i++]!);
    else if (i >= a.length || b[j]! < a[i]!) onlyB.push(b[j++]!);
    else {
      i++;
      j++;
    }
    if (onlyA.length + onlyB.length > 2) break;
  }
  return { onlyA, onlyB };
}

/** One edit apart: a letter changed, added or dropped, or two neighbouring letters swapped. */
export function oneEditApart(a: string, b: string): boolean {
  if (a === b || Math.abs(a.length - b.length) > 1) return false;
  const [s, l] = a.length <= b.length ? [a, b] : [b, a];
  let i = 0;
  while (i < s.length && s[i] === l[i]) i++;
  if (s.length < l.length) return s.slice(i) === l.slice(i + 1);
  return s.slice(i + 1) === l.slice(i + 1) || (s[i] === l[i + 1] && s[i + 1] === l[i] && s.slice(i + 2) === l.slice(i + 2));
}

const frequent = (word: string, vocabulary: Vocabulary) => {
  const rank = vocabulary.rankOf(word);
  return rank !== undefined && rank < FREQUENT_RANK && !NEGATIONS.has(word);
};

export function nearDuplicatesOf(a: readonly string[], b: readonly string[], vocabulary: Vocabulary): boolean {
  const { onlyA, onlyB } = difference(a, b);
  if (onlyA.length + onlyB.length === 0) return true;
  if (onlyA.length + onlyB.length === 1) return Math.min(a.length, b.length) >= MIN_WORDS && frequent(onlyA[0] ?? onlyB[0]!, vocabulary);
  if (onlyA.length === 1 && onlyB.length === 1) {
    const [x, y] = [onlyA[0]!, onlyB[0]!];
    const known = (w: string) => vocabulary.rankOf(w) !== undefined;
    return x.length >= TYPO_MIN_LETTERS && y.length >= TYPO_MIN_LETTERS && known(x) !== known(y) && oneEditApart(x, y);
  }
  return false;
}

/** The keys a text is found by, and finds others by (see the top of this file). */
function keysOf(words: readonly string[], vocabulary: Vocabulary): string[] {
  const hashes = words.map(hashesOf);
  const total = hashes.reduce<[number, number]>((sum, [a, b]) => [(sum[0] + a) >>> 0, (sum[1] + b) >>> 0], [0, 0]);
  const less = (i: number) => `${(total[0] - hashes[i]![0]) >>> 0}:${(total[1] - hashes[i]![1]) >>> 0}`;
  const keys = [`=${total[0]}:${total[1]}`];
  words.forEach((word, i) => {
    if (words.length > MIN_WORDS && frequent(word, vocabulary)) keys.push(`=${less(i)}`);
    if (words.length <= TYPO_WORDS && word.length >= TYPO_MIN_LETTERS) {
      const forms = new Set([word, ...Array.from(word, (_, at) => word.slice(0, at) + word.slice(at + 1))]);
      for (const form of forms) keys.push(`~${less(i)}:${form}`);
    }
  });
  return keys;
}

/**
 * The group of each text: the index of the first text (in the given order) it is a near-duplicate of,
 * its own index when none before it is.
 */
export function nearDuplicates(texts: readonly string[], vocabulary: Vocabulary): Int32Array {
  const first = new Int32Array(texts.length);
  // Key → the groups' first texts that have it.
  const byKey = new Map<string, number[]>();
  const words: string[][] = [];
  texts.forEach((text, i) => {
    const own = [...new Set(tokenize(text))].sort();
    words.push(own);
    const keys = keysOf(own, vocabulary);
    let found = -1;
    for (const key of keys) {
      found = byKey.get(key)?.find((j) => nearDuplicatesOf(own, words[j]!, vocabulary)) ?? -1;
      if (found >= 0) break;
    }
    first[i] = found >= 0 ? found : i;
    if (found >= 0) return;
    for (const key of keys) {
      const list = byKey.get(key);
      if (list) list.push(i);
      else byKey.set(key, [i]);
    }
  });
  return first;
}
