import { RECORD_TYPES } from '@loupe/records';
import { isEventAtFormat } from './event-at';
import { mappingProblems, type Mapping } from './mapping';

export const DATA_AS = ['text', 'number', 'boolean', 'list'] as const;
export const PERSON_ROLES = ['external', 'internal', 'unknown'] as const;

/**
 * The console's column-by-column mapping form: for each record field the column it comes from, and for each
 * column of the file the `data` key it fills (empty: not imported). `mappingOfForm` turns it into the mapping
 * the CLI reads from a file; `formOfMapping` the other way, for a saved mapping.
 */
export interface MappingForm {
  type: string;
  eventAtColumn: string;
  eventAtFormat: string;
  idColumn: string;
  /** The name of the system the ids come from: the `_vendor_ids` key. */
  idSystem: string;
  threadColumn: string;
  personNameColumn: string;
  personEmailColumn: string;
  personRole: (typeof PERSON_ROLES)[number];
  /** A second person, of your team (an agent, a sales rep): an `internal` participant. */
  teamNameColumn: string;
  teamEmailColumn: string;
  tagsColumn: string;
  tagsSeparator: string;
  data: Array<{ column: string; key: string; as: (typeof DATA_AS)[number] }>;
}

/** A `data` key from a column's name: `What should we improve?` → `what_should_we_improve`. */
export function keyOfColumn(column: string): string {
  return column.normalize('NFKD').replace(/[\u0300-\u036f]/g, '').toLowerCase().replace(/[^a-z0-9]+/g, '_').replace(/^_+|_+$/g, '').slice(0, 64) || 'column';
}

const first = (columns: string[], pattern: RegExp, except: string[] = []) => columns.find((c) => pattern.test(c) && !except.includes(c)) ?? '';

/** A first guess from the columns' names: the id, date, person and tags columns, and every other column as a `data` key. */
export function guessForm(columns: string[]): MappingForm {
  const idColumn = first(columns, /(^|[\s_.-])(id|key|number|no)$|^id$|_id$|\bid\b/i);
  const eventAtColumn = first(columns, /date|time|created|submitted|updated|(^|[\s_.-])at$|^when$/i, [idColumn]);
  const personEmailColumn = first(columns, /e-?mail/i, [idColumn]);
  const personNameColumn = first(columns, /^(name|author|requester|customer|user|reviewer|respondent|contact)$|(^|[\s_.-])(name|author|requester|customer)$/i, [idColumn, personEmailColumn]);
  const tagsColumn = first(columns, /^tags?$|(^|[\s_.-])tags$|labels?$/i, [idColumn]);
  const teamNameColumn = first(columns, /^(agent|assignee|rep|owner|csm|account manager|sales rep)( name)?$/i, [idColumn, personNameColumn]);
  const used = new Set([idColumn, eventAtColumn, personEmailColumn, personNameColumn, tagsColumn, teamNameColumn].filter(Boolean));
  const keys = new Set<string>();
  let titled = false;
  let texted = false;
  const data = columns.map((column) => {
    if (used.has(column)) return { column, key: '', as: 'text' as const };
    let key = keyOfColumn(column);
    if (!titled && /subject|title|summary|headline/i.test(column)) [key, titled] = ['title', true];
    else if (!texted && /body|text|description|comment|review|notes?$|message|answer|feedback|content|improve/i.test(column)) [key, texted] = ['text', true];
    while (keys.has(key)) key = `${key}_`;
    keys.add(key);
    return { column, key, as: /score|rating|stars|nps|count|amount|arr/i.test(column) ? ('number' as const) : ('text' as const) };
  });
  return {
    type: 'message', eventAtColumn, eventAtFormat: 'iso', idColumn, idSystem: 'import', threadColumn: '', personNameColumn, personEmailColumn,
    personRole: 'external', teamNameColumn, teamEmailColumn: '', tagsColumn, tagsSeparator: ',', data,
  };
}

/**
 * The mapping of a filled form, or what is wrong with it, each problem naming the form's field in words;
 * the result is then checked by the same schema as a mapping file.
 */
