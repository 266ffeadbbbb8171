import { firstString, groupLines, isObject, scalarText, flattenLines } from './text';
import type { Segment } from './types';

export const ROW_LIST_KEYS = ['rows', 'records', 'values', 'table', 'data', 'lines'] as const;
const COLUMN_KEYS = ['columns', 'headers', 'header', 'fields', 'column_names'] as const;

function cell(value: unknown): string {
  const scalar = scalarText(value);
  if (scalar !== undefined) return scalar.replace(/\s*\n\s*/g, ' ');
  return flattenLines(value).join('; ');
}

function columnNames(value: unknown): string[] | undefined {
  if (!Array.isArray(value) || value.length === 0) return undefined;
  return value.map((c, i) => (typeof c === 'string' ? c : isObject(c) ? (firstString(c, ['name', 'title', 'label', 'key']) ?? `Column ${i + 1}`) : String(c)));
}

/**
 * Spreadsheet rows as `Row n: column: value | …` lines grouped into segments. Rows are arrays
 * (named by `columns`, or by a first row of strings) or objects (named by their keys).
 */
export function rowsSegments(rows: unknown[], declaredColumns: unknown, heading: string | null): Segment[] | undefined {
  if (rows.length === 0) return undefined;
  const tabular = rows.filter((r) => Array.isArray(r) || isObject(r)).length;
  if (tabular < rows.length / 2) return undefined;
  let columns = columnNames(declaredColumns);
  let body = rows;
  const first = rows[0];
  if (!columns && Array.isArray(first) && rows.length > 1 && first.every((c) => typeof c === 'string' && c.trim())) {
    columns = first as string[];
    body = rows.slice(1);
  }
  const lines = body.map((row, i) => {
    let cells: string[];
    if (Array.isArray(row)) cells = row.map((v, c) => `${columns?.[c] ?? `Column ${c + 1}`}: ${cell(v)}`);
    else if (isObject(row)) cells = Object.entries(row).map(([k, v]) => `${k}: ${cell(v)}`);
    else cells = [cell(row)];
    return `Row ${i + 1}: ${cells.join(' | ')}`;
  });
  return groupLines('rows', lines, heading);
}

/** Rows of an object holding them (`{rows, columns}`), or of every sheet in `sheets`. */
export function rowsFromObject(value: Record<string, unknown>, heading: string | null): { segments: Segment[]; used: string[] } | undefined {
  const columnsKey = COLUMN_KEYS.find((k) => Array.isArray(value[k]));
  for (const key of ROW_LIST_KEYS) {
    const rows = value[key];
    if (!Array.isArray(rows)) continue;
    const segments = rowsSegments(rows, columnsKey ? value[columnsKey] : undefined, heading);
    if (segments) return { segments, used: columnsKey ? [key, columnsKey] : [key] };
  }
  return undefined;
}

/** `sheets` / `tabs`: a list of `{name, rows, columns}`, each sheet headed by its name. */
export function rowsFromSheets(sheets: unknown[]): Segment[] | undefined {
  const segments: Segment[] = [];
  let found = false;
  sheets.forEach((sheet, i) => {
    if (!isObject(sheet)) return;
    const name = firstString(sheet, ['name', 'title', 'sheet', 'label']) ?? `Sheet ${i + 1}`;
    const rows = rowsFromObject(sheet, name);
    if (!rows) return;
    found = true;
    segments.push(...rows.segments);
    const rest = Object.fromEntries(Object.entries(sheet).filter(([k]) => !rows.used.includes(k) && !['name', 'title', 'sheet', 'label'].includes(k)));
    segments.push(...groupLines('field', flattenLines(rest), name));
  });
  return found ? segments : undefined;
}
