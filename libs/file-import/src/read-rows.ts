import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import { pipeline, type Readable } from 'node:stream';
import { parse as parseCsv } from 'csv-parse';
import StreamJson from 'stream-json';
import StreamArray from 'stream-json/streamers/StreamArray.js';
import type { Row } from './mapping';

/** A row of the file and where it is: its line (CSV, NDJSON; a CSV row spanning lines is named by its last) or its position in a JSON array (from 1). */
export interface FileRow {
  where: { line: number } | { item: number };
  row?: Row;
  /** Why the row could not be read, when `row` is undefined. */
  problem?: string;
  /** Bytes of the file up to the end of this row (CSV and NDJSON; a JSON array's items are not placed). */
  end?: number;
}

export type FileFormat = 'csv' | 'ndjson' | 'json';

/** Where the bytes come from: a path on disk (the CLI), or a function opening a fresh stream (a stored upload). */
export type FileSource = string | (() => Promise<Readable> | Readable);

/** One CSV row may be at most this long (a cell that never closes its quote stops here instead of filling memory). */
export const MAX_CSV_ROW_BYTES = 4 * 1024 * 1024;

export const whereText = (where: FileRow['where']) => ('line' in where ? `line ${where.line}` : `item ${where.item}`);

const open = async (source: FileSource, options?: { start: number; end: number }): Promise<Readable> =>
  typeof source === 'string' ? createReadStream(source, options) : source();

/** The format from the first bytes: a JSON array when they start with `[`, NDJSON with `{`, CSV otherwise. */
export function formatOfHead(head: string, name = ''): FileFormat {
  if (/\.csv$/i.test(name)) return 'csv';
  const body = head.replace(/^\uFEFF/, '').trimStart();
  if (body.startsWith('[')) return 'json';
  if (body.startsWith('{')) return 'ndjson';
  return 'csv';
}

/**
 * The separator of a CSV from its first line: whichever of `,` `;` tab `|` it holds most of outside quotes
 * (spreadsheets in many locales write `;`), `,` when none.
 */
export function csvDelimiterOf(head: string): string {
  const line = head.replace(/^\uFEFF/, '').split(/\r?\n/, 1)[0] ?? '';
  const outside = line.replace(/"[^"]*"/g, '');
  let best = ',';
  let most = 0;
  for (const d of [',', ';', '\t', '|']) {
    const n = outside.split(d).length - 1;
    if (n > most) [best, most] = [d, n];
  }
  return best;
}

async function headOf(source: FileSource): Promise<string> {
  let head = '';
  const input = await open(source, { start: 0, end: 4095 });
  try {
    for await (const chunk of input) {
      head += Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
      if (head.length >= 4096) break;
    }
  } finally {
    input.destroy();
  }
  return head;
}

/** CSV by its extension, else a JSON array when it starts with `[`, else NDJSON when it starts with `{`, else CSV. */
export async function formatOf(source: FileSource, name = typeof source === 'string' ? source : ''): Promise<FileFormat> {
  if (/\.csv$/i.test(name)) return 'csv';
  return formatOfHead(await headOf(source));
}

const isObject = (v: unknown): v is Row => v !== null && typeof v === 'object' && !Array.isArray(v);

export interface ReadOptions {
  /** Told the bytes read so far. */
  counter?: { bytes: number };
  /** Known already (else read from the first bytes). */
  format?: FileFormat;
  /** The file's name, for its extension. */
  name?: string;
  /** A CSV's separator; found from its first line when not given. */
  delimiter?: string;
}

/**
 * The rows of a file, one at a time and never the whole file in memory: CSV through csv-parse (the first row
 * names the columns), NDJSON line by line, a JSON array through stream-json. A file that cannot be read on
 * (a quote never closed, a JSON array broken halfway) throws `FileReadError` naming where.
 */
export async function* readRows(source: FileSource, options: ReadOptions | { bytes: number } = {}): AsyncGenerator<FileRow> {
  const opts: ReadOptions = 'bytes' in options ? { counter: options } : options;
  const counter = opts.counter ?? { bytes: 0 };
  const format = opts.format ?? await formatOf(source, opts.name ?? (typeof source === 'string' ? source : ''));
  const delimiter = format === 'csv' ? opts.delimiter ?? csvDelimiterOf(await headOf(source)) : ',';
  const input = await open(source);
  input.on('data', (chunk: Buffer | string) => (counter.bytes += chunk.length));
  let at = 0;
  try {
    if (format === 'csv') {
      // pipeline, not pipe: an error of either stream ends the iteration with it.
      const parser = pipeline(input, parseCsv({
        bom: true, delimiter, skip_empty_lines: true, relax_column_count: true, info: true, max_record_size: MAX_CSV_ROW_BYTES,
        columns: (header: string[]) => header.map((h) => h.trim()),
      }), () => {});
      for await (const { record, info } of parser as AsyncIterable<{ record: Row; info: { lines: number; bytes: number } }>) {
        at = info.lines;
        yield { where: { line: info.lines }, row: record, end: info.bytes };
      }
      return;
    }
    if (format === 'ndjson') {
      let line = 0;
      let end = 0;
      for await (const text of createInterface({ input, crlfDelay: Infinity })) {
        line++;
        end += Buffer.byteLength(text) + 1;
        if (!text.trim()) continue;
        try {
          const value: unknown = JSON.parse(line === 1 ? text.replace(/^\uFEFF/, '') : text);
          yield isObject(value) ? { where: { line }, row: value, end } : { where: { line }, problem: 'not a JSON object', end };
        } catch (error) {
          yield { where: { line }, problem: `not valid JSON: ${(error as Error).message}`, end };
        }
      }
      return;
    }
    const items = pipeline(input, StreamJson.parser(), StreamArray.streamArray(), () => {});
    for await (const entry of items) {
      const { key, value } = entry as { key: number; value: unknown };
      at = key + 1;
      yield isObject(value) ? { where: { item: key + 1 }, row: value } : { where: { item: key + 1 }, problem: 'not a JSON object' };
    }
  } catch (error) {
    if (error instanceof FileReadError) throw error;
    const after = format === 'csv' ? (at ? ` after line ${at}` : ' at its header') : at ? ` after item ${at}` : '';
    throw new FileReadError(`The file cannot be read${after}: ${(error as Error).message}`);
  } finally {
    input.destroy();
  }
}

/** The file is broken past some point (not one bad row, which is refused on its own). */
export class FileReadError extends Error {
  override name = 'FileReadError';
}

/**
 * The columns of the file, from its first `rows` rows: the CSV header's names, or the keys of the JSON objects
 * with nested objects' keys as `a.b` (up to three levels), in the order they are first met.
 */
export async function columnsOf(source: FileSource, options: ReadOptions & { rows?: number } = {}): Promise<string[]> {
  const seen = new Set<string>();
  const add = (value: Row, prefix: string, depth: number) => {
    for (const [key, v] of Object.entries(value)) {
      if (isObject(v) && depth < 3 && Object.keys(v).length) add(v, `${prefix}${key}.`, depth + 1);
      else seen.add(`${prefix}${key}`);
    }
  };
  let n = 0;
  for await (const r of readRows(source, options)) {
    if (r.row) add(r.row, '', 1);
    if (++n >= (options.rows ?? 20)) break;
  }
  return [...seen].filter((c) => c !== '');
}
