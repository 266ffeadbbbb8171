import { pathToFileURL } from 'node:url';
import { cpuMeter, type CpuPerThousand } from './cpu';
import { benchTenant, machine, makeRecords, percentile, round, startBenchService, type BenchTarget, type BenchTenant } from './lib';

const RECORDS_PER_REQUEST = 1000;

export interface SoakSample {
  /** Seconds since the fixed-rate sending began. */
  second: number;
  /** Records answered 202 so far. */
  accepted: number;
  /** Records turned into sources so far. */
  processed: number;
  /** Records landed in batches not yet COMPLETE (or FAILED), less those of them already processed. */
  backlog: number;
}

export interface SoakFigures {
  /** Records/s the API accepted back to back (2 clients) just before the soak, with the worker running. */
  measuredIngestRecordsPerSecond: number;
  /** Half of that (or SOAK_RATE): the fixed rate offered during the soak. */
  offeredRecordsPerSecond: number;
  sendSeconds: number;
  /** Records/s answered 202 during the sending window. */
  acceptedRecordsPerSecond: number;
  /** Records/s turned into sources during the sending window: the sustained end-to-end rate. */
  processedRecordsPerSecond: number;
  /** processedRecordsPerSecond / measuredIngestRecordsPerSecond (target ≥ 0.5; at most ~0.5, as half is offered). */
  ratio: number;
  /** processedRecordsPerSecond / acceptedRecordsPerSecond: 1 when processing keeps pace with what arrives. */
  keptPace: number;
  backlog: { meanRecords: number; p95Records: number; maxRecords: number; atEndOfSending: number; slopeRecordsPerSecond: number };
  /** From the last request to the last batch COMPLETE; undefined when it did not drain in time. */
  drainSeconds: number | undefined;
  /** Batch latency from its 202 to COMPLETE over the whole soak. */
  batchLatency: { p50Ms: number; p99Ms: number; maxMs: number; batches: number };
  keptUp: boolean;
  cpu: CpuPerThousand;
  settings: string;
  timeline: SoakSample[];
}

