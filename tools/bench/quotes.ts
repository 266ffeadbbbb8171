/**
 * What checking quotes adds to add_signals (issue 48): 100 signals, each with two quotes (one said, one
 * with a word changed), verified against a 500-segment source of two speakers (CLINC150 test texts from
 * ../shared/data, three to a turn): the source read into words once, then every quote looked up, as
 * add_signals does after reading the source's segments. Milliseconds per call, p50 and p99, after 30
 * uncounted warm-up calls: wall clock, and this process's CPU time (steadier on a shared machine).
 *
 * Then the same through addSignals on `npm start`'s database (BENCH_QUOTES_CALLS calls of 100 new signals
 * each, in turn with their quotes in quotation marks and the same words without them, so only the check
 * differs): what the check adds to the whole write, its read of the source's segments included.
 *
 *   npm run bench:quotes      (BENCH_QUOTES_RUNS=300, BENCH_QUOTES_SEGMENTS=500, BENCH_QUOTES_SIGNALS=100, BENCH_QUOTES_CALLS=60; 0 for no database part)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { newId } from '@loupe/db';
import { addSignals, checkQuotes, ensureSignalTypes, quotesOf, sourceWords, type QuoteCheck, type QuoteSegment } from '@loupe/evidence';
import { systemClock } from '@loupe/http';
import { readLabelledCsv } from '../eval/metrics';
import { benchTenant, machine, percentile, round, startBenchService } from './lib';

export interface QuotesFigures {
  segments: number;
  signals: number;
  quotes: number;
  /** How many of them were found (the said ones, not the changed ones). */
  verified: number;
  runs: number;
  p50Ms: number;
  p99Ms: number;
  /** This process's CPU time per call: what the call costs, without the waits a shared machine adds to the wall clock. */
  cpuP50Ms: number;
  cpuP99Ms: number;
  machine: string;
}

const segmentCount = Number(process.env.BENCH_QUOTES_SEGMENTS ?? 500);
const signalCount = Number(process.env.BENCH_QUOTES_SIGNALS ?? 100);

async function fixture() {
  const texts = readLabelledCsv(await readFile(path.resolve(import.meta.dirname, '../../../shared/data/clinc150-test.csv'), 'utf8')).map((r) => r.text);
  const segments: QuoteSegment[] = Array.from({ length: segmentCount }, (_, i) => ({
    position: i, speaker: i % 2 ? 'Ben Cole' : 'Ana Ruiz <ana@acme.com>',
    text: [0, 1, 2].map((k) => `${texts[(i * 3 + k) % texts.length]}.`).join(' '),
  }));
  /** A signal's content: one sentence said, one with a word changed; quoted or not. */
  const content = (i: number, quoted: boolean, salt = '') => {
    const said = texts[((i * 5) % segmentCount) * 3]!;
    const changed = texts[((i * 7 + 1) % segmentCount) * 3 + 1]!.replace(/\b(\w+)$/, '$1s');
    return quoted ? `The customer${salt}: “${said}” and later "${changed}".` : `The customer${salt}: ${said} and later ${changed}.`;
  };
  return { segments, content };
}

