/**
 * What checking quotes adds to add_signals (issue 48): 100 signals, each with two quotes (one said, one
 * with a word changed), verified against a 500-segment source of two speakers (CLINC150 test texts from
 * ../shared/data, three to a turn): the source read into words once, then every quote looked up, as
 * add_signals does after reading the source's segments. Milliseconds per call, p50 and p99, after 30
 * uncounted warm-up calls: wall clock, and this process's CPU time (steadier on a shared machine).
 *
 *   npm run bench:quotes      (BENCH_QUOTES_RUNS=300, BENCH_QUOTES_SEGMENTS=500, BENCH_QUOTES_SIGNALS=100)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { checkQuotes, sourceWords, type QuoteSegment } from '@loupe/evidence';
import { readLabelledCsv } from '../eval/metrics';
import { machine, percentile, round } from './lib';

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

export async function runQuotesBench(): Promise<QuotesFigures> {
  const runs = Number(process.env.BENCH_QUOTES_RUNS ?? 300);
  const segmentCount = Number(process.env.BENCH_QUOTES_SEGMENTS ?? 500);
  const signalCount = Number(process.env.BENCH_QUOTES_SIGNALS ?? 100);
  const texts = readLabelledCsv(await readFile(path.resolve(import.meta.dirname, '../../../shared/data/clinc150-test.csv'), 'utf8')).map((r) => r.text);
  const segments: QuoteSegment[] = Array.from({ length: segmentCount }, (_, i) => ({
    position: i, speaker: i % 2 ? 'Ben Cole' : 'Ana Ruiz <ana@acme.com>',
    text: [0, 1, 2].map((k) => `${texts[(i * 3 + k) % texts.length]}.`).join(' '),
  }));
  const signals = Array.from({ length: signalCount }, (_, i) => {
    const said = texts[((i * 5) % segmentCount) * 3]!;
    const changed = texts[((i * 7 + 1) % segmentCount) * 3 + 1]!.replace(/\b(\w+)$/, '$1s');
    return { content: `The customer: “${said}” and later "${changed}".`, speakerAliases: ['Ana Ruiz'] };
  });
  const times: number[] = [];
  const cpu: number[] = [];
  let verified = 0;
  const WARM_UP = 30; // a running server has compiled the matcher long before: the first calls are not counted
  for (let run = -WARM_UP; run < runs; run++) {
    const started = performance.now();
    const cpuStarted = process.cpuUsage();
    const src = sourceWords(segments);
    const checks = signals.map((s) => checkQuotes(src, s));
    if (run >= 0) {
      times.push(performance.now() - started);
      const used = process.cpuUsage(cpuStarted);
      cpu.push((used.user + used.system) / 1000);
    }
    if (run === 0) verified = checks.flat().filter((c) => c.verified).length;
  }
  times.sort((a, b) => a - b);
  cpu.sort((a, b) => a - b);
  const quotes = signals.length * 2;
  return { verified, segments: segmentCount, signals: signalCount, quotes, runs, p50Ms: round(percentile(times, 50), 2), p99Ms: round(percentile(times, 99), 2),
    cpuP50Ms: round(percentile(cpu, 50), 2), cpuP99Ms: round(percentile(cpu, 99), 2), machine: machine() };
}

export function quotesMarkdown(f: QuotesFigures): string {
  return `| Quote verification: ${f.signals} signals (${f.quotes} quotes, ${f.verified} found) against a ${f.segments}-segment source, per add_signals call | p50 ${f.p50Ms} ms | p99 ${f.p99Ms} ms | CPU p50 ${f.cpuP50Ms} ms | CPU p99 ${f.cpuP99Ms} ms |`;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const f = await runQuotesBench();
  console.log(`bench:quotes (${f.runs} runs, ${f.machine})\n${quotesMarkdown(f)}`);
}
