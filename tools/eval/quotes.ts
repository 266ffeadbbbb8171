/**
 * How well quotes are verified against their source (issue 48): transcripts are built from the texts in
 * ../shared/data (CLINC150 test texts, two speakers taking turns, one to three texts a turn, fillers
 * spoken here and there), then quotes are drawn from them: true ones (exact, re-cased with typographic
 * quotes, re-spaced and re-punctuated, with an ellipsis, with the speaker's fillers dropped) and false
 * ones (a word changed, a number changed, a negation added, a negation removed, words of the next
 * speaker run on, a paraphrase). Each is checked with the matcher add_signals uses (checkQuotes on the
 * source's segments); precision and recall are of "verified". Fixed seed: the same figures every run.
 *
 *   npm run eval:quotes      (EVAL_TRANSCRIPTS=200 transcripts, EVAL_TURNS=40 turns each)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { checkQuotes, sourceWords, wordsOf, type QuoteSegment } from '@loupe/evidence';
import { readLabelledCsv } from './metrics';
import { seeded } from './seeded';

const dataDir = path.resolve(import.meta.dirname, '../../../shared/data');
const transcripts = Number(process.env.EVAL_TRANSCRIPTS ?? 200);
const turns = Number(process.env.EVAL_TURNS ?? 40);
const TARGET = 0.99;
/** How many wrong answers of each kind to print, with the segments they were checked against (0: none). */
const show = Number(process.env.EVAL_SHOW ?? 0);