export async function runQuotesBench(): Promise<QuotesFigures> {
  const runs = Number(process.env.BENCH_QUOTES_RUNS ?? 300);
  const { segments, content } = await fixture();
  // New contents every call, as add_signals gets them (nothing of one call's quotes is kept for the next).
  const signalsOf = (run: number) => Array.from({ length: signalCount }, (_, i) => ({ content: content(i, true, ` ${run}`), speakerAliases: ['Ana Ruiz'] }));
  const times: number[] = [];
  const cpu: number[] = [];
  let verified = 0;
  let checks: QuoteCheck[][] = [];
  const WARM_UP = 30; // a running server has compiled the matcher long before: the first calls are not counted
  for (let run = -WARM_UP; run < runs; run++) {
    const signals = signalsOf(run);
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    // As addSignals: which signals quote (to read the source only then), the source's words, each signal checked.
    const quoted = signals.map((s) => quotesOf(s.content).length > 0);
    if (quoted.some(Boolean)) {
      const src = sourceWords(segments);
      checks = signals.map((s, i) => (quoted[i] ? checkQuotes(src, s) : []));
    }
    if (run >= 0) {
      times.push(performance.now() - started);
      const used = process.cpuUsage(cpuStarted);
      cpu.push((used.user + used.system) / 1000);
    }
    if (run === 0) verified = checks.flat().filter((c) => c.verified).length;
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const quotes = signalCount * 2;
  return { verified, segments: segmentCount, signals: signalCount, quotes, runs, p50Ms: round(percentile(times, 50), 2), p99Ms: round(percentile(times, 99), 2),
    cpuP50Ms: round(percentile(cpu, 50), 2), cpuP99Ms: round(percentile(cpu, 99), 2), machine: machine() };
}

export interface AddSignalsQuotesFigures {
  calls: number;
  /** addSignals of 100 signals with quotes, and the same without quotation marks: ms per call. */
  quoted: { p50Ms: number; p99Ms: number };
  unquoted: { p50Ms: number; p99Ms: number };
}

/** addSignals on `npm start`'s database, quoted and unquoted calls in turn (new contents each call, so nothing is reused). */
export async function runAddSignalsQuotesBench(): Promise<AddSignalsQuotesFigures> {
  const calls = Number(process.env.BENCH_QUOTES_CALLS ?? 60);
  const { segments, content } = await fixture();
  const service = await startBenchService();
  try {
    const tenant = await benchTenant(service, 0);
    await ensureSignalTypes(service.pool, tenant.workspaceId);
    const src = newId('src');
    await service.pool.query(
      `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status, segment_count) VALUES ($1, $2, $3, '{}', 'call', 'evidence', 'Call', now(), 'ready', $4)`,
      [src, tenant.workspaceId, tenant.productId, segments.length],
    );
    await service.pool.query(
      `INSERT INTO source_segments (source_id, position, kind, speaker, text) SELECT $1, p, 'turn', s, t FROM unnest($2::int[], $3::text[], $4::text[]) AS x(p, s, t)`,
      [src, segments.map((g) => g.position), segments.map((g) => g.speaker), segments.map((g) => g.text)],
    );
    const times = { quoted: [] as number[], unquoted: [] as number[] };
    for (let call = -4; call < calls; call++) {
      for (const quoted of call % 2 ? [true, false] : [false, true]) {
        const items = Array.from({ length: signalCount }, (_, i) => ({ type: 'feedback', title: `Signal ${i}`, content: content(i, quoted, ` ${call}:${i}`), whoSaidIt: 'Ana Ruiz' }));
        const started = performance.now();
        await addSignals(service.pool, { workspaceId: tenant.workspaceId, sourceId: src, items }, systemClock);
        if (call >= 0) times[quoted ? 'quoted' : 'unquoted'].push(performance.now() - started);
      }
    }
    const figures = (list: number[]) => {
      list.sort((a, b) => a - b);
      return { p50Ms: round(percentile(list, 50), 1), p99Ms: round(percentile(list, 99), 1) };
    };
    return { calls, quoted: figures(times.quoted), unquoted: figures(times.unquoted) };
  } finally {
    await service.close();
  }
}

export function quotesMarkdown(f: QuotesFigures): string {
  return `| Quote verification: ${f.signals} signals (${f.quotes} quotes, ${f.verified} found) against a ${f.segments}-segment source, per add_signals call | p50 ${f.p50Ms} ms | p99 ${f.p99Ms} ms | CPU p50 ${f.cpuP50Ms} ms | CPU p99 ${f.cpuP99Ms} ms |`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const f = await runQuotesBench();
  console.log(`bench:quotes (${f.runs} runs, ${f.machine})\n${quotesMarkdown(f)}`);
  if (Number(process.env.BENCH_QUOTES_CALLS ?? 60) > 0) {
    const a = await runAddSignalsQuotesBench();
    console.log(`addSignals of ${signalCount} signals, ${a.calls} calls each: quoted p50 ${a.quoted.p50Ms} ms, p99 ${a.quoted.p99Ms} ms; `
      + `the same words unquoted p50 ${a.unquoted.p50Ms} ms, p99 ${a.unquoted.p99Ms} ms; the check adds ${round(a.quoted.p50Ms - a.unquoted.p50Ms, 1)} ms at p50`);
  }
}
