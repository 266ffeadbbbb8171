import { pathToFileURL } from 'node:url';
import { cpuMeter, type CpuPerThousand } from './cpu';
import { benchTenant, machine, makeRecords, percentile, round, startBenchService, type BenchTarget, type BenchTenant } from './lib';

export interface IngestFigures {
  api: { recordsPerSecond: number; requests: number; p50Ms: number; p99Ms: number; records: number; seconds: number };
  raw: { recordsPerSecond: number; records: number; seconds: number };
  ratio: number;
  /** CPU time per 1,000 records on each side: what the two sides cost the machine. */
  cpu: { api: CpuPerThousand; raw: CpuPerThousand };
  settings: string;
  /** What a normal customer sees: 1,000-record requests sent at a fixed rate (open loop), not at saturation. */
  fixedRate: { requestsPerSecond: number; requests: number; p50Ms: number; p99Ms: number; maxMs: number };
  /** Per second of the run: records accepted and the median latency of the requests that finished in it. */
  timeline: { second: number; recordsPerSecond: number; p50Ms: number }[];
}

const RECORDS_PER_REQUEST = 1000;

/** Sends 1,000-record requests from `clients` loops for `seconds`; every request must be a 202. */
async function driveApi(service: BenchTarget, t: BenchTenant, clients: number, seconds: number) {
  const latencies: number[] = [];
  const finished: { at: number; ms: number; records: number }[] = [];
  let records = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async (_, c) => {
      while (performance.now() < deadline) {
        const body = JSON.stringify(makeRecords(t, RECORDS_PER_REQUEST));
        const t0 = performance.now();
        const res = await fetch(`${service.url}/api/v1/ingest`, {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': t.keys[c]! }, body,
        });
        const answer = (await res.json()) as { acceptedCount?: number; message?: string };
        const ms = performance.now() - t0;
        if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${answer.message}`);
        latencies.push(ms);
        records += answer.acceptedCount!;
        finished.push({ at: performance.now() - started, ms, records: answer.acceptedCount! });
      }
    }),
  );
  const elapsed = (performance.now() - started) / 1000;
  return { latencies: latencies.sort((a, b) => a - b), records, elapsed, finished };
}

/**
 * Sends one 1,000-record request every 1/rate seconds for `seconds`, whatever the earlier ones are
 * doing (an open loop, as independent senders behave), and measures each request's latency.
 */
async function driveFixedRate(service: BenchTarget, t: BenchTenant, rate: number, seconds: number) {
  const latencies: number[] = [];
  const sends: Promise<void>[] = [];
  const started = performance.now();
  for (let i = 0; i < rate * seconds; i++) {
    const due = started + (i * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const body = JSON.stringify(makeRecords(t, RECORDS_PER_REQUEST));
    sends.push((async () => {
      const t0 = performance.now();
      const res = await fetch(`${service.url}/api/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': t.keys[i % t.keys.length]! }, body });
      await res.arrayBuffer();
      if (res.status !== 202) throw new Error(`ingest answered ${res.status} at a fixed rate`);
      latencies.push(performance.now() - t0);
    })());
  }
  await Promise.all(sends);
  latencies.sort((a, b) => a - b);
  return {
    requestsPerSecond: rate, requests: latencies.length, p50Ms: round(percentile(latencies, 50), 1), p99Ms: round(percentile(latencies, 99), 1),
    maxMs: round(latencies.at(-1) ?? 0, 1),
  };
}

let rawSeq = 0;

/** The same records written by one INSERT … SELECT … FROM jsonb_to_recordset(…) ON CONFLICT DO NOTHING per request. */
async function driveRaw(service: BenchTarget, t: BenchTenant, clients: number, seconds: number) {
  const { pool } = service;
  await pool.query(
    `INSERT INTO batches (id, workspace_id, product_id, source, type, status, accepted_count, rejected_count, total_error_count)
     VALUES ('bat_rawceiling', $1, $2, 'bench', 'conversation', 'LANDED', 0, 0, 0) ON CONFLICT DO NOTHING`,
    [t.workspaceId, t.productId],
  );
  let records = 0;
  const started = performance.now();
  const deadline = started + seconds * 1000;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (performance.now() < deadline) {
        const rows = makeRecords(t, RECORDS_PER_REQUEST).map((r, i) => ({
          id: `rec_raw${rawSeq}_${i}`, position: i, dedup_key: `raw-${rawSeq}-${i}-${Math.random()}`, type: r._type, nature: r._nature,
          project_ids: r._project_ids, event_at: r._event_at, vendor_ids: r._vendor_ids, participants: r._participants, tags: r._tags, data: r.data,
        }));
        rawSeq++;
        const { rowCount } = await pool.query(
          `INSERT INTO records (id, workspace_id, batch_id, position, dedup_key, type, nature, product_id, project_ids, event_at, vendor_ids, participants, tags, data)
           SELECT r.id, $1, 'bat_rawceiling', r.position, r.dedup_key, r.type, r.nature, $2, r.project_ids, r.event_at, r.vendor_ids, r.participants, r.tags, r.data
             FROM jsonb_to_recordset($3::jsonb) AS r(id text, position int, dedup_key text, type text, nature text, project_ids text[],
                  event_at timestamptz, vendor_ids jsonb, participants jsonb, tags text[], data json)
           ON CONFLICT (workspace_id, dedup_key) DO NOTHING`,
          [t.workspaceId, t.productId, JSON.stringify(rows)],
        );
        records += rowCount ?? 0;
      }
    }),
  );
  return { records, elapsed: (performance.now() - started) / 1000 };
}

