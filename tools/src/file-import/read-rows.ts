import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
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
}

export type FileFormat = 'csv' | 'ndjson' | 'json';

export const whereText = (where: FileRow['where']) => ('line' in where ? `line ${where.line}` : `item ${where.item}`);

/** CSV by its extension, else a JSON array when it starts with `[`, else NDJSON when it starts with `{`, else CSV. */
export async function formatOf(file: string): Promise<FileFormat> {
  if (/\.csv$/i.test(file)) return 'csv';
  let head = '';
  for await (const text of createReadStream(file, { start: 0, end: 4095, encoding: 'utf8' })) head += text as string;
  const body = head.replace(/^\uFEFF/, '').trimStart();
  if (body.startsWith('[')) return 'json';
  if (body.startsWith('{')) return 'ndjson';
  return 'csv';
}

const isObject = (v: unknown): v is Row => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The rows of a file, one at a time and never the whole file in memory: CSV through csv-parse (the first row
 * names the columns), NDJSON line by line, a JSON array through stream-json. `counter` is told the bytes read.
 */
export async function* readRows(file: string, counter: { bytes: number } = { bytes: 0 }): AsyncGenerator<FileRow> {
  const format = await formatOf(file);
  const input = createReadStream(file);
  input.on('data', (chunk) => (counter.bytes += chunk.length));
  try {
    if (format === 'csv') {
      const parser = input.pipe(parseCsv({
        bom: true, skip_empty_lines: true, relax_column_count: true, info: true,
        columns: (header: string[]) => header.map((h) => h.trim()),
      }));
      for await (const { record, info } of parser as AsyncIterable<{ record: Row; info: { lines: number } }>) {
        yield { where: { line: info.lines }, row: record };
      }
      return;
    }
    if (format === 'ndjson') {
      let line = 0;
      for await (const text of createInterface({ input, crlfDelay: Infinity })) {
        line++;
        if (!text.trim()) continue;
        try {
          const value: unknown = JSON.parse(line === 1 ? text.replace(/^\uFEFF/, '') : text);
          yield isObject(value) ? { where: { line }, row: value } : { where: { line }, problem: 'not a JSON object' };
        } catch (error) {
          yield { where: { line }, problem: `not valid JSON: ${(error as Error).message}` };
        }
      }
      return;
    }
    for await (const entry of input.pipe(StreamJson.parser()).pipe(StreamArray.streamArray())) {
      const { key, value } = entry as { key: number; value: unknown };
      yield isObject(value) ? { where: { item: key + 1 }, row: value } : { where: { item: key + 1 }, problem: 'not a JSON object' };
    }
  } finally {
    input.destroy();
  }
}
