import { createReadStream } from 'node:fs';
import { stat, writeFile, appendFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { chunks, type ImportResult, type IngestClient, type ItemError } from '@loupe/ingest-client';
import { parse as parseCsv } from 'csv-parse';
import StreamJson from 'stream-json';
import Pick from 'stream-json/filters/Pick.js';
import StreamArray from 'stream-json/streamers/StreamArray.js';

/** What a CRM export holds: companies or people. */
export type DirectoryKind = 'companies' | 'people';

/** The columns a CSV may have for each kind (besides `attributes.<name>`). */
export const CSV_FIELDS: Record<DirectoryKind, readonly string[]> = {
  companies: ['external_id', 'name', 'domains', 'arr', 'plan', 'segment', 'stage', 'renewal_date'],
  people: ['external_id', 'email', 'name', 'company_external_id'],
};

/** Items per request: the API's bound. */
export const ITEMS_PER_REQUEST = 1000;

/** One item of the file and where it is: its line (CSV, NDJSON) or its position (a JSON array, from 1). */
export interface FileItem {
  where: { line: number } | { item: number };
  /** The object to send; undefined when the line could not be read (then `problem` says why). */
  value?: Record<string, unknown> | undefined;
  problem?: string;
}

type Format = 'csv' | 'ndjson' | 'array' | 'wrapper';

async function formatOf(file: string, kind: DirectoryKind): Promise<Format> {
  if (/\.csv$/i.test(file)) return 'csv';
  let head = '';
  for await (const text of createReadStream(file, { start: 0, end: 4095, encoding: 'utf8' })) head += text as string;
  const body = head.replace(/^\uFEFF/, '').trimStart();
  if (body.startsWith('[')) return 'array';
  if (new RegExp(`^\\{\\s*"${kind}"\\s*:\\s*\\[`).test(body)) return 'wrapper';
  if (body.startsWith('{')) return 'ndjson';
  return 'csv';
}

/**
 * A CSV row as the item the API takes: columns named like the fields, an empty cell left out, `domains`
 * a list separated by `;` or `,`, `arr` a number (digits with a dot for decimals; anything else is sent
 * as written, for the API to name), and `attributes.<name>` columns gathered as attributes (strings).
 */
export function itemOfCsvRow(kind: DirectoryKind, row: Record<string, string>): Record<string, unknown> {
  const item: Record<string, unknown> = {};
  const attributes: Record<string, string> = {};
  for (const [column, raw] of Object.entries(row)) {
    const cell = (raw ?? '').trim();
    if (cell === '') continue;
    if (column.startsWith('attributes.')) {
      attributes[column.slice('attributes.'.length)] = cell;
      continue;
    }
    if (!CSV_FIELDS[kind].includes(column)) continue;
    if (column === 'domains') item.domains = cell.split(/[;,]/).map((d) => d.trim()).filter(Boolean);
    else if (column === 'arr') {
      const plain = cell.replace(/[\s_]/g, '');
      item.arr = /^\d+(?:\.\d+)?$/.test(plain) ? Number(plain) : cell;
    } else item[column] = cell;
  }
  if (Object.keys(attributes).length) item.attributes = attributes;
  return item;
}

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * The items of a file, one at a time, never the whole file in memory: CSV through csv-parse, a JSON
 * array or `{"<kind>": [...]}` through stream-json, NDJSON line by line. `onColumns` is told the CSV's
 * header, and `counter` the bytes read.
 */
export async function* readDirectoryFile(file: string, kind: DirectoryKind, counter: { bytes: number }, onColumns?: (columns: string[]) => void): AsyncGenerator<FileItem> {
  const format = await formatOf(file, kind);
  const input = createReadStream(file);
  input.on('data', (chunk) => (counter.bytes += chunk.length));
  if (format === 'csv') {
    const parser = input.pipe(parseCsv({
      bom: true, skip_empty_lines: true, relax_column_count: true, info: true,
      columns: (header: string[]) => {
        const columns = header.map((h) => h.trim());
        onColumns?.(columns);
        return columns;
      },
    }));
    for await (const { record, info } of parser as AsyncIterable<{ record: Record<string, string>; info: { lines: number } }>) {
      yield { where: { line: info.lines }, value: itemOfCsvRow(kind, record) };
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
        yield isObject(value) ? { where: { line }, value } : { where: { line }, problem: 'not a JSON object' };
      } catch (error) {
        yield { where: { line }, problem: `not valid JSON: ${(error as Error).message}` };
      }
    }
    return;
  }
  const parsed = input.pipe(StreamJson.parser());
  const items: Readable = (format === 'wrapper' ? parsed.pipe(Pick.pick({ filter: kind })) : parsed).pipe(StreamArray.streamArray());
  for await (const entry of items) {
    const { key, value } = entry as { key: number; value: unknown };
    yield isObject(value) ? { where: { item: key + 1 }, value } : { where: { item: key + 1 }, problem: 'not a JSON object' };
  }
}

