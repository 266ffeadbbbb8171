/**
 * Finds where values sit in JSON text already known to be valid (JSON.parse
 * accepted it), so a record's `data` can be stored byte for byte as sent:
 * key order, number precision and spelling survive, which a parse and
 * re-serialisation would lose. One pass over the text, no recursion: a body
 * is scanned once, whatever its size or depth.
 */

/** The raw text of a `data` value and how deeply it nests arrays and objects. */
export interface RawData {
  text: string;
  depth: number;
}

function isWs(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function skipWs(text: string, i: number): number {
  while (isWs(text.charCodeAt(i))) i++;
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

/** Nesting depth of the value `endOfValue` skipped last (0 for a scalar). */
let lastDepth = 0;

/** End (exclusive) of the value that starts at `i` (no leading whitespace); sets `lastDepth`. */
function endOfValue(text: string, i: number): number {
  const c = text.charCodeAt(i);
  lastDepth = 0;
  if (c === 0x22) return endOfString(text, i);
  if (c === 0x7b || c === 0x5b) {
    let depth = 0;
    let max = 0;
    for (let j = i; j < text.length; j++) {
      const d = text.charCodeAt(j);
      if (d === 0x22) j = endOfString(text, j) - 1;
      else if (d === 0x7b || d === 0x5b) {
        if (++depth > max) max = depth;
      } else if ((d === 0x7d || d === 0x5d) && --depth === 0) {
        lastDepth = max;
        return j + 1;
      }
    }
    throw new Error('unterminated container');
  }
  let j = i;
  while (j < text.length) {
    const d = text.charCodeAt(j);
    if (d === 0x2c || d === 0x7d || d === 0x5d || isWs(d)) break;
    j++;
  }
  return j;
}

function keyIs(text: string, start: number, end: number, key: string): boolean {
  // start/end enclose the quotes; a key written with escapes is decoded before comparing
  if (end - start - 2 === key.length && text.startsWith(key, start + 1)) return true;
  for (let k = start + 1; k < end - 1; k++) {
    if (text.charCodeAt(k) === 0x5c) return JSON.parse(text.slice(start, end)) === key;
  }
  return false;
}

interface Member {
  /** The last member named `key`, as JSON allows repeats and JSON.parse keeps the last. */
  found: { start: number; end: number; depth: number } | undefined;
  /** End (exclusive) of the object. */
  end: number;
}

/** Walks the object starting at `i` once, finding the value of `key` and the object's end. */
function member(text: string, i: number, key: string): Member {
  let found: Member['found'];
  let j = skipWs(text, i + 1);
  if (text.charCodeAt(j) === 0x7d) return { found, end: j + 1 };
  for (;;) {
    j = skipWs(text, j);
    const keyEnd = endOfString(text, j);
    const matches = keyIs(text, j, keyEnd, key);
    j = skipWs(text, skipWs(text, keyEnd) + 1); // past ':'
    const end = endOfValue(text, j);
    if (matches) found = { start: j, end, depth: lastDepth };
    j = skipWs(text, end);
    if (text.charCodeAt(j) === 0x2c) j++;
    else return { found, end: j + 1 };
  }
}

function rawData(text: string, m: Member): RawData | undefined {
  return m.found && { text: text.slice(m.found.start, m.found.end), depth: m.found.depth };
}

/**
 * For each record of a JSON body (a top-level array, or the `records` array of
 * a wrapper object), the raw `data` it holds; undefined for a record that is
 * not an object or has no `data`. Undefined when the body holds no array.
 */
export function rawDataOfRecords(text: string): (RawData | undefined)[] | undefined {
  let i = skipWs(text, 0);
  if (text.charCodeAt(i) === 0x7b) {
    const records = member(text, i, 'records').found;
    if (!records) return undefined;
    i = records.start;
  }
  if (text.charCodeAt(i) !== 0x5b) return undefined;
  const out: (RawData | undefined)[] = [];
  let j = skipWs(text, i + 1);
  if (text.charCodeAt(j) === 0x5d) return out;
  for (;;) {
    j = skipWs(text, j);
    let end: number;
    if (text.charCodeAt(j) === 0x7b) {
      const m = member(text, j, 'data');
      out.push(rawData(text, m));
      end = m.end;
    } else {
      end = endOfValue(text, j);
      out.push(undefined);
    }
    j = skipWs(text, end);
    if (text.charCodeAt(j) === 0x2c) j++;
    else return out;
  }
}

/** The raw `data` of the JSON object that is `text` (an NDJSON line), if it has one. */
export function rawDataOfObject(text: string): RawData | undefined {
  const i = skipWs(text, 0);
  return text.charCodeAt(i) === 0x7b ? rawData(text, member(text, i, 'data')) : undefined;
}

/** Deepest nesting of arrays and objects in valid JSON text. */
export function nestingDepth(text: string): number {
  endOfValue(text, skipWs(text, 0));
  return lastDepth;
}

/**
 * Whether JSON text may hold a string PostgreSQL cannot store (NUL, unpaired
 * surrogate). In valid JSON both can only be written as \u escapes, so text
 * without such an escape needs no closer look.
 */
export function mayHoldUnstorable(text: string): boolean {
  return /\\u(?:0000|d[89a-f])/i.test(text);
}
