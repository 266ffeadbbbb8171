import { hash } from 'node:crypto';
import { checkRecord, type CollectionIssue } from './bounded';
import type { BodyItem } from './parse-body';
import { nestingDepth } from './raw-json';
import { LIMITS, truncateEventAt, type IngestRecordInput, type RecordError } from './schemas';

export interface AcceptedRecord {
  index: number;
  record: IngestRecordInput;
  /** `data` exactly as sent. */
  rawData: string;
  /** `_event_at` truncated to whole seconds. */
  eventAt: string;
  /** Same `_type`, `_vendor_ids` (any key order) and `_event_at` (after truncation) → same key. */
  dedupKey: string;
}

export interface ValidationResult {
  accepted: AcceptedRecord[];
  /** Every record error, by index. */
  errors: RecordError[];
  rejectedIndexes: Set<number>;
}

function pathOf(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : out ? `.${String(p)}` : String(p);
  return out;
}

/** True when the property at `path` is absent from its (present) parent object. */
function isMissing(root: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return false;
  let node: unknown = root;
  for (const key of path.slice(0, -1)) {
    if (node === null || typeof node !== 'object') return false;
    node = (node as Record<PropertyKey, unknown>)[key];
  }
  return node !== null && typeof node === 'object' && !Object.hasOwn(node, path[path.length - 1]!);
}

function describe(issue: CollectionIssue, input: unknown): string {
  const where = pathOf(issue.path);
  if (isMissing(input, issue.path)) return `${where}: is required`;
  if (issue.code === 'unrecognized_keys' && issue.keys) {
    const keys = issue.keys.slice(0, 10).map((k) => JSON.stringify(k)).join(', ');
    const more = issue.keys.length > 10 ? ` and ${issue.keys.length - 10} more` : '';
    return `${where || 'record'}: unknown propert${issue.keys.length > 1 ? 'ies' : 'y'} ${keys}${more} (no additional properties are allowed)`;
  }
  return `${where || 'record'}: ${issue.message}`;
}

export function canonicalVendorIds(vendorIds: Record<string, string>): string {
  const sorted = Object.keys(vendorIds).sort();
  return JSON.stringify(sorted.map((k) => [k, vendorIds[k]]));
}

export function dedupKeyOf(type: string, vendorIds: Record<string, string>, eventAt: string): string {
  return hash('sha256', `${type}\n${canonicalVendorIds(vendorIds)}\n${eventAt}`, 'base64url');
}

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/** The first string (key or value) PostgreSQL cannot store: NUL characters and unpaired surrogates. */
function findUnstorable(value: unknown, path: (string | number)[]): string | undefined {
  if (typeof value === 'string') return UNSTORABLE.test(value) ? pathOf(path) || 'record' : undefined;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const found = findUnstorable(value[i], [...path, i]);
      if (found) return found;
    }
  } else if (value !== null && typeof value === 'object') {
    for (const [k, v] of Object.entries(value)) {
      if (UNSTORABLE.test(k)) return pathOf([...path, k]);
      const found = findUnstorable(v, [...path, k]);
      if (found) return found;
    }
  }
  return undefined;
}

/** Validates each record on its own and collects every error with the record's index. */
export function validateItems(items: BodyItem[]): ValidationResult {
  const accepted: AcceptedRecord[] = [];
  const errors: RecordError[] = [];
  const rejectedIndexes = new Set<number>();
  for (const item of items) {
    if (!item.ok) {
      errors.push({ index: item.index, code: 'INVALID_JSON', message: item.message.slice(0, 2048) });
      rejectedIndexes.add(item.index);
      continue;
    }
    const parsed = checkRecord(item.value);
    if (!parsed.ok) {
      for (const issue of parsed.issues) {
        errors.push({ index: item.index, code: 'VALIDATION_ERROR', message: describe(issue, item.value).slice(0, 2048) });
      }
      rejectedIndexes.add(item.index);
      continue;
    }
    // `data` is stored as JSON text, which keeps any escape; the other fields are stored as values.
    let bad: string | undefined;
    if (item.mayHoldUnstorable) {
      const { data: _data, ...fields } = item.value as Record<string, unknown>;
      bad = findUnstorable(fields, []);
    }
    if (bad) {
      errors.push({
        index: item.index,
        code: 'UNSUPPORTED_CHARACTER',
        message: `${bad}: contains a NUL character or an unpaired UTF-16 surrogate, which cannot be stored`,
      });
      rejectedIndexes.add(item.index);
      continue;
    }
    const rawData = item.rawData?.text ?? JSON.stringify(parsed.record.data);
    const depth = item.rawData?.depth ?? nestingDepth(rawData);
    if (depth > LIMITS.dataNestingDepth) {
      errors.push({
        index: item.index,
        code: 'VALIDATION_ERROR',
        message: `data: nested ${depth} levels deep; at most ${LIMITS.dataNestingDepth} levels are allowed`,
      });
      rejectedIndexes.add(item.index);
      continue;
    }
    const record = parsed.record;
    const eventAt = truncateEventAt(record._event_at);
    accepted.push({
      index: item.index,
      record,
      rawData,
      eventAt,
      dedupKey: dedupKeyOf(record._type, record._vendor_ids, eventAt),
    });
  }
  return { accepted, errors, rejectedIndexes };
}

export interface RequestRuleViolation {
  code: string;
  message: string;
  errors: RecordError[];
}

/**
 * The rules that hold for the request as a whole: one `_type` and one `_product_id`
 * (compared over the records that passed validation, against the first of them),
 * and at most 1,000 attachments.
 */
export function checkRequestRules(accepted: AcceptedRecord[]): RequestRuleViolation | undefined {
  const first = accepted[0];
  if (!first) return undefined;
  const errors: RecordError[] = [];
  for (const a of accepted) {
    if (a.record._type !== first.record._type) {
      errors.push({
        index: a.index,
        code: 'TYPE_MISMATCH',
        message: `_type: "${a.record._type}" differs from "${first.record._type}" of record ${first.index}; all records of a request must share one _type`,
      });
    }
    if (a.record._product_id !== first.record._product_id) {
      errors.push({
        index: a.index,
        code: 'PRODUCT_MISMATCH',
        message: `_product_id: "${a.record._product_id}" differs from "${first.record._product_id}" of record ${first.index}; all records of a request must share one _product_id`.slice(0, 2048),
      });
    }
  }
  if (errors.length) {
    const kinds = [...new Set(errors.map((e) => (e.code === 'TYPE_MISMATCH' ? '_type' : '_product_id')))].join(' and ');
    return { code: 'MIXED_REQUEST', message: `All records of a request must share one ${kinds}; ${errors.length} record(s) differ from record ${first.index}`, errors };
  }
  const attachments = accepted.reduce((n, a) => n + (a.record._attachments?.length ?? 0), 0);
  if (attachments > LIMITS.attachmentsPerRequest) {
    return {
      code: 'TOO_MANY_ATTACHMENTS',
      message: `The request holds ${attachments} attachments; at most ${LIMITS.attachmentsPerRequest} are allowed per request`,
      errors: accepted.filter((a) => a.record._attachments?.length).map((a) => ({
        index: a.index,
        code: 'TOO_MANY_ATTACHMENTS',
        message: `_attachments: ${a.record._attachments!.length} of the request's ${attachments} attachments (at most ${LIMITS.attachmentsPerRequest} per request); send some records in another request`,
      })),
    };
  }
  return undefined;
}
