import type { Segment, SegmentKind } from './types';

/** Longest segment text; longer content is split so `read_source` pages stay even. */
export const MAX_SEGMENT_CHARS = 4000;

export type PlainObject = Record<string, unknown>;

export function isObject(value: unknown): value is PlainObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** PostgreSQL text cannot hold NUL or lone surrogates; everything else is kept as sent. */
export function clean(text: string): string {
  return text.toWellFormed().replace(/\u0000/g, '\uFFFD');
}

export function firstString(obj: PlainObject, keys: readonly string[]): string | undefined {
  for (const key of keys) {
    const value = obj[key];
    if (typeof value === 'string' && value.trim()) return value;
  }
  return undefined;
}

/** `action_items` → `Action items`, `startTime` → `Start time`. */
export function humanize(key: string): string {
  const words = key
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_\-.]+/g, ' ')
    .trim()
    .toLowerCase();
  return words ? words[0]!.toUpperCase() + words.slice(1) : key;
}

function cutPoint(text: string, max: number): number {
  const window = text.slice(0, max);
  const floor = Math.floor(max / 2);
  for (const pattern of [/\n\s*\n(?=\S)/g, /\n/g, /[.!?…](?=\s)/g, /\s/g]) {
    let last = -1;
    for (const m of window.matchAll(pattern)) last = m.index + m[0].length;
    if (last >= floor) return last;
  }
  // No break anywhere: cut hard, but never between the halves of a surrogate pair.
  const code = text.charCodeAt(max - 1);
  return code >= 0xd800 && code <= 0xdbff ? max - 1 : max;
}

/** Splits at paragraph, line, sentence or word boundaries into pieces of at most `max` characters. */
export function splitText(text: string, max = MAX_SEGMENT_CHARS): string[] {
  const pieces: string[] = [];
  let rest = text.trim();
  while (rest.length > max) {
    const at = cutPoint(rest, max);
    const piece = rest.slice(0, at).trim();
    if (piece) pieces.push(piece);
    rest = rest.slice(at).trim();
  }
  if (rest) pieces.push(rest);
  return pieces;
}

/** One segment per piece of `text`; none for blank text. */
export function segmentsOf(
  kind: SegmentKind,
  text: string,
  extra: { speaker?: string | null; heading?: string | null; startMs?: number | null } = {},
): Segment[] {
  return splitText(clean(text)).map((piece, i) => ({
    kind,
    speaker: extra.speaker ? clean(extra.speaker) : null,
    heading: extra.heading ? clean(extra.heading) : null,
    text: piece,
    startMs: i === 0 ? (extra.startMs ?? null) : null,
  }));
}

/** A scalar as text; objects and arrays are rendered as `path: value` lines. */
export function scalarText(value: unknown): string | undefined {
  if (typeof value === 'string') return value;
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value === null) return 'null';
  return undefined;
}

/** Every value under `value`, one `path: value` line each (multi-line strings after their path). */
export function flattenLines(value: unknown, path = ''): string[] {
  const scalar = scalarText(value);
  if (scalar !== undefined) {
    if (!path) return [scalar];
    return scalar.includes('\n') ? [`${path}:\n${scalar}`] : [`${path}: ${scalar}`];
  }
  if (Array.isArray(value)) {
    if (value.length === 0) return path ? [`${path}: []`] : [];
    return value.flatMap((item, i) => flattenLines(item, `${path}[${i}]`));
  }
  if (isObject(value)) {
    const entries = Object.entries(value);
    if (entries.length === 0) return path ? [`${path}: {}`] : [];
    return entries.flatMap(([k, v]) => flattenLines(v, path ? `${path}.${k}` : k));
  }
  return [];
}

/** Readable text for any value: strings as they are, lists as bullets, anything else flattened. */
export function readableText(value: unknown): string {
  if (typeof value === 'string') return value;
  if (Array.isArray(value) && value.every((v) => scalarText(v) !== undefined)) {
    return value.map((v) => `- ${scalarText(v)}`).join('\n');
  }
  return flattenLines(value).join('\n');
}

/** Groups lines into segments of at most MAX_SEGMENT_CHARS, splitting a line only when it alone is too long. */
export function groupLines(kind: SegmentKind, lines: string[], heading: string | null): Segment[] {
  const segments: Segment[] = [];
  let current = '';
  const flush = () => {
    if (current.trim()) segments.push(...segmentsOf(kind, current, { heading }));
    current = '';
  };
  for (const line of lines) {
    if (current && current.length + 1 + line.length > MAX_SEGMENT_CHARS) flush();
    current = current ? `${current}\n${line}` : line;
  }
  flush();
  return segments;
}
