import { itemOfRecord, validateItems } from '@loupe/records';
import { cellOf, recordOfRow, type Mapping, type RecordDefaults, type Row } from './mapping';
import { readRows, type FileRow, type FileSource, type ReadOptions } from './read-rows';

/** Records per request (CLI) or per landing (the console's import): the API's bound. */
export const RECORDS_PER_REQUEST = 1000;
/** Rows the preview maps and checks. */
export const PREVIEW_ROWS = 20;

/** The problems the API would name for this record, from the same record schema and rules it applies (none when it is valid). */
export function recordProblems(record: Record<string, unknown>): string[] {
  return validateItems([itemOfRecord(record)]).errors.map((e) => e.message);
}

export interface MappedRow {
  where: FileRow['where'];
  record?: Record<string, unknown>;
  /** Why the row is refused: it could not be read, did not map, or the record breaks a rule of the API. */
  problems: string[];
}

/**
 * A problem the record schema names by the record's path, with the column the value came from and the
 * value, so a person who mapped the file sees what to correct: `_participants[0].email: Invalid email
 * address (column "Requester email": "ana@")`.
 */
function withColumn(problem: string, columns: Record<string, string>, row: Row): string {
  const path = problem.slice(0, problem.indexOf(':'));
  const known = Object.keys(columns).filter((p) => path === p || path.startsWith(`${p}.`) || path.startsWith(`${p}[`)).sort((a, b) => b.length - a.length)[0];
  if (known === undefined) return problem;
  const column = columns[known]!;
  const value = cellOf(row, column) ?? '';
  return `${problem} (column "${column}": "${value.length > 60 ? `${value.slice(0, 60)}…` : value}")`;
}

/** A row of the file as the record it becomes, with every problem that would refuse it. */
export function mapFileRow(mapping: Mapping, row: FileRow, defaults: RecordDefaults): MappedRow {
  if (!row.row) return { where: row.where, problems: [row.problem ?? 'unreadable'] };
  const mapped = recordOfRow(mapping, row.row, defaults);
  if (!mapped.ok) return { where: row.where, problems: mapped.problems };
  const { record, columns } = mapped;
  return { where: row.where, record, problems: recordProblems(record).map((p) => withColumn(p, columns, row.row!)) };
}

/** The first `limit` rows mapped and checked, nothing sent: what `import --dry-run` prints and the console's preview shows. */
export async function previewFile(source: FileSource, mapping: Mapping, defaults: RecordDefaults, limit = PREVIEW_ROWS, options: ReadOptions = {}): Promise<MappedRow[]> {
  const rows: MappedRow[] = [];
  for await (const row of readRows(source, options)) {
    rows.push(mapFileRow(mapping, row, defaults));
    if (rows.length >= limit) break;
  }
  return rows;
}
