/**
 * Finding a quote in a source's segments. The source is read into words once (SourceWords); each quote
 * is then found by its first word's places. A quote's words must follow each other in one speaker's
 * consecutive segments, with only fillers the speaker said (FILLERS, FILLER_PAIRS, a repeated word)
 * left out between them; an ellipsis splits it into parts that must come in order, by the same
 * speaker, within PART_WINDOW segments after the first part's.
 */
import { appendWords, FILLER_PAIRS, FILLERS, wordsOf } from './words';

export interface QuoteSegment {
  position: number;
  speaker: string | null;
  text: string;
}

export interface QuoteMatch {
  /** The position of the segment the quote starts in. */
  position: number;
  speaker: string | null;
}

/** How many segments after the first part's the other parts of an elided quote may be in. */
export const PART_WINDOW = 3;

const ELLIPSIS = /\[\s*(?:\.{3}|…)\s*\]|\.{3,}|…/;

export interface SourceWords {
  segments: readonly QuoteSegment[];
  words: string[];
  /** Per word: the index of its segment in `segments`. */
  segmentOf: Int32Array;
  /** Per word: its run, consecutive segments of one speaker (a turn split in several segments is one run). */
  runOf: Int32Array;
  /** Where each word occurs, in order. */
  places(word: string): ArrayLike<number>;
}

const NONE = new Int32Array(0);

/**
 * The source read into words once per call. Where each word occurs is kept as one array grouped by word
 * (counted, then filled), not an array per word: a 500-segment source makes two arrays, not a thousand.
 */
export function sourceWords(segments: readonly QuoteSegment[]): SourceWords {
  const words: string[] = [];
  const segmentIndex: number[] = [];
  const runIndex: number[] = [];
  let run = -1;
  segments.forEach((segment, i) => {
    if (i === 0 || segment.speaker !== segments[i - 1]!.speaker) run++;
    const before = words.length;
    appendWords(words, segment.text);
    for (let k = before; k < words.length; k++) {
      segmentIndex.push(i);
      runIndex.push(run);
    }
  });
  const idOf = new Map<string, number>();
  const ids = new Int32Array(words.length);
  const counts: number[] = [];
  for (let i = 0; i < words.length; i++) {
    let id = idOf.get(words[i]!);
    if (id === undefined) {
      id = counts.length;
      idOf.set(words[i]!, id);
      counts.push(0);
    }
    ids[i] = id;
    counts[id]!++;
  }
  const start = new Int32Array(counts.length + 1);
  for (let id = 0; id < counts.length; id++) start[id + 1] = start[id]! + counts[id]!;
  const fill = start.slice(0, counts.length);
  const positions = new Int32Array(words.length);
  for (let i = 0; i < words.length; i++) positions[fill[ids[i]!]!++] = i;
  return {
    segments, words, segmentOf: Int32Array.from(segmentIndex), runOf: Int32Array.from(runIndex),
    places(word) {
      const id = idOf.get(word);
      return id === undefined ? NONE : positions.subarray(start[id]!, start[id + 1]!);
    },
  };
}

/** How many source words at `j` a quote may leave out: a filler, a filler pair, or a word said twice. */
function droppable(src: SourceWords, j: number): number {
  const { words, runOf } = src;
  const word = words[j]!;
  if (FILLERS.has(word)) return 1;
  if (j + 1 < words.length && runOf[j + 1] === runOf[j] && FILLER_PAIRS.has(`${word} ${words[j + 1]}`)) return 2;
  if (j > 0 && runOf[j - 1] === runOf[j] && words[j - 1] === word) return 1;
  return 0;
}

/**
 * The end (exclusive) of `part[i..]` read from source word `j` on, within `run`; -1 when a word differs.
 * A word the quote shares with the source is taken first; when that leads nowhere and the source word
 * may be dropped, the quote is read on past it ("am I mean I on" holds "am I on").
 */
function matchFrom(src: SourceWords, part: readonly string[], i: number, j: number, run: number): number {
  const { words, runOf } = src;
  while (i < part.length) {
    if (j >= words.length || runOf[j] !== run) return -1;
    const skip = i > 0 ? droppable(src, j) : 0;
    if (words[j] === part[i]) {
      if (!skip) {
        i++;
        j++;
        continue;
      }
      const taken = matchFrom(src, part, i + 1, j + 1, run);
      if (taken >= 0) return taken;
    }
    if (!skip) return -1;
    j += skip;
  }
  return j;
}

const matchAt = (src: SourceWords, part: readonly string[], start: number) => matchFrom(src, part, 0, start, src.runOf[start]!);

/** The runs holding the part's rarest word: the only runs it can be in. */
function runsWith(src: SourceWords, part: readonly string[]): Set<number> {
  let rarest: ArrayLike<number> = NONE;
  part.forEach((word, i) => {
    const places = src.places(word);
    if (i === 0 || places.length < rarest.length) rarest = places;
  });
  const runs = new Set<number>();
  for (let k = 0; k < rarest.length; k++) runs.add(src.runOf[rarest[k]!]!);
  return runs;
}

/** The first place of `part` at or after word `from`, in segments up to `lastSegment` and of `speaker` when given. */
function findPart(src: SourceWords, part: readonly string[], from: number, lastSegment: number, speaker?: string | null): { start: number; end: number } | undefined {
  const runs = runsWith(src, part);
  if (!runs.size) return undefined;
  const starts = src.places(part[0]!);
  for (let k = 0; k < starts.length; k++) {
    const start = starts[k]!;
    if (start < from || !runs.has(src.runOf[start]!)) continue;
    const segment = src.segmentOf[start]!;
    if (segment > lastSegment) return undefined;
    if (speaker !== undefined && src.segments[segment]!.speaker !== speaker) continue;
    const end = matchAt(src, part, start);
    if (end >= 0) return { start, end };
  }
  return undefined;
}

export function findQuote(src: SourceWords, quote: string): QuoteMatch | undefined {
  const parts = quote.split(ELLIPSIS).map(wordsOf).filter((p) => p.length > 0);
  if (!parts.length) return undefined;
  const [first, ...rest] = parts;
  let from = 0;
  for (;;) {
    const head = findPart(src, first!, from, Number.MAX_SAFE_INTEGER);
    if (!head) return undefined;
    const segment = src.segmentOf[head.start]!;
    const { speaker, position } = src.segments[segment]!;
    let end = head.end;
    const complete = rest.every((part) => {
      const found = findPart(src, part, end, segment + PART_WINDOW, speaker);
      if (found) end = found.end;
      return !!found;
    });
    if (complete) return { position, speaker };
    from = head.start + 1;
  }
}
