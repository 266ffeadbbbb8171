import { createReadStream } from 'node:fs';
import { appendFile, readFile, rename, stat, writeFile } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { chunksOf, type IngestClient } from '@loupe/ingest-client';
import StreamJson from 'stream-json';
import Pick from 'stream-json/filters/Pick.js';
import StreamArray from 'stream-json/streamers/StreamArray.js';

/** Where an upload stands, kept beside the file so an interrupted upload resumes where it stopped. */
export interface UploadState {
  file: string;
  size: number;
  /** Records of the file whose requests were answered (a prefix of the file, in order). */
  done: number;
  accepted: number;
  rejected: number;
  duplicates: number;
  batches: number;
}

export interface UploadProgress extends UploadState {
  bytesRead: number;
  startedAt: number;
  resumedFrom: number;
}

type Format = 'ndjson' | 'array' | 'wrapper';

/** NDJSON, a JSON array, or `{ "records": [...] }`, from the first characters of the file. */
async function formatOf(path: string): Promise<Format> {
  const stream = createReadStream(path, { start: 0, end: 4095, encoding: 'utf8' });
  let head = '';
  for await (const text of stream) head += text as string;
  const body = head.trimStart();
  if (body.startsWith('[')) return 'array';
  if (/^\{\s*"records"\s*:\s*\[/.test(body)) return 'wrapper';
  return 'ndjson';
}

/**
 * The records of a file, one at a time and never the whole file in memory (stream-json for the JSON
 * forms, line by line for NDJSON). A line that is not JSON is passed on as `null`, keeping its place:
 * the API then rejects that record by its index.
 */
async function* readRecords(path: string, counter: { bytes: number }): AsyncGenerator<unknown> {
  const format = await formatOf(path);
  const input = createReadStream(path);
  input.on('data', (chunk) => (counter.bytes += chunk.length));
  if (format !== 'ndjson') {
    const parsed = input.pipe(StreamJson.parser());
    const items: Readable = (format === 'wrapper' ? parsed.pipe(Pick.pick({ filter: 'records' })) : parsed).pipe(StreamArray.streamArray());
    for await (const item of items) yield (item as { value: unknown }).value;
    return;
  }
  for await (const line of createInterface({ input, crlfDelay: Infinity })) {
    if (!line.trim()) continue;
    try {
      yield JSON.parse(line);
    } catch {
      yield null;
    }
  }
}

export const stateFileOf = (file: string) => `${file}.loupe-upload.json`;
export const rejectedFileOf = (file: string) => `${file}.rejected.ndjson`;

async function loadState(file: string, size: number): Promise<UploadState> {
  try {
    const state = JSON.parse(await readFile(stateFileOf(file), 'utf8')) as UploadState;
    if (state.size === size) return state;
  } catch {
    // no state yet, or unreadable: start from the beginning (the Idempotency-Keys make a resend harmless)
  }
  return { file, size, done: 0, accepted: 0, rejected: 0, duplicates: 0, batches: 0 };
}

async function saveState(state: UploadState) {
  const path = stateFileOf(state.file);
  await writeFile(`${path}.tmp`, JSON.stringify(state));
  await rename(`${path}.tmp`, path);
}

/**
 * Uploads every record of `file` through the client, request by request (each at most 1,000 records
 * and 5 MB, with an Idempotency-Key from its body). After each answered request the position is saved
 * beside the file, so running the same command again after an interrupt resumes there; requests are
 * cut at the same places, and a request sent twice is replayed by its key, so no record is sent twice.
 * Rejected records go to `<file>.rejected.ndjson` with their index in the file and the reason.
 */
export async function uploadFile(client: IngestClient, file: string, onProgress: (p: UploadProgress) => void, signal?: AbortSignal): Promise<UploadProgress> {
  const { size } = await stat(file);
  const state = await loadState(file, size);
  const counter = { bytes: 0 };
  const progress: UploadProgress = { ...state, bytesRead: 0, startedAt: Date.now(), resumedFrom: state.done };
  let index = 0;
  async function* records() {
    for await (const record of readRecords(file, counter)) if (index++ >= state.done) yield record;
  }
  for await (const chunk of chunksOf(records())) {
    if (signal?.aborted) break;
    const answer = await client.submitChunk(chunk);
    const first = state.done;
    state.done += chunk.count;
    state.accepted += answer.acceptedCount;
    state.rejected += answer.rejectedCount;
    state.duplicates += answer.duplicateCount ?? 0;
    state.batches += 1;
    if (answer.errors?.length) {
      const lines = answer.errors.map((e) => JSON.stringify({ index: first + e.index, code: e.code, message: e.message })).join('\n');
      await appendFile(rejectedFileOf(file), `${lines}\n`);
    }
    await saveState(state);
    Object.assign(progress, state, { bytesRead: counter.bytes });
    onProgress(progress);
  }
  return progress;
}

/** One line of progress: a bar, counts, rate and ETA (bytes read drive the bar, so the total need not be known). */
export function progressLine(p: UploadProgress, width = 24): string {
  const fraction = p.size ? Math.min(1, p.bytesRead / p.size) : 1;
  const filled = Math.round(fraction * width);
  const seconds = Math.max(0.001, (Date.now() - p.startedAt) / 1000);
  const rate = (p.done - p.resumedFrom) / seconds;
  const eta = fraction > 0 && fraction < 1 ? Math.round(seconds / fraction - seconds) : 0;
  const n = (x: number) => x.toLocaleString('en-US');
  return `[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.round(fraction * 100)}% ` +
    `${n(p.done)} sent · ${n(p.accepted)} accepted · ${n(p.rejected)} rejected · ${n(p.duplicates)} duplicates · ` +
    `${n(Math.round(rate))} records/s · ETA ${eta}s`;
}
