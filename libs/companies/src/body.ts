import { COMPANY_LIMITS, type ItemError } from '@loupe/records';
import type { z } from 'zod';

export type BatchBodyKind = 'json' | 'ndjson';

/** A whole body that cannot be read as items: its code and what was wrong (and, over the count, the items beyond it). */
export class BatchBodyError extends Error {
  override name = 'BatchBodyError';
  constructor(
    readonly code: string,
    message: string,
    readonly errors: ItemError[] = [],
  ) {
    super(message);
  }
}

/** One item of a batch body: a parsed JSON value, or a line that is not JSON. */
export type RawItem = { index: number; ok: true; value: unknown } | { index: number; ok: false; message: string };

function checkCount(n: number, noun: string) {
  const max = COMPANY_LIMITS.itemsPerRequest;
  if (n === 0) throw new BatchBodyError('NO_ITEMS', `The body holds no ${noun}; send 1 to ${max}`);
  if (n > max) {
    const shown = Math.min(n - max, COMPANY_LIMITS.errorsPerResponse);
    throw new BatchBodyError('TOO_MANY_ITEMS', `The body holds ${n} ${noun}; at most ${max} are allowed per request`,
      Array.from({ length: shown }, (_, i) => ({
        index: max + i, code: 'TOO_MANY_ITEMS', message: `item ${max + i}: beyond the first ${max} of the request (it holds ${n}); send it in another request`,
      })));
  }
}

/**
 * The items of a batch body: a JSON array, `{"<noun>": [...]}`, or NDJSON (one object a line, blank
 * lines ignored). Throws BatchBodyError for what makes the whole body unusable.
 */
export function parseBatchBody(kind: BatchBodyKind, body: Buffer, noun: 'companies' | 'people'): RawItem[] {
  let text = body.toString('utf8');
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const shape = `a JSON array of ${noun}, an object whose only property is "${noun}", or NDJSON`;
  if (kind === 'json') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new BatchBodyError('INVALID_JSON', `The body is not valid JSON: ${(error as Error).message}`);
    }
    let items: unknown;
    if (Array.isArray(parsed)) items = parsed;
    else if (parsed !== null && typeof parsed === 'object') {
      const keys = Object.keys(parsed);
      if (keys.length !== 1 || keys[0] !== noun) {
        const extra = keys.filter((k) => k !== noun);
        throw new BatchBodyError('INVALID_BODY', extra.length
          ? `The body object may hold only "${noun}"; unexpected: ${extra.slice(0, 5).map((k) => JSON.stringify(k.slice(0, 64))).join(', ')}`
          : `The body must be ${shape}`);
      }
      items = (parsed as Record<string, unknown>)[noun];
      if (!Array.isArray(items)) throw new BatchBodyError('INVALID_BODY', `"${noun}" must be an array`);
    } else throw new BatchBodyError('INVALID_BODY', `The body must be ${shape}`);
    const list = items as unknown[];
    checkCount(list.length, noun);
    return list.map((value, index) => ({ index, ok: true, value }));
  }
  const out: RawItem[] = [];
  let index = 0;
  for (const line of text.split('\n')) {
    const trimmed = line.trim();
    if (!trimmed) continue;
    if (index < COMPANY_LIMITS.itemsPerRequest) {
      try {
        out.push({ index, ok: true, value: JSON.parse(trimmed) });
      } catch (error) {
        out.push({ index, ok: false, message: `line is not valid JSON: ${(error as Error).message}` });
      }
    }
    index++;
  }
  checkCount(index, noun);
  return out;
}

function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}

/** What zod found wrong, in words that name each field: `arr: Too small: expected number to be >=0`. */
export function describeIssues(error: z.ZodError, value: unknown, what: string): string {
  const parts = error.issues.slice(0, 3).map((issue) => {
    const where = pathOf(issue.path);
    if (issue.code === 'unrecognized_keys') {
      const keys = issue.keys.slice(0, 5).map((k) => JSON.stringify(k.slice(0, 64)));
      return `${where || what}: unknown field${issue.keys.length > 1 ? 's' : ''} ${keys.join(', ')}${issue.keys.length > 5 ? ` and ${issue.keys.length - 5} more` : ''}`;
    }
    if (issue.code === 'invalid_type' && value !== null && typeof value === 'object' && issue.path.length === 1 && !Object.hasOwn(value, issue.path[0]!)) {
      return `${where}: is required`;
    }
    if (issue.code === 'invalid_type' && issue.path.length === 0) return `${what}: must be a JSON object`;
    return `${where || what}: ${issue.message}`;
  });
  const more = error.issues.length > 3 ? ` (and ${error.issues.length - 3} more)` : '';
  return `${parts.join('; ')}${more}`.slice(0, 2048);
}

/** Validates each item alone: the inputs with their indexes, and an error for each refused one. */
export function validateBatchItems<S extends z.ZodType>(items: RawItem[], schema: S, what: string): { accepted: Array<{ index: number; input: z.output<S> }>; errors: ItemError[] } {
  const accepted: Array<{ index: number; input: z.output<S> }> = [];
  const errors: ItemError[] = [];
  for (const item of items) {
    if (!item.ok) {
      errors.push({ index: item.index, code: 'INVALID_JSON', message: item.message.slice(0, 2048) });
      continue;
    }
    const parsed = schema.safeParse(item.value);
    if (parsed.success) accepted.push({ index: item.index, input: parsed.data });
    else errors.push({ index: item.index, code: 'VALIDATION_ERROR', message: describeIssues(parsed.error, item.value, what) });
  }
  return { accepted, errors };
}