export async function runIngestBench(options: { seconds?: number; clients?: number; service?: BenchTarget } = {}): Promise<IngestFigures> {
  const seconds = options.seconds ?? Number(process.env.BENCH_SECONDS ?? 20);
  const clients = options.clients ?? Number(process.env.BENCH_CLIENTS ?? 4);
  const service = options.service ?? (await startBenchService({ WORKER_ENABLED: 'false' }));
  try {
    const t = await benchTenant(service, clients);
    await driveApi(service, t, clients, 2); // warm-up: JIT, pools, plans
    // Short alternating rounds, so both sides see the same table size, checkpoints and machine noise.
    const rounds = Math.max(1, Math.round(seconds / 5));
    const api = { latencies: [] as number[], records: 0, elapsed: 0, finished: [] as { at: number; ms: number; records: number }[] };
    const raw = { records: 0, elapsed: 0 };
    const cpu = { api: cpuMeter(service), raw: cpuMeter(service) };
    for (let r = 0; r < rounds; r++) {
      const runApi = async () => {
        const round = await cpu.api.measure(() => driveApi(service, t, clients, seconds / rounds));
        api.finished.push(...round.finished.map((f) => ({ ...f, at: f.at + api.elapsed * 1000 })));
        api.latencies.push(...round.latencies);
        api.records += round.records;
        api.elapsed += round.elapsed;
      };
      const runRaw = async () => {
        const round = await cpu.raw.measure(() => driveRaw(service, t, clients, seconds / rounds));
        raw.records += round.records;
        raw.elapsed += round.elapsed;
      };
      if (r % 2 === 0) {
        await runApi();
        await runRaw();
      } else {
        await runRaw();
        await runApi();
      }
    }
    api.latencies.sort((a, b) => a - b);
    // 10 requests a second from the tenant's keys (the per-key limit is 10/s, so spread over them).
    const fixedRate = await driveFixedRate(service, t, 10, Number(process.env.BENCH_FIXED_SECONDS ?? 20));
    const apiRate = api.records / api.elapsed;
    const rawRate = raw.records / raw.elapsed;
    const timeline = Array.from({ length: Math.ceil(api.elapsed) }, (_, s) => {
      const inSecond = api.finished.filter((f) => f.at >= s * 1000 && f.at < (s + 1) * 1000);
      return {
        second: s + 1,
        recordsPerSecond: inSecond.reduce((n, f) => n + f.records, 0),
        p50Ms: round(percentile(inSecond.map((f) => f.ms).sort((a, b) => a - b), 50), 1),
      };
    });
    return {
      api: {
        recordsPerSecond: round(apiRate), requests: api.latencies.length, p50Ms: round(percentile(api.latencies, 50), 1),
        p99Ms: round(percentile(api.latencies, 99), 1), records: api.records, seconds: round(api.elapsed, 1),
      },
      raw: { recordsPerSecond: round(rawRate), records: raw.records, seconds: round(raw.elapsed, 1) },
      ratio: round(apiRate / rawRate, 2),
      fixedRate,
      cpu: { api: cpu.api.perThousand(api.records), raw: cpu.raw.perThousand(raw.records) },
      settings: `${clients} concurrent clients (one key each), ${RECORDS_PER_REQUEST} records of ~1 KB per request, ${seconds} s per side in ${rounds} alternating rounds, worker off, ${service.embedded ? 'embedded PostgreSQL 18' : 'DATABASE_URL'}`,
      timeline,
    };
  } finally {
    if (!options.service) await service.close();
  }
}

/** `API: service 35 ms + PostgreSQL 72 ms + load generator 13 ms` (parts that could not be measured left out) */
export function cpuLine(c: CpuPerThousand, side: string): string {
  const parts = [
    c.serviceMs === undefined ? undefined : `service ${c.serviceMs} ms`,
    c.postgresMs === undefined ? undefined : `PostgreSQL ${c.postgresMs} ms`,
    `load generator ${c.benchMs} ms`,
  ];
  return `${side}: ${parts.filter(Boolean).join(' + ')}`;
}

export function printIngest(f: IngestFigures) {
  console.log(`machine:  ${machine()}`);
  console.log(`settings: ${f.settings}`);
  console.log(`API:      ${f.api.recordsPerSecond} records/s accepted (${f.api.requests} requests, ${f.api.records} records in ${f.api.seconds} s); latency p50 ${f.api.p50Ms} ms, p99 ${f.api.p99Ms} ms`);
  console.log(`raw:      ${f.raw.recordsPerSecond} records/s (one INSERT … SELECT … FROM jsonb_to_recordset … ON CONFLICT DO NOTHING per 1,000 records)`);
  console.log(`ratio:    ${f.ratio} (API / raw ceiling; target ≥ 0.7)`);
  console.log(`fixed rate: ${f.fixedRate.requestsPerSecond} requests/s of 1,000 records (${f.fixedRate.requests} requests): p50 ${f.fixedRate.p50Ms} ms, p99 ${f.fixedRate.p99Ms} ms, max ${f.fixedRate.maxMs} ms (target p99 < 300 ms)`);
  console.log(`CPU per 1,000 records: ${cpuLine(f.cpu.api, 'API')}; ${cpuLine(f.cpu.raw, 'raw')}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  printIngest(await runIngestBench());
}
