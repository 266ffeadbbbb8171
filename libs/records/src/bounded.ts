import { z } from 'zod';
import {
  attachmentSchema, LIMITS, participantSchema, piiEntitySchema, piiSchema, projectIdSchema, recordSchema, tagSchema,
  vendorIdValueSchema, type IngestRecordInput,
} from './schemas';

/** The lists and maps a record may carry, each with its element schema and its bound. */
const COLLECTIONS: { path: readonly string[]; kind: 'array' | 'map'; max: number; element: z.ZodType }[] = [
  { path: ['_vendor_ids'], kind: 'map', max: LIMITS.vendorIdsPerRecord, element: vendorIdValueSchema },
  { path: ['_project_ids'], kind: 'array', max: LIMITS.projectIdsPerRecord, element: projectIdSchema },
  { path: ['_participants'], kind: 'array', max: LIMITS.participantsPerRecord, element: participantSchema },
  { path: ['_attachments'], kind: 'array', max: LIMITS.attachmentsPerRecord, element: attachmentSchema },
  { path: ['_tags'], kind: 'array', max: LIMITS.tagsPerRecord, element: tagSchema },
  { path: ['_pii', 'detected_entities'], kind: 'array', max: LIMITS.detectedEntitiesPerRecord, element: piiEntitySchema },
];

/** A zod issue, or a bound exceeded; `path` is from the record's root. */
export type CollectionIssue = Pick<z.core.$ZodIssue, 'code' | 'path' | 'message'> & Partial<z.core.$ZodIssue>;

function at(value: unknown, path: readonly string[]): unknown {
  let node = value;
  for (const key of path) {
    if (node === null || typeof node !== 'object' || Array.isArray(node) || !Object.hasOwn(node, key)) return undefined;
    node = (node as Record<string, unknown>)[key];
  }
  return node;
}

/** Every list and map longer than its bound, each reported once (no element is looked at). */
function boundIssues(record: unknown): CollectionIssue[] {
  const issues: CollectionIssue[] = [];
  for (const c of COLLECTIONS) {
    const value = at(record, c.path);
    let size: number | undefined;
    if (c.kind === 'array' && Array.isArray(value)) size = value.length;
    if (c.kind === 'map' && value !== null && typeof value === 'object' && !Array.isArray(value)) size = Object.keys(value).length;
    if (size !== undefined && size > c.max) {
      issues.push({ code: 'custom', path: [...c.path], message: `has ${size} ${c.kind === 'map' ? 'entries' : 'items'}; at most ${c.max} are allowed` });
    }
  }
  return issues;
}

/**
 * Checks the elements of every (bounded) list and map one by one, stopping after `budget`
 * problems: zod reports one issue per bad element and cannot stop early, so a 5 MB body of bad
 * elements would otherwise become millions of issues. Anything that is not a list or a map where
 * one belongs is left to the shell schema, which reports it once.
 */
function elementIssues(record: unknown, budget: number): CollectionIssue[] {
  const issues: CollectionIssue[] = [];
  for (const c of COLLECTIONS) {
    const value = at(record, c.path);
    if (value === null || typeof value !== 'object' || Array.isArray(value) !== (c.kind === 'array')) continue;
    const entries: Iterable<[string | number, unknown]> = Array.isArray(value) ? value.entries() : Object.entries(value);
    for (const [key, element] of entries) {
      const parsed = c.element.safeParse(element);
      if (parsed.success) continue;
      for (const issue of parsed.error.issues) {
        issues.push({ ...issue, path: [...c.path, key, ...issue.path] });
        if (issues.length >= budget) return issues;
      }
    }
  }
  return issues;
}

/** Properties a record may not have, found without zod when there are too many to be a typo. */
function manyUnknownProperties(record: unknown): CollectionIssue | undefined {
  if (record === null || typeof record !== 'object' || Array.isArray(record)) return undefined;
  const keys = Object.keys(record);
  if (keys.length <= 2 * FIELD_ORDER.size) return undefined;
  const unknown = keys.filter((k) => !FIELD_ORDER.has(k));
  return { code: 'unrecognized_keys', path: [], keys: unknown, message: '' } as CollectionIssue;
}

/** The record schema with each collection's elements left to `collectionIssues`. */
const recordShellSchema = recordSchema.extend({
  _vendor_ids: z.record(z.string(), z.unknown()).refine((v) => Object.keys(v).length > 0, 'must have at least one entry'),
  _project_ids: z.array(z.unknown()).min(1),
  _participants: z.array(z.unknown()).optional(),
  _attachments: z.array(z.unknown()).optional(),
  _tags: z.array(z.unknown()).optional(),
  _pii: piiSchema.extend({ detected_entities: z.array(z.unknown()).optional() }).optional(),
});

const FIELD_ORDER = new Map(Object.keys(recordSchema.shape).map((k, i) => [k, i]));
const orderOf = (issue: CollectionIssue) => (issue.path.length ? FIELD_ORDER.get(String(issue.path[0])) ?? Infinity : Infinity);

export type RecordCheck = { ok: true; record: IngestRecordInput } | { ok: false; issues: CollectionIssue[] };

/**
 * Validates a record against `recordSchema` with at most `budget` issues, in the schema's field
 * order, unknown properties last. Same verdict as `recordSchema.safeParse`; bounded work.
 */
export function checkRecord(value: unknown, budget: number = LIMITS.errorsPerRecord): RecordCheck {
  // Cheap checks first: a record refused for its size is not looked at further.
  const oversized = [...boundIssues(value)];
  const unknownProperties = manyUnknownProperties(value);
  if (unknownProperties) oversized.push(unknownProperties);
  if (oversized.length) return { ok: false, issues: oversized.slice(0, budget) };
  const shell = recordShellSchema.safeParse(value);
  const collections = elementIssues(value, budget);
  if (shell.success && collections.length === 0) return { ok: true, record: shell.data as IngestRecordInput };
  const issues = [...(shell.success ? [] : shell.error.issues), ...collections];
  issues.sort((a, b) => orderOf(a) - orderOf(b));
  return { ok: false, issues: issues.slice(0, budget) };
}
