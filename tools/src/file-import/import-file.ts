import { chunks, type IngestClient } from '@loupe/ingest-client';
import { mapFileRow, readRows, RECORDS_PER_REQUEST, type FileRow, type Mapping, type RecordDefaults } from '@loupe/file-import';

export interface ImportProgress {
  /** Rows read from the file. */
  read: number;
  /** Records the API stored (duplicates of records sent before included). */
  sent: number;
  /** Of those, records the API already held (same `_type`, `_vendor_ids` and `_event_at`). */
  duplicates: number;
  /** Rows refused, here or by the API. */
  refused: number;
  requests: number;
  bytesRead: number;
  /** True when the signal stopped it before the end of the file. */
  stopped: boolean;
}

export interface Refusal {
  where: FileRow['where'];
  problems: string[];
}

export interface ImportDeps {
  client: Pick<IngestClient, 'submitChunk'>;
  /** Told after each request and each refused row; the caller decides how often to show it. */
  onProgress?: (p: ImportProgress) => void;
  onRefused?: (r: Refusal) => void;
  /** Stops reading after the request in flight; the rows not yet sent are left for a re-run (which stores nothing twice). */
  signal?: AbortSignal;
}

/**
 * Streams `file` to the API: each row mapped and checked against the record schema (a row that fails is
 * refused with its line, the rest is sent), the records sent in requests of at most 1,000 records and 5 MB
 * of one `_type` each (an API rule). Each request carries an Idempotency-Key derived from its body, so the
 * same file with the same mapping always sends the same bodies under the same keys; and a record sent again
 * in another body is a duplicate by its `_type`, `_vendor_ids` and `_event_at`, stored once.
 */
export async function importFile(file: string, mapping: Mapping, defaults: RecordDefaults, deps: ImportDeps): Promise<ImportProgress> {
  const counter = { bytes: 0 };
  const progress: ImportProgress = { read: 0, sent: 0, duplicates: 0, refused: 0, requests: 0, bytesRead: 0, stopped: false };
  const refuse = (r: Refusal) => {
    progress.refused++;
    deps.onRefused?.(r);
  };
  let pending: Array<{ where: FileRow['where']; record: Record<string, unknown> }> = [];
  async function flush() {
    if (!pending.length) return;
    const batch = pending;
    pending = [];
    for (const chunk of chunks(batch.map((p) => p.record))) {
      const answer = await deps.client.submitChunk(chunk);
      progress.requests++;
      progress.sent += answer.acceptedCount;
      progress.duplicates += answer.duplicateCount ?? 0;
      const errors = answer.errors ?? [];
      const byIndex = new Map<number, string[]>();
      for (const e of errors) byIndex.set(e.index, [...(byIndex.get(e.index) ?? []), `${e.code}: ${e.message}`]);
      for (const [index, problems] of byIndex) refuse({ where: batch[chunk.first + index]!.where, problems });
      // The API lists the first 20 errors of a request; the records past them are counted, not named.
      const unnamed = answer.rejectedCount - byIndex.size;
      if (unnamed > 0) {
        progress.refused += unnamed;
        deps.onRefused?.({ where: batch[chunk.first + chunk.count - 1]!.where, problems: [`${unnamed} more records of this request refused by the API (it names the first 20 errors of a request)`] });
      }
    }
    progress.bytesRead = counter.bytes;
    deps.onProgress?.(progress);
  }
  for await (const row of readRows(file, counter)) {
    if (deps.signal?.aborted) {
      progress.stopped = true;
      return progress;
    }
    progress.read++;
    const mapped = mapFileRow(mapping, row, defaults);
    if (!mapped.record || mapped.problems.length) {
      refuse({ where: mapped.where, problems: mapped.problems });
      continue;
    }
    if (pending.length && (pending.length >= RECORDS_PER_REQUEST || pending[0]!.record._type !== mapped.record._type)) await flush();
    pending.push({ where: mapped.where, record: mapped.record });
  }
  await flush();
  progress.bytesRead = counter.bytes;
  return progress;
}

/** One line of progress: rows read, records sent and duplicates among them, rows refused. */
export function importProgressLine(p: ImportProgress): string {
  const n = (x: number) => x.toLocaleString('en-US');
  return `${n(p.read)} rows read · ${n(p.sent)} sent (${n(p.duplicates)} already stored) · ${n(p.refused)} refused`;
}
