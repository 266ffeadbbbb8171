import { NATURES, RECORD_TYPES } from '@loupe/records';
import { z } from 'zod';
import { describeEventAtFormat, eventAtOf, isEventAtFormat } from './event-at';

/** A value taken from a column of the row (CSV header name, or a JSON key; `a.b` reaches into nested objects) or a constant. */
const columnSource = z.strictObject({ column: z.string().min(1, 'must name a column') });
const constantSource = z.strictObject({ value: z.string() });
const source = z.union([columnSource, constantSource], { error: 'must be {"column": "<name>"} or {"value": "<text>"}' });

const dataValue = z.union([
  z.strictObject({ column: z.string().min(1, 'must name a column'), as: z.enum(['text', 'number', 'boolean', 'list']).optional(), separator: z.string().min(1).optional() }),
  constantSource,
], { error: 'must be {"column": "<name>", "as"?: "text"|"number"|"boolean"|"list"} or {"value": "<text>"}' });

const participant = z.strictObject({
  id: source.optional(),
  name: source.optional(),
  email: source.optional(),
  role: z.union([z.enum(['internal', 'external', 'unknown']), columnSource], { error: 'must be "internal", "external", "unknown" or {"column": "<name>"}' }).optional(),
}).refine((p) => p.id || p.email || p.name, 'needs at least one of id, email or name (the id defaults to the email, then the name)');

/** The mapping file: per record field, where its value comes from. */
export const mappingSchema = z.strictObject({
  type: z.union([z.enum(RECORD_TYPES), columnSource], { error: `must be one of ${RECORD_TYPES.join(', ')} or {"column": "<name>"}` }).optional(),
  event_at: z.strictObject({
    column: z.string().min(1, 'must name a column'),
    format: z.string().refine(isEventAtFormat, 'must be iso, unix, unix_ms or a pattern of YYYY, MM, DD, HH, mm, ss').optional(),
  }),
  vendor_ids: z.record(z.string().min(1), source)
    .refine((v) => Object.keys(v).length > 0, 'must name at least one id, e.g. {"zendesk": {"column": "Ticket ID"}}')
    .refine((v) => Object.values(v).some((s) => 'column' in s),
      'must take at least one id from a column: a row\'s line number changes when the file is edited, so each row needs an id of its own (a ticket, review or response id) for a re-import not to duplicate it'),
  nature: z.enum(NATURES).optional(),
  thread_id: source.optional(),
  product_id: z.string().min(1).optional(),
  project_ids: z.array(z.string().min(1)).min(1).optional(),
  participants: z.array(participant).max(50).optional(),
  tags: z.union([
    z.strictObject({ column: z.string().min(1), separator: z.string().min(1).optional() }),
    z.array(z.string().min(1)),
  ], { error: 'must be {"column": "<name>", "separator"?: ","} or a list of constant tags' }).optional(),
  data: z.record(z.string().min(1), dataValue).refine((d) => Object.keys(d).length > 0, 'must map at least one key (e.g. "text")'),
});

export type Mapping = z.infer<typeof mappingSchema>;

/** NUL and unpaired surrogates as JSON.stringify writes them (a paired surrogate is written as is): text PostgreSQL refuses. */
const UNSTORABLE = /\\u0000|\\ud[89a-f][0-9a-f]{2}/i;

/** `text` with what PostgreSQL cannot store (NUL, unpaired surrogates) replaced by U+FFFD. */
export const storable = (text: string) => text.replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
export type Row = Record<string, unknown>;

/** Every problem of a mapping, each as `path: what is wrong`; empty when it is valid. */
export function mappingProblems(input: unknown): { mapping?: Mapping; problems: string[] } {
  const parsed = mappingSchema.safeParse(input);
  if (parsed.success) {
    // PostgreSQL cannot store them (a saved mapping, an import's mapping): refused here rather than failing there.
    if (UNSTORABLE.test(JSON.stringify(parsed.data))) return { problems: ['mapping: holds a NUL character or an unpaired surrogate, which cannot be stored'] };
    return { mapping: parsed.data, problems: [] };
  }
  return { problems: parsed.error.issues.map((i) => `${i.path.map(String).join('.') || 'mapping'}: ${i.message}`) };
}

/** A column's value as text: undefined when absent or empty. */
export function cellOf(row: Row, column: string): string | undefined {
  let value: unknown = Object.hasOwn(row, column) ? row[column] : undefined;
  if (value === undefined && column.includes('.')) {
    value = column.split('.').reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Row)[key] : undefined), row);
  }
  if (value === undefined || value === null) return undefined;
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return text.trim() === '' ? undefined : text;
}

function rawOf(row: Row, column: string): unknown {
  if (Object.hasOwn(row, column)) return row[column];
  return column.split('.').reduce<unknown>((node, key) => (node !== null && typeof node === 'object' ? (node as Row)[key] : undefined), row);
}

const valueOf = (row: Row, s: { column: string } | { value: string }) => ('column' in s ? cellOf(row, s.column) : s.value);

export interface RecordDefaults {
  productId?: string | undefined;
  projectIds?: string[] | undefined;
  type?: string | undefined;
}

/** `columns`: the column each field of the record came from, by its path (`_event_at`, `data.title`, `_participants[0].email`). */
export type Mapped = { ok: true; record: Record<string, unknown>; columns: Record<string, string> } | { ok: false; problems: string[] };
const columnOf = (s: object | string | undefined) => (s && typeof s === 'object' && 'column' in s && typeof s.column === 'string' ? s.column : undefined);