export function mappingOfForm(form: MappingForm, routing: { productId: string; projectId: string }): { mapping?: Mapping; problems: string[] } {
  const problems: string[] = [];
  if (!(RECORD_TYPES as readonly string[]).includes(form.type)) problems.push(`Record type: choose one of ${RECORD_TYPES.join(', ')}`);
  if (!form.eventAtColumn) problems.push('Date: choose the column holding each row\'s date');
  const format = form.eventAtFormat.trim() || 'iso';
  if (!isEventAtFormat(format)) problems.push(`Date format: "${format}" is not iso, unix, unix_ms or a pattern of YYYY, MM, DD, HH, mm, ss`);
  if (!form.idColumn) problems.push('Id: choose the column holding each row\'s own id (a ticket, review or response id): a re-import then stores nothing twice');
  const system = form.idSystem.trim();
  if (!/^[A-Za-z0-9_.-]{1,64}$/.test(system)) problems.push('Id system: 1 to 64 letters, digits, ".", "_" or "-" (e.g. zendesk, survey, appstore)');
  if (!routing.productId) problems.push('Product: choose the product these records are about');
  if (!routing.projectId) problems.push('Project: choose the project they go to');
  const data: Mapping['data'] = {};
  for (const d of form.data) {
    const key = d.key.trim();
    if (!key) continue;
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(key)) problems.push(`Column "${d.column}": the key "${key}" must be 1 to 64 letters, digits, ".", "_" or "-"`);
    else if (Object.hasOwn(data, key)) problems.push(`Column "${d.column}": the key "${key}" is already filled by column "${(data[key] as { column: string }).column}"`);
    else data[key] = { column: d.column, ...(d.as && d.as !== 'text' ? { as: d.as } : {}) };
  }
  if (!Object.keys(data).length) problems.push('Columns: give at least one column a key (e.g. "text" for the main text) to import it');
  if (problems.length) return { problems };
  const candidate: Record<string, unknown> = {
    type: form.type,
    event_at: { column: form.eventAtColumn, ...(format !== 'iso' ? { format } : {}) },
    vendor_ids: { [system]: { column: form.idColumn } },
    product_id: routing.productId,
    project_ids: [routing.projectId],
    data,
  };
  if (form.threadColumn) candidate.thread_id = { column: form.threadColumn };
  const people = [];
  if (form.personNameColumn || form.personEmailColumn) {
    people.push({
      ...(form.personNameColumn ? { name: { column: form.personNameColumn } } : {}),
      ...(form.personEmailColumn ? { email: { column: form.personEmailColumn } } : {}),
      role: form.personRole,
    });
  }
  if (form.teamNameColumn || form.teamEmailColumn) {
    people.push({
      ...(form.teamNameColumn ? { name: { column: form.teamNameColumn } } : {}),
      ...(form.teamEmailColumn ? { email: { column: form.teamEmailColumn } } : {}),
      role: 'internal',
    });
  }
  if (people.length) candidate.participants = people;
  if (form.tagsColumn) candidate.tags = { column: form.tagsColumn, ...(form.tagsSeparator && form.tagsSeparator !== ',' ? { separator: form.tagsSeparator } : {}) };
  return mappingProblems(candidate);
}

/**
 * The form showing `mapping` over the file's `columns`, and whether it shows all of it: a mapping written by
 * hand may hold what the form has no field for (constants, a type column, several people or ids).
 */
export function formOfMapping(mapping: Mapping, columns: string[]): { form: MappingForm; complete: boolean } {
  let complete = true;
  const col = (s: { column: string } | { value: string } | undefined) => {
    if (!s) return '';
    if ('column' in s) return s.column;
    complete = false;
    return '';
  };
  const ids = Object.entries(mapping.vendor_ids);
  if (ids.length !== 1) complete = false;
  const [system, id] = ids.find(([, s]) => 'column' in s) ?? ids[0]!;
  if (typeof mapping.type !== 'string' && mapping.type) complete = false;
  const people = mapping.participants ?? [];
  // The form's two people: the first (any role) and a second of the team (internal).
  if (people.length > 2 || people.some((p) => p.id || typeof p.role === 'object') || (people.length === 2 && people[1]!.role !== 'internal')) complete = false;
  const person = people[0];
  const team = people.length === 2 ? people[1] : undefined;
  if (Array.isArray(mapping.tags) || mapping.nature) complete = false;
  const byColumn = new Map<string, { key: string; as: MappingForm['data'][number]['as'] }>();
  for (const [key, spec] of Object.entries(mapping.data)) {
    if ('value' in spec || byColumn.has(spec.column) || spec.separator) complete = false;
    else byColumn.set(spec.column, { key, as: spec.as ?? 'text' });
  }
  const data = columns.map((column) => ({ column, key: byColumn.get(column)?.key ?? '', as: byColumn.get(column)?.as ?? ('text' as const) }));
  for (const c of byColumn.keys()) if (!columns.includes(c)) data.push({ column: c, key: byColumn.get(c)!.key, as: byColumn.get(c)!.as });
  return {
    complete,
    form: {
      type: typeof mapping.type === 'string' ? mapping.type : '',
      eventAtColumn: mapping.event_at.column,
      eventAtFormat: mapping.event_at.format ?? 'iso',
      idColumn: col(id),
      idSystem: system,
      threadColumn: col(mapping.thread_id),
      personNameColumn: col(person?.name),
      personEmailColumn: col(person?.email),
      personRole: typeof person?.role === 'string' ? person.role : 'external',
      teamNameColumn: col(team?.name),
      teamEmailColumn: col(team?.email),
      tagsColumn: mapping.tags && !Array.isArray(mapping.tags) ? mapping.tags.column : '',
      tagsSeparator: mapping.tags && !Array.isArray(mapping.tags) ? mapping.tags.separator ?? ',' : ',',
      data,
    },
  };
}
