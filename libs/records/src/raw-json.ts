/**
 * Finds where values sit in JSON text already known to be valid (JSON.parse
 * accepted it), so a record's `data` can be stored byte for byte as sent:
 * key order, number precision and spelling survive, which a parse and
 * re-serialisation would lose.
 */

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);

function skipWs(text: string, i: number): number {
  while (i < text.length && WS.has(text.charCodeAt(i))) i++;
  return i;
}

function endOfString(text: string, i: number): number {
  // text[i] is the opening quote; a quote ends the string unless an odd run of backslashes precedes it
  for (let j = text.indexOf('"', i + 1); j !== -1; j = text.indexOf('"', j + 1)) {
    let backslashes = 0;
    while (text.charCodeAt(j - 1 - backslashes) === 0x5c) backslashes++;
    if (backslashes % 2 === 0) return j + 1;
  }
  throw new Error('unterminated string');
}

// The characters that matter when skipping over a container.
const STRUCTURAL = /["[\]{}]/g;

/** End (exclusive) of the value that starts at `i` (no leading whitespace). */
function endOfValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  if (c === 0x22) return endOfString(text, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    STRUCTURAL.lastIndex = i;
    for (let m = STRUCTURAL.exec(text); m; m = STRUCTURAL.exec(text)) {
      const d = text.charCodeAt(m.index);
      if (d === 0x22) STRUCTURAL.lastIndex = endOfString(text, m.index);
      else if (d === 0x7b || d === 0x5b) depth++;
      else if (--depth === 0) return m.index + 1;
    }
    throw new Error('unterminated container');
  }
  let j = i;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === 0x2c || d === 0x7d || d === 0x5d || WS.has(d)) break;
    j++;
  }
  return j;
}

export interface Range {
  start: number;
  end: number;
}

/** Ranges of the elements of the array starting at `i`. */
export function arrayElements(text: string, i: number): Range[] {
  const out: Range[] = [];
  let j = skipWs(text, i + 1);
  if (text.charCodeAt(j) === 0x5d) return out;
  for (;;) {
    j = skipWs(text, j);
    const end = endOfValue(text, j);
    out.push({ start: j, end });
    j = skipWs(text, end);
    if (text.charCodeAt(j) === 0x2c) j++;
    else return out;
  }
}

/** Range of the value of the last member named `key` of the object starting at `i`. */
export function memberValue(text: string, i: number, key: string): Range | undefined {
  let found: Range | undefined;
  let j = skipWs(text, i + 1);
  if (text.charCodeAt(j) === 0x7d) return undefined;
  for (;;) {
    j = skipWs(text, j);
    const keyEnd = endOfString(text, j);
    const rawKey = text.slice(j + 1, keyEnd - 1);
    const name = rawKey.includes('\\') ? (JSON.parse(text.slice(j, keyEnd)) as string) : rawKey;
    j = skipWs(text, keyEnd) + 1; // past ':'
    j = skipWs(text, j);
    const end = endOfValue(text, j);
    if (name === key) found = { start: j, end };
    j = skipWs(text, end);
    if (text.charCodeAt(j) === 0x2c) j++;
    else return found;
  }
}

/** Ranges of the records of a JSON body: a top-level array, or the `records` array of a wrapper object. */
export function recordRanges(text: string): Range[] | undefined {
  const i = skipWs(text, 0);
  const c = text.charCodeAt(i);
  if (c === 0x5b) return arrayElements(text, i);
  if (c === 0x7b) {
    const records = memberValue(text, i, 'records');
    if (records && text.charCodeAt(records.start) === 0x5b) return arrayElements(text, records.start);
  }
  return undefined;
}

/** The raw text of `data` in the record object at `range`. */
export function rawDataOf(text: string, range: Range): string | undefined {
  if (text.charCodeAt(range.start) !== 0x7b) return undefined;
  const r = memberValue(text, range.start, 'data');
  return r && text.slice(r.start, r.end);
}

/** Deepest nesting of arrays and objects in valid JSON text, counted without recursion. */
export function nestingDepth(text: string): number {
  let depth = 0;
  let max = 0;
  STRUCTURAL.lastIndex = 0;
  for (let m = STRUCTURAL.exec(text); m; m = STRUCTURAL.exec(text)) {
    const c = text.charCodeAt(m.index);
    if (c === 0x22) STRUCTURAL.lastIndex = endOfString(text, m.index);
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) max = depth;
    } else depth--;
  }
  return max;
}

/**
 * Whether JSON text may hold a string PostgreSQL cannot store (NUL, unpaired
 * surrogate). In valid JSON both can only be written as \u escapes, so text
 * without such an escape needs no closer look.
 */
export function mayHoldUnstorable(text: string): boolean {
  return /\\u(?:0000|d[89a-f])/i.test(text);
}
