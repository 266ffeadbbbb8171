import { pathToFileURL } from 'node:url';
import { benchTenant, machine, makeRecords, round, startBenchService, type BenchTarget } from './lib';

export interface PipelineFigures {
  records: number;
  batches: number;
  ingestRecordsPerSecond: number;
  endToEndRecordsPerSecond: number;
  /** End to end / ingest (target ≥ 0.5). */
  ratio: number;
  /** From the first request sent to the last batch COMPLETE. */
  seconds: number;
  settings: string;
  /** At the end of each second of the run: records accepted by the API and processed by the worker so far. */
  timeline: { second: number; accepted: number; processed: number }[];
}

/** Submits `batches` × 1,000 records, then waits for every batch to reach COMPLETE. */
export async function runPipelineBench(options: { batches?: number; clients?: number; service?: BenchTarget } = {}): Promise<PipelineFigures> {
  const batches = options.batches ?? Number(process.env.BENCH_BATCHES ?? 30);
  const clients = options.clients ?? 2;
  const service = options.service ?? (await startBenchService());
  try {
    const t = await benchTenant(service, clients);
    const { pool } = service;
    const started = performance.now();
    const ids: string[] = [];
    const samples: { at: number; accepted: number; processed: number }[] = [];
    let accepted = 0;
    let submitting = true;
    const sampler = (async () => {
      while (submitting || samples.length === 0 || samples[samples.length - 1]!.processed < accepted) {
        const { rows } = await pool.query<{ n: number }>(
          'SELECT coalesce(sum(processed_count), 0)::int AS n FROM batches WHERE workspace_id = $1', [t.workspaceId],
        );
        samples.push({ at: performance.now() - started, accepted, processed: rows[0]!.n });
        await new Promise((r) => setTimeout(r, 250));
      }
    })();
    let next = 0;
    await Promise.all(
      Array.from({ length: clients }, async (_, c) => {
        while (next < batches) {
          next++;
          const res = await fetch(`${service.url}/api/v1/ingest`, {
            method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': t.keys[c]! }, body: JSON.stringify(makeRecords(t, 1000)),
          });
          const body = (await res.json()) as { batchId: string; acceptedCount: number; message?: string };
          if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${body.message}`);
          ids.push(body.batchId);
          accepted += body.acceptedCount;
        }
      }),
    );
    const ingestSeconds = (performance.now() - started) / 1000;
    submitting = false;
    for (;;) {
      const { rows } = await pool.query<{ done: number; failed: number }>(
        `SELECT count(*) FILTER (WHERE status = 'COMPLETE')::int AS done, count(*) FILTER (WHERE status = 'FAILED')::int AS failed
           FROM batches WHERE id = ANY($1)`, [ids],
      );
      if (rows[0]!.failed) throw new Error(`${rows[0]!.failed} batches FAILED`);
      if (rows[0]!.done === ids.length) break;
      await new Promise((r) => setTimeout(r, 100));
    }
    const seconds = (performance.now() - started) / 1000;
    await sampler;
    // Cumulative counts at the end of each second of the run.
    const timeline = Array.from({ length: Math.ceil(seconds) }, (_, i) => {
      const last = [...samples].reverse().find((x) => x.at <= (i + 1) * 1000) ?? samples[0]!;
      return { second: i + 1, accepted: last.accepted, processed: last.processed };
    });
    return {
      records: accepted,
      batches: ids.length,
      ingestRecordsPerSecond: round(accepted / ingestSeconds),
      endToEndRecordsPerSecond: round(accepted / seconds),
      ratio: round(ingestSeconds / seconds, 2),
      seconds: round(seconds, 1),
      settings: `${batches} batches of 1,000 records of ~1 KB from ${clients} clients, worker inside the service process (WORKER_CONCURRENCY=${process.env.WORKER_CONCURRENCY ?? 4}), ${service.embedded ? 'embedded PostgreSQL 18' : 'DATABASE_URL'}`,
      timeline,
    };
  } finally {
    if (!options.service) await service.close();
  }
}

export function printPipeline(f: PipelineFigures) {
  console.log(`machine:  ${machine()}`);
  console.log(`settings: ${f.settings}`);
  console.log(`ingest:     ${f.ingestRecordsPerSecond} records/s accepted (202s for ${f.records} records)`);
  console.log(`end to end: ${f.endToEndRecordsPerSecond} records/s from the first request to the last batch COMPLETE (${f.seconds} s)`);
  console.log(`ratio end to end / ingest: ${f.ratio} (target ≥ 0.5)`);
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  printPipeline(await runPipelineBench());
}