const random = seeded(48_000);
const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)]!;
const chance = (p: number) => random() < p;
const FILLERS = ['um', 'uh', 'you know', 'I mean'];
const NEGATABLE = /\b(is|are|was|were|can|could|will|would|do|does|did|should|have|has)\b/i;
const NEGATION = /\s*\b(not|never)\b|n't\b/i;
/** A negation with words on both sides, so that leaving it out cannot leave a shorter true quote. */
const INNER_NEGATION = /\S\s*(?:\b(?:not|never)\b|n't\b)\s*\S/i;

interface Sentence { words: string[]; spoken: string[] }
interface Turn { speaker: string; sentences: Sentence[] }

/** A sentence as written and as spoken: the spoken one may carry a filler between two words. */
function sentenceOf(text: string): Sentence {
  const words = text.split(/\s+/).filter(Boolean);
  const spoken = [...words];
  if (words.length >= 4 && chance(0.3)) spoken.splice(1 + Math.floor(random() * (words.length - 2)), 0, `${pick(FILLERS)},`);
  return { words, spoken };
}

function buildTranscript(texts: readonly string[]): Turn[] {
  const people = [pick(['Ana Ruiz', 'Noor Haddad', 'Li Wei']), pick(['Ben Cole', 'Sam Okafor', 'Eva Lind'])];
  return Array.from({ length: turns }, (_, i) => ({
    speaker: people[i % 2]!,
    sentences: Array.from({ length: 1 + Math.floor(random() * 3) }, () => sentenceOf(pick(texts))),
  }));
}

const segmentsOf = (t: Turn[]): QuoteSegment[] =>
  t.map((turn, position) => ({ position, speaker: turn.speaker, text: turn.sentences.map((s) => `${s.spoken.join(' ')}.`).join(' ') }));

/** A run of at least 4 words of a sentence (the whole one when short). */
function span(s: Sentence): string[] {
  if (s.words.length <= 5) return s.words;
  const length = 4 + Math.floor(random() * (s.words.length - 3));
  const start = Math.floor(random() * (s.words.length - length + 1));
  return s.words.slice(start, start + length);
}

const recase = (words: string[]) => words.map((w) => (chance(0.5) ? w.toUpperCase() : w[0]!.toUpperCase() + w.slice(1))).join(' ').replace(/'/g, '’');
const respace = (words: string[]) => words.map((w, i) => (i && chance(0.3) ? `, ${w}` : w)).join(chance(0.5) ? '   ' : ' \n ');

type Make = (transcript: Turn[]) => string | undefined;
/** A sentence of at least 4 words (shorter ones are not quotes a signal would make). */
const sentenceAt = (t: Turn[]) => ({ s: pick(t.flatMap((turn) => turn.sentences).filter((s) => s.words.length >= 4)) });

const TRUE: Record<string, Make> = {
  exact: (t) => span(sentenceAt(t).s).join(' '),
  're-cased, typographic quotes': (t) => `“${recase(span(sentenceAt(t).s))}”`,
  're-spaced, re-punctuated': (t) => respace(span(sentenceAt(t).s)),
  'with an ellipsis': (t) => {
    const i = Math.floor(random() * (t.length - 2));
    const sameTurn = t[i]!.sentences.length > 1 && chance(0.5);
    const at = sameTurn ? Math.floor(random() * (t[i]!.sentences.length - 1)) : Math.floor(random() * t[i]!.sentences.length);
    const first = t[i]!.sentences[at]!;
    const later = sameTurn ? t[i]!.sentences[at + 1 + Math.floor(random() * (t[i]!.sentences.length - at - 1))]! : pick(t[i + 2]!.sentences);
    return `${span(first).join(' ')} … ${span(later).join(' ')}`;
  },
  'fillers dropped': (t) => {
    const said = t.flatMap((turn) => turn.sentences).filter((s) => s.spoken.length > s.words.length);
    return said.length ? pick(said).words.join(' ') : undefined;
  },
};

function replaceWord(words: string[], at: number, by: string): string[] {
  return words.map((w, i) => (i === at ? by : w));
}

const FALSE: Record<string, Make> = {
  'a word changed': (t) => {
    const words = span(sentenceAt(t).s);
    const at = Math.floor(random() * words.length);
    const other = pick(t.flatMap((turn) => turn.sentences.flatMap((s) => s.words)).filter((w) => wordsOf(w).join() !== wordsOf(words[at]!).join() && wordsOf(w).length));
    return replaceWord(words, at, other).join(' ');
  },
  'a number changed': (t) => {
    const withNumber = t.flatMap((turn) => turn.sentences).filter((s) => s.words.some((w) => /\d/.test(w)));
    if (!withNumber.length) return undefined;
    const words = pick(withNumber).words;
    const at = words.findIndex((w) => /\d/.test(w));
    return replaceWord(words, at, words[at]!.replace(/\d+/, (n) => String(Number(n) + 1 + Math.floor(random() * 9)))).join(' ');
  },
  'a negation added': (t) => {
    const can = t.flatMap((turn) => turn.sentences).filter((s) => NEGATABLE.test(s.words.join(' ')) && !NEGATION.test(s.words.join(' ')));
    return can.length ? pick(can).words.join(' ').replace(NEGATABLE, '$1 not') : undefined;
  },
  'a negation removed': (t) => {
    const can = t.flatMap((turn) => turn.sentences).filter((s) => INNER_NEGATION.test(s.words.join(' ')));
    return can.length ? pick(can).words.join(' ').replace(NEGATION, '') : undefined;
  },
  'words of another speaker': (t) => {
    const i = Math.floor(random() * (t.length - 1));
    const end = t[i]!.sentences.at(-1)!.words;
    const start = t[i + 1]!.sentences[0]!.words;
    const joined = `${end.slice(-3).join(' ')}. ${start.slice(0, 3).join(' ')}`;
    // With an ellipsis, the next speaker's words must not also be the first speaker's own a turn or two later.
    const own = t.slice(i, i + 4).filter((turn) => turn.speaker === t[i]!.speaker).map((turn) => turn.sentences.map((s) => wordsOf(s.words.join(' ')).join(' ')).join(' ')).join(' ');
    const theirs = wordsOf(start.slice(0, 4).join(' ')).join(' ');
    if (chance(0.5) || own.includes(theirs)) return joined;
    return `${end.slice(-4).join(' ')} … ${start.slice(0, 4).join(' ')}`;
  },
  'a paraphrase': (t) => {
    // Two neighbouring words swapped and another left out, inside the sentence (its first and last words kept).
    const words = [...sentenceAt(t).s.words];
    if (words.length < 6) return undefined;
    const at = 1 + Math.floor(random() * (words.length - 3));
    if (wordsOf(words[at]!).join() === wordsOf(words[at + 1]!).join()) return undefined;
    [words[at], words[at + 1]] = [words[at + 1]!, words[at]!];
    const drop = [1, words.length - 2].find((k) => k < at || k > at + 1);
    if (drop !== undefined) words.splice(drop, 1);
    return words.join(' ');
  },
};

async function main() {
  const texts = readLabelledCsv(await readFile(path.join(dataDir, 'clinc150-test.csv'), 'utf8')).map((r) => r.text);
  const tally = new Map<string, { truth: boolean; n: number; verified: number; shown?: number }>();
  let checked = 0;
  const started = performance.now();
  for (let k = 0; k < transcripts; k++) {
    const transcript = buildTranscript(texts);
    const src = sourceWords(segmentsOf(transcript));
    for (const [kinds, truth] of [[TRUE, true], [FALSE, false]] as const) {
      for (const [kind, make] of Object.entries(kinds)) {
        for (let q = 0; q < 3; q++) {
          const quote = make(transcript);
          if (!quote || !wordsOf(quote).length) continue;
          const [check] = checkQuotes(src, { content: '', quote });
          const row = tally.get(kind) ?? { truth, n: 0, verified: 0 };
          row.n++;
          if (check?.verified) row.verified++;
          if (!!check?.verified !== truth && (row.shown = (row.shown ?? 0) + 1) <= show) {
            console.log(`${truth ? 'not found' : 'wrongly verified'} (${kind}): ${JSON.stringify(quote)}${check?.position !== undefined ? ` at ${check.position}: ${JSON.stringify(segmentsOf(transcript)[check.position]!.text)}` : ''}`);
          }
          tally.set(kind, row);
          checked++;
        }
      }
    }
  }
  const ms = performance.now() - started;
  let tp = 0, fn = 0, fp = 0;
  console.log(`eval:quotes: ${transcripts} transcripts of ${turns} turns from CLINC150 test texts, ${checked} quotes checked in ${Math.round(ms)} ms\n`);
  console.log('kind                                  quotes  verified');
  for (const [kind, r] of tally) {
    console.log(`${(r.truth ? 'true:  ' : 'false: ') + kind.padEnd(31)}${String(r.n).padStart(6)}  ${String(r.verified).padStart(8)}`);
    if (r.truth) { tp += r.verified; fn += r.n - r.verified; } else fp += r.verified;
  }
  const precision = tp / (tp + fp);
  const recall = tp / (tp + fn);
  console.log(`\nprecision ${precision.toFixed(4)}  recall ${recall.toFixed(4)}  (target ≥ ${TARGET} each: ${precision >= TARGET && recall >= TARGET ? 'met' : 'NOT met'})`);
  if (precision < TARGET || recall < TARGET) process.exitCode = 1;
}

await main();