function dataCell(row: Row, spec: Mapping['data'][string]): { value?: unknown; problem?: string } {
  if ('value' in spec) return { value: spec.value };
  const raw = rawOf(row, spec.column);
  if (raw !== null && typeof raw === 'object') return { value: raw };
  const cell = cellOf(row, spec.column);
  if (cell === undefined) return {};
  if (spec.as === 'number') {
    const n = Number(cell.replace(/[\s_]/g, ''));
    return Number.isFinite(n) ? { value: n } : { problem: `"${cell}" in column "${spec.column}" is not a number` };
  }
  if (spec.as === 'boolean') {
    if (/^(true|yes|1)$/i.test(cell)) return { value: true };
    if (/^(false|no|0)$/i.test(cell)) return { value: false };
    return { problem: `"${cell}" in column "${spec.column}" is not true/false, yes/no or 1/0` };
  }
  if (spec.as === 'list') return { value: cell.split(spec.separator ?? ',').map((s) => s.trim()).filter(Boolean) };
  return { value: cell };
}

/**
 * One row as a record. Problems of the row (an empty id, a date that does not fit the format) are named here;
 * the record's own rules (lengths, enums, e-mail addresses) are left to the API's record schema.
 */
export function recordOfRow(mapping: Mapping, row: Row, defaults: RecordDefaults): Mapped {
  const problems: string[] = [];
  const type = defaults.type ?? (typeof mapping.type === 'string' ? mapping.type : mapping.type ? cellOf(row, mapping.type.column) : undefined);
  if (!type) problems.push(mapping.type && typeof mapping.type !== 'string' ? `_type: column "${mapping.type.column}" is empty` : '_type: not mapped (set "type" in the mapping or pass --type)');
  const when = cellOf(row, mapping.event_at.column);
  const eventAt = when === undefined ? undefined : eventAtOf(when, mapping.event_at.format);
  if (when === undefined) problems.push(`_event_at: column "${mapping.event_at.column}" is empty`);
  else if (!eventAt) problems.push(`_event_at: "${when}" in column "${mapping.event_at.column}" does not fit the format ${describeEventAtFormat(mapping.event_at.format)}`);
  const vendorIds: Record<string, string> = {};
  for (const [system, s] of Object.entries(mapping.vendor_ids)) {
    const id = valueOf(row, s);
    if (id === undefined) problems.push(`_vendor_ids.${system}: column "${columnOf(s) ?? ''}" is empty`);
    else vendorIds[system] = id.trim();
  }
  const productId = defaults.productId ?? mapping.product_id;
  const projectIds = defaults.projectIds ?? mapping.project_ids;
  if (!productId) problems.push('_product_id: not given (pass --product or set "product_id" in the mapping)');
  if (!projectIds?.length) problems.push('_project_ids: not given (pass --project or set "project_ids" in the mapping)');
  const data: Record<string, unknown> = {};
  for (const [key, spec] of Object.entries(mapping.data)) {
    const { value, problem } = dataCell(row, spec);
    if (problem) problems.push(`data.${key}: ${problem}`);
    else if (value !== undefined) data[key] = value;
  }
  if (problems.length) return { ok: false, problems };
  const record: Record<string, unknown> = {
    _type: type, _schema_version: '1.0.0', _event_at: eventAt, _vendor_ids: vendorIds,
    _product_id: productId, _project_ids: projectIds, _nature: mapping.nature ?? 'evidence', data,
  };
  const columns: Record<string, string> = {};
  const from = (path: string, spec: object | string | undefined) => {
    const column = columnOf(spec);
    if (column) columns[path] = column;
  };
  from('_type', mapping.type);
  from('_event_at', mapping.event_at);
  for (const [system, spec] of Object.entries(mapping.vendor_ids)) from(`_vendor_ids.${system}`, spec);
  for (const [key, spec] of Object.entries(mapping.data)) from(`data.${key}`, spec);
  from('_thread_id', mapping.thread_id);
  from('_tags', Array.isArray(mapping.tags) ? undefined : mapping.tags);
  const thread = mapping.thread_id && valueOf(row, mapping.thread_id);
  if (thread) record._thread_id = thread;
  const participants = (mapping.participants ?? []).flatMap((p) => {
    const name = p.name && valueOf(row, p.name);
    const email = p.email && valueOf(row, p.email)?.trim();
    const id = (p.id && valueOf(row, p.id)) || email || name;
    if (!id) return [];
    const role = typeof p.role === 'object' ? cellOf(row, p.role.column)?.trim().toLowerCase() : p.role;
    return [{ spec: p, participant: { id, role: role ?? 'unknown', ...(name ? { name } : {}), ...(email ? { email } : {}) } }];
  }).map(({ spec, participant }, i) => {
    for (const field of ['id', 'name', 'email', 'role'] as const) from(`_participants[${i}].${field}`, spec[field]);
    return participant;
  });
  if (participants.length) record._participants = participants;
  if (Array.isArray(mapping.tags)) record._tags = mapping.tags;
  else if (mapping.tags) {
    const cell = cellOf(row, mapping.tags.column);
    const tags = cell ? cell.split(mapping.tags.separator ?? ',').map((t) => t.trim()).filter(Boolean) : [];
    if (tags.length) record._tags = tags;
  }
  return { ok: true, record, columns };
}
