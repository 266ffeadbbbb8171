import { LIMITS } from './schemas';
import { mayHoldUnstorable, rawDataOfObject, rawDataOfRecords, type RawData } from './raw-json';

export type BodyKind = 'json' | 'ndjson';

/** One item of the body, in order: a parsed value with the raw text of its `data`, or a line that is not JSON. */
export type BodyItem =
  | { index: number; ok: true; value: unknown; rawData: RawData | undefined; mayHoldUnstorable: boolean }
  | { index: number; ok: false; message: string };

export class BodyError extends Error {
  override name = 'BodyError';
  constructor(
    readonly code: string,
    message: string,
    /** The records the rejection is about (the first few), and how many there are in all. */
    readonly records?: { errors: { index: number; code: string; message: string }[]; total: number },
  ) {
    super(message);
  }
}

/** `application/json` or `application/x-ndjson` (parameters such as charset allowed); anything else is undefined. */
export function bodyKindOf(contentType: string | undefined): BodyKind | undefined {
  const media = contentType?.split(';')[0]?.trim().toLowerCase();
  if (media === 'application/json') return 'json';
  if (media === 'application/x-ndjson') return 'ndjson';
  return undefined;
}

/** Nesting depth of arrays and objects in a value (0 for a scalar), as `nestingDepth` counts it in JSON text. */
function depthOf(value: unknown): number {
  if (value === null || typeof value !== 'object') return 0;
  let deepest = 0;
  for (const v of Array.isArray(value) ? value : Object.values(value)) deepest = Math.max(deepest, depthOf(v));
  return deepest + 1;
}

/**
 * A record our own code built (not read from a body), as the item `validateItems` takes: its `data`
 * serialised once, with no stringify and re-parse of the whole record on the event loop.
 */
export function itemOfRecord(record: { data?: unknown }): BodyItem {
  const text = JSON.stringify(record.data ?? null);
  // Every field but `data` is checked for what PostgreSQL cannot store; they are small.
  return { index: 0, ok: true, value: record, rawData: { text, depth: depthOf(record.data) }, mayHoldUnstorable: true };
}

function checkCount(n: number) {
  if (n === 0) throw new BodyError('NO_RECORDS', 'The body holds no records; send 1 to 1000');
  if (n > LIMITS.recordsPerRequest) {
    const over = n - LIMITS.recordsPerRequest;
    const message = (index: number) => `record ${index}: beyond the first ${LIMITS.recordsPerRequest} records of the request (it holds ${n}); send it in another request`;
    const shown = Math.min(over, LIMITS.errorsPerResponse);
    throw new BodyError('TOO_MANY_RECORDS', `The body holds ${n} records; at most ${LIMITS.recordsPerRequest} are allowed per request`, {
      errors: Array.from({ length: shown }, (_, i) => ({ index: LIMITS.recordsPerRequest + i, code: 'TOO_MANY_RECORDS', message: message(LIMITS.recordsPerRequest + i) })),
      total: over,
    });
  }
}

function parseJsonBody(text: string): BodyItem[] {
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    throw new BodyError('INVALID_JSON', `The body is not valid JSON: ${(error as Error).message}`);
  }
  let records: unknown[];
  if (Array.isArray(parsed)) {
    records = parsed;
  } else if (parsed !== null && typeof parsed === 'object') {
    const keys = Object.keys(parsed);
    const extra = keys.filter((k) => k !== 'records');
    if (!keys.includes('records')) {
      throw new BodyError('INVALID_BODY', 'The body must be an array of records or an object whose only property is "records"');
    }
    if (extra.length) {
      throw new BodyError('INVALID_BODY', `The body object may hold only "records"; unexpected: ${extra.map((k) => JSON.stringify(k)).join(', ')}`);
    }
    const value = (parsed as { records: unknown }).records;
    if (!Array.isArray(value)) throw new BodyError('INVALID_BODY', '"records" must be an array of records');
    records = value;
  } else {
    throw new BodyError('INVALID_BODY', 'The body must be an array of records or an object whose only property is "records"');
  }
  checkCount(records.length);
  const raw = rawDataOfRecords(text);
  const suspect = mayHoldUnstorable(text);
  return records.map((value, index) => ({ index, ok: true, value, rawData: raw?.[index], mayHoldUnstorable: suspect }));
}

function parseNdjsonBody(text: string): BodyItem[] {
  const items: BodyItem[] = [];
  let index = 0;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (trimmed === '') continue;
    if (index >= LIMITS.recordsPerRequest) {
      index++;
      continue; // only counted, for the error below
    }
    try {
      const value: unknown = JSON.parse(trimmed);
      const rawData = value !== null && typeof value === 'object' && !Array.isArray(value) ? rawDataOfObject(trimmed) : undefined;
      items.push({ index, ok: true, value, rawData, mayHoldUnstorable: mayHoldUnstorable(trimmed) });
    } catch (error) {
      items.push({ index, ok: false, message: `line is not valid JSON: ${(error as Error).message}` });
    }
    index++;
  }
  checkCount(index);
  return items;
}

/** Splits a request body into records. Throws BodyError for what makes the whole body unusable. */
export function parseBody(kind: BodyKind, body: Buffer): BodyItem[] {
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  return kind === 'json' ? parseJsonBody(text) : parseNdjsonBody(text);
}