export interface DirectoryProgress {
  kind: DirectoryKind;
  size: number;
  bytesRead: number;
  startedAt: number;
  sent: number;
  created: number;
  updated: number;
  rejected: number;
  requests: number;
}

export const rejectedFileOf = (file: string) => `${file}.rejected.ndjson`;

/**
 * Sends every company or person of `file` through the client, in requests of at most 1,000 (each an
 * upsert by external_id: running the same file again stores the same). A rejected item is written to
 * `<file>.rejected.ndjson` with its line (or position) in the file, its external_id and the reason. The
 * API lists the first 20 errors of a request: when a request had more, the items after the last one
 * listed are sent again (harmless: upserts) until every rejection is known.
 */
export async function uploadDirectoryFile(client: IngestClient, kind: DirectoryKind, file: string, onProgress: (p: DirectoryProgress) => void,
  options: { onColumns?: (columns: string[]) => void; signal?: AbortSignal } = {}): Promise<DirectoryProgress> {
  const { size } = await stat(file);
  const counter = { bytes: 0 };
  const progress: DirectoryProgress = { kind, size, bytesRead: 0, startedAt: Date.now(), sent: 0, created: 0, updated: 0, rejected: 0, requests: 0 };
  await writeFile(rejectedFileOf(file), '');
  const send = (items: Record<string, unknown>[]): Promise<ImportResult> => {
    progress.requests++;
    return kind === 'companies' ? client.importCompanies(items as never) : client.importPeople(items as never);
  };
  const order = (w: FileItem['where']) => ('line' in w ? w.line : w.item);
  const write = async (lines: Array<{ item: FileItem; code: string; message: string }>) => {
    if (!lines.length) return;
    progress.rejected += lines.length;
    lines.sort((a, b) => order(a.item.where) - order(b.item.where));
    const text = lines.map(({ item, code, message }) => {
      const id = item.value && typeof item.value.external_id === 'string' ? { external_id: item.value.external_id } : {};
      return JSON.stringify({ ...item.where, ...id, code, message });
    }).join('\n');
    await appendFile(rejectedFileOf(file), `${text}\n`);
  };
  async function flush(batch: FileItem[]) {
    if (!batch.length) return;
    const refused: Array<{ item: FileItem; code: string; message: string }> = [];
    const unreadable = batch.filter((b) => !b.value);
    refused.push(...unreadable.map((item) => ({ item, code: 'INVALID_ITEM', message: item.problem ?? 'unreadable' })));
    const readable = batch.filter((b) => b.value);
    // One request each (the client would cut a body over 5 MB in two, and each lists its own first 20 errors).
    for (const chunk of chunks(readable.map((r) => r.value))) {
      let pending = readable.slice(chunk.first, chunk.first + chunk.count);
      let first = true;
      while (pending.length) {
        const answer = await send(pending.map((p) => p.value!));
        if (first) {
          progress.created += answer.createdCount;
          progress.updated += answer.updatedCount;
          first = false;
        }
        const errors: ItemError[] = answer.errors;
        refused.push(...errors.map((e) => ({ item: pending[e.index]!, code: e.code, message: e.message })));
        if (answer.rejectedCount <= errors.length) break;
        // more refusals than listed: the rest are among the items after the last one listed
        pending = pending.slice(errors[errors.length - 1]!.index + 1);
      }
    }
    await write(refused);
    progress.sent += batch.length;
    progress.bytesRead = counter.bytes;
    onProgress(progress);
  }
  let batch: FileItem[] = [];
  for await (const item of readDirectoryFile(file, kind, counter, options.onColumns)) {
    if (options.signal?.aborted) break;
    batch.push(item);
    if (batch.length >= ITEMS_PER_REQUEST) {
      await flush(batch);
      batch = [];
    }
  }
  if (!options.signal?.aborted) await flush(batch);
  progress.bytesRead = counter.bytes;
  return progress;
}

/** One line of progress: a bar by bytes read, then the counts and the rate. */
export function directoryProgressLine(p: DirectoryProgress, width = 24): string {
  const fraction = p.size ? Math.min(1, p.bytesRead / p.size) : 1;
  const filled = Math.round(fraction * width);
  const seconds = Math.max(0.001, (Date.now() - p.startedAt) / 1000);
  const n = (x: number) => x.toLocaleString('en-US');
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round(fraction * 100)}% ${n(p.sent)} sent · ${n(p.created)} created · ` +
    `${n(p.updated)} updated · ${n(p.rejected)} rejected · ${n(Math.round(p.sent / seconds))} ${p.kind}/s`;
}
