import { diffArrays } from 'diff';

/**
 * Line by line, what changed from one version of a note to another, at a bounded cost (issue 41,
 * finding 2): Myers' diff costs about the square of the lines changed, so two versions that share
 * little are called too different instead of being compared for seconds.
 *
 * This file also runs as it is in a worker thread (text-diff.ts starts line-diff-worker.ts with plain
 * node, which strips the types): it imports packages only, never a module of ours, and uses only
 * TypeScript that node can erase (no enums, namespaces or parameter properties).
 */

export interface DiffLine {
  /** `gap`: unchanged lines left out. */
  kind: 'added' | 'removed' | 'same' | 'gap';
  text: string;
}

export interface LineDiffLimits {
  /** Lines removed plus lines added, at most; beyond, the versions are too different to list line by line. */
  maxChangedLines: number;
  /** How long the comparison may take, in milliseconds. */
  timeoutMs: number;
}

/**
 * The lines, or why there are none: more lines changed than `maxChangedLines` (`changed_lines`), the
 * comparison ran out of time (`time`), or every comparison slot stayed taken (`busy`, text-diff.ts).
 */
export type LineComparison = { lines: DiffLine[] } | { tooDifferent: 'changed_lines' | 'time' | 'busy' };

/** Unchanged runs longer than this are shortened to their first and last CONTEXT lines. */
const LONGEST_RUN = 6;
const CONTEXT = 2;

export function splitLines(text: string): string[] {
  return text === '' ? [] : text.replace(/\r?\n$/, '').split(/\r?\n/);
}

/** Two texts as lines, with the length of their common start (`head`) and common end (`tail`): what lies between changed. */
export interface ChangedMiddle {
  a: string[];
  b: string[];
  head: number;
  tail: number;
}

export function changedMiddle(before: string, after: string): ChangedMiddle {
  const a = splitLines(before);
  const b = splitLines(after);
  let head = 0;
  while (head < a.length && head < b.length && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { a, b, head, tail };
}

/** Lines between the common start and end, on each side. */
export const middleSize = (m: ChangedMiddle) => ({ removed: m.a.length - m.head - m.tail, added: m.b.length - m.head - m.tail });

/**
 * At least how many lines a diff of these lists removes and adds: each line that one list holds more
 * often than the other is removed or added, wherever it stands (linear, so a pair of unrelated texts is
 * refused before the quadratic part begins).
 */
function changedAtLeast(a: readonly string[], b: readonly string[]): number {
  const balance = new Map<string, number>();
  for (const line of a) balance.set(line, (balance.get(line) ?? 0) + 1);
  for (const line of b) balance.set(line, (balance.get(line) ?? 0) - 1);
  let changed = 0;
  for (const n of balance.values()) changed += Math.abs(n);
  return changed;
}

export function diffMiddle(m: ChangedMiddle, limits: LineDiffLimits): LineComparison {
  const started = Date.now();
  const oldLines = m.a.slice(m.head, m.a.length - m.tail);
  const newLines = m.b.slice(m.head, m.b.length - m.tail);
  if (oldLines.length + newLines.length > limits.maxChangedLines && changedAtLeast(oldLines, newLines) > limits.maxChangedLines) {
    return { tooDifferent: 'changed_lines' };
  }
  const parts = diffArrays(oldLines, newLines, { maxEditLength: limits.maxChangedLines, timeout: Math.max(1, limits.timeoutMs - (Date.now() - started)) });
  if (!parts) return { tooDifferent: Date.now() - started >= limits.timeoutMs ? 'time' : 'changed_lines' };
  const out: DiffLine[] = [];
  const same = (lines: readonly string[], from: number, to: number) => {
    const n = to - from;
    if (n > LONGEST_RUN) {
      for (let i = from; i < from + CONTEXT; i++) out.push({ kind: 'same', text: lines[i]! });
      out.push({ kind: 'gap', text: `${(n - 2 * CONTEXT).toLocaleString('en-US')} unchanged lines` });
      for (let i = to - CONTEXT; i < to; i++) out.push({ kind: 'same', text: lines[i]! });
    } else {
      for (let i = from; i < to; i++) out.push({ kind: 'same', text: lines[i]! });
    }
  };
  same(m.a, 0, m.head);
  for (const part of parts) {
    if (part.added || part.removed) {
      const kind = part.added ? 'added' : 'removed';
      for (const text of part.value) out.push({ kind, text });
    } else {
      same(part.value, 0, part.value.length);
    }
  }
  same(m.a, m.a.length - m.tail, m.a.length);
  return { lines: out };
}

/** The whole comparison, in one call: what the worker thread runs. */
export function compareLines(before: string, after: string, limits: LineDiffLimits): LineComparison {
  const started = Date.now();
  const m = changedMiddle(before, after);
  return diffMiddle(m, { ...limits, timeoutMs: limits.timeoutMs - (Date.now() - started) });
}