async function ingest(service: BenchTarget, t: BenchTenant, key: string): Promise<number> {
  const res = await fetch(`${service.url}/api/v1/ingest`, {
    method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(makeRecords(t, RECORDS_PER_REQUEST)),
  });
  const answer = (await res.json()) as { acceptedCount?: number; message?: string };
  if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${answer.message}`);
  return answer.acceptedCount!;
}

/** Back to back from `clients` loops for `seconds`, as bench:pipeline sends: records/s accepted. */
async function measureIngest(service: BenchTarget, t: BenchTenant, clients: number, seconds: number): Promise<number> {
  let records = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(Array.from({ length: clients }, async (_, c) => {
    while (performance.now() < deadline) records += await ingest(service, t, t.keys[c]!);
  }));
  return records / ((performance.now() - started) / 1000);
}

interface Counts {
  processed: number;
  backlog: number;
  open: number;
}

async function counts(service: BenchTarget, workspaceId: string): Promise<Counts> {
  const { rows } = await service.pool.query<Counts>(
    `SELECT coalesce(sum(processed_count), 0)::int AS processed,
            coalesce(sum(accepted_count - processed_count) FILTER (WHERE status NOT IN ('COMPLETE', 'FAILED')), 0)::int AS backlog,
            count(*) FILTER (WHERE status NOT IN ('COMPLETE', 'FAILED'))::int AS open
       FROM batches WHERE workspace_id = $1`,
    [workspaceId],
  );
  return rows[0]!;
}

async function waitForDrain(service: BenchTarget, workspaceId: string, timeoutSeconds: number): Promise<boolean> {
  const deadline = performance.now() + timeoutSeconds * 1000;
  while (performance.now() < deadline) {
    if ((await counts(service, workspaceId)).open === 0) return true;
    await new Promise((r) => setTimeout(r, 200));
  }
  return false;
}

/** Least-squares slope of y over x. */
function slope(points: [number, number][]): number {
  if (points.length < 2) return 0;
  const n = points.length;
  const mx = points.reduce((s, p) => s + p[0], 0) / n;
  const my = points.reduce((s, p) => s + p[1], 0) / n;
  const num = points.reduce((s, p) => s + (p[0] - mx) * (p[1] - my), 0);
  const den = points.reduce((s, p) => s + (p[0] - mx) ** 2, 0);
  return den === 0 ? 0 : num / den;
}

/**
 * Measures the API's accepted rate briefly, lets that backlog drain, then sends 1,000-record
 * requests at half that rate for `seconds` (an open loop: each on time, whatever the earlier
 * ones are doing), sampling every second the backlog (records landed but not yet processed) and
 * the records processed; then samples on until the backlog is gone.
 */
export async function runSoakBench(options: { seconds?: number; measureSeconds?: number; service?: BenchTarget } = {}): Promise<SoakFigures> {
  const seconds = options.seconds ?? Number(process.env.SOAK_SECONDS ?? 180);
  const measureSeconds = options.measureSeconds ?? Number(process.env.SOAK_MEASURE_SECONDS ?? 10);
  const drainTimeout = Number(process.env.SOAK_DRAIN_TIMEOUT_SECONDS ?? 600);
  const clients = 2;
  const service = options.service ?? (await startBenchService());
  try {
    const warmup = await benchTenant(service, clients);
    await measureIngest(service, warmup, clients, 3); // a cold service compiles and optimises first
    const measured = await measureIngest(service, warmup, clients, measureSeconds);
    if (!(await waitForDrain(service, warmup.workspaceId, drainTimeout))) throw new Error('the backlog of the ingest measurement did not drain');

    const t = await benchTenant(service, clients);
    // SOAK_RATE fixes the offered rate instead (records/s), to compare two builds under the same load.
    const offered = Number(process.env.SOAK_RATE ?? 0) || measured / 2;
    const requestsPerSecond = offered / RECORDS_PER_REQUEST;
    const meter = cpuMeter(service);
    const timeline: SoakSample[] = [];
    let accepted = 0;
    let sending = true;
    let sendEnded = 0;
    const started = performance.now();
    const sampler = (async () => {
      for (let second = 1; ; second++) {
        const due = started + second * 1000;
        await new Promise((r) => setTimeout(r, Math.max(0, due - performance.now())));
        const c = await counts(service, t.workspaceId);
        timeline.push({ second, accepted, processed: c.processed, backlog: c.backlog });
        if (!sending && c.open === 0) return true;
        if (!sending && performance.now() - sendEnded > drainTimeout * 1000) return false;
      }
    })();
    const sends: Promise<void>[] = [];
    await meter.measure(async () => {
      for (let i = 0; i < requestsPerSecond * seconds; i++) {
        const wait = started + (i * 1000) / requestsPerSecond - performance.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        sends.push(ingest(service, t, t.keys[i % clients]!).then((n) => void (accepted += n)));
      }
      await Promise.all(sends);
      sending = false;
      sendEnded = performance.now();
      return sampler;
    });
    const drained = await sampler;
    const sendSeconds = (sendEnded - started) / 1000;
    const inWindow = timeline.filter((s) => s.second <= Math.floor(sendSeconds));
    const last = inWindow.at(-1) ?? timeline[0]!;
    const backlogs = inWindow.map((s) => s.backlog).sort((a, b) => a - b);
    const secondHalf = inWindow.filter((s) => s.second > sendSeconds / 2).map((s): [number, number] => [s.second, s.backlog]);
    const trend = slope(secondHalf);
    const { rows: latency } = await service.pool.query<{ ms: number }>(
      `SELECT extract(epoch FROM completed_at - created_at) * 1000 AS ms FROM batches
        WHERE workspace_id = $1 AND status = 'COMPLETE' ORDER BY ms`,
      [t.workspaceId],
    );
    const ms = latency.map((r) => Number(r.ms));
    const processedRate = last.processed / last.second;
    return {
      measuredIngestRecordsPerSecond: round(measured),
      offeredRecordsPerSecond: round(offered),
      sendSeconds: round(sendSeconds, 1),
      acceptedRecordsPerSecond: round(accepted / sendSeconds),
      processedRecordsPerSecond: round(processedRate),
      ratio: round(processedRate / measured, 2),
      keptPace: round(processedRate / (accepted / sendSeconds), 2),
      backlog: {
        meanRecords: round(backlogs.reduce((s, b) => s + b, 0) / Math.max(1, backlogs.length)),
        p95Records: percentile(backlogs, 95),
        maxRecords: backlogs.at(-1) ?? 0,
        atEndOfSending: last.backlog,
        slopeRecordsPerSecond: round(trend, 1),
      },
      drainSeconds: drained ? round((timeline.at(-1)!.second * 1000 - (sendEnded - started)) / 1000, 1) : undefined,
      batchLatency: { p50Ms: round(percentile(ms, 50)), p99Ms: round(percentile(ms, 99)), maxMs: round(ms.at(-1) ?? 0), batches: ms.length },
      // Kept up: processed ≥ 97 % of what was accepted, at most 5 s of arrivals waiting when sending ended, no growth over the second half.
      keptUp: drained && processedRate >= 0.97 * (accepted / sendSeconds) && last.backlog <= 5 * offered && trend < 0.02 * offered,
      cpu: meter.perThousand(accepted),
      settings: `ingest measured for ${measureSeconds} s (after 3 s of warm-up) from ${clients} clients back to back, then ${seconds} s at ${process.env.SOAK_RATE ? `a fixed ${process.env.SOAK_RATE} records/s` : 'half that rate'} in 1,000-record requests of ~1 KB records (open loop), worker inside the service process (WORKER_CONCURRENCY=${process.env.WORKER_CONCURRENCY ?? 4}), ${service.embedded ? 'embedded PostgreSQL 18' : 'DATABASE_URL'}`,
      timeline,
    };
  } finally {
    if (!options.service) await service.close();
  }
}

export function printSoak(f: SoakFigures) {
  console.log(`machine:  ${machine()}`);
  console.log(`settings: ${f.settings}`);
  console.log(`ingest measured: ${f.measuredIngestRecordsPerSecond} records/s; offered for ${f.sendSeconds} s: ${f.offeredRecordsPerSecond} records/s (accepted ${f.acceptedRecordsPerSecond}/s)`);
  console.log(`processed:  ${f.processedRecordsPerSecond} records/s while sending; ratio processed / measured ingest ${f.ratio} (target ≥ 0.5), processed / accepted ${f.keptPace}`);
  console.log(`backlog:    mean ${f.backlog.meanRecords}, p95 ${f.backlog.p95Records}, max ${f.backlog.maxRecords} records; ${f.backlog.atEndOfSending} when sending ended; trend over the second half ${f.backlog.slopeRecordsPerSecond} records/s`);
  console.log(`drained:    ${f.drainSeconds === undefined ? 'NOT within the timeout' : `${f.drainSeconds} s after the last request`}; batch 202 → COMPLETE p50 ${f.batchLatency.p50Ms} ms, p99 ${f.batchLatency.p99Ms} ms, max ${f.batchLatency.maxMs} ms (${f.batchLatency.batches} batches)`);
  console.log(`CPU per 1,000 records: service ${f.cpu.serviceMs ?? '?'} ms, PostgreSQL ${f.cpu.postgresMs ?? '?'} ms, load generator ${f.cpu.benchMs} ms`);
  console.log(`kept up:    ${f.keptUp ? 'yes' : 'NO'}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  printSoak(await runSoakBench());
}
