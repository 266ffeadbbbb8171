/**
 * What each app takes, run apart (issue 47's sizing): the four HTTP apps and the worker as separate
 * processes from their own main.ts, on one embedded PostgreSQL, behind the path proxy. Memory (resident,
 * peak of 4 samples a second) and CPU (cores busy on average) per process and for PostgreSQL, in phases:
 * at rest; while BENCH_SIZING_RECORDS records (default 20,000) are ingested from 2 clients and the worker
 * processes and embeds them; while find_sources is called back to back (BENCH_SIZING_SEARCHES, default
 * 500, over MCP); at rest again after. docs/self-hosting/requirements.md quotes it.
 *
 *   npm run bench:sizing
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { createApiKey } from '@loupe/api-keys';
import { grantCredits } from '@loupe/credits';
import { createPool, createPrismaClient, ensureDatabase, freePort, startEmbeddedPostgres, withDatabase } from '@loupe/db';
import { APPS, startApp, startPathProxy, type HttpApp, type RunningApp } from '@loupe/tools/deploy';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { machine, makeRecords, postOnce, round, type BenchTenant } from './lib';

const TICKS = 100; // clock ticks per second of /proc/<pid>/stat (Linux's USER_HZ)
const PAGE = 4096;

/**
 * A process's CPU time so far and its memory: the proportional set size (shared pages divided among the
 * processes sharing them, so PostgreSQL's shared buffers count once over its processes), else the resident size.
 */
async function usage(pid: number): Promise<{ cpuSeconds: number; rssBytes: number } | undefined> {
  try {
    const stat = (await readFile(`/proc/${pid}/stat`, 'utf8')).split(') ')[1]!.split(' ');
    // Fields after the command: state is [0], utime [11], stime [12], rss (pages) [21].
    const pss = /^Pss:\s+(\d+) kB/m.exec(await readFile(`/proc/${pid}/smaps_rollup`, 'utf8').catch(() => ''));
    return { cpuSeconds: (Number(stat[11]) + Number(stat[12])) / TICKS, rssBytes: pss ? Number(pss[1]) * 1024 : Number(stat[21]) * PAGE };
  } catch {
    return undefined;
  }
}

/** The PostgreSQL processes of the cluster in `dataDir` (the postmaster and its children). */
async function postgresPids(postmaster: number): Promise<number[]> {
  const pids = [postmaster];
  for (const entry of await readdir('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const stat = await readFile(`/proc/${entry}/stat`, 'utf8').catch(() => '');
    if (Number(stat.split(') ')[1]?.split(' ')[1]) === postmaster) pids.push(Number(entry));
  }
  return pids;
}

interface Phase {
  name: string;
  seconds: number;
  /** Per process: cores busy on average, and peak resident memory. */
  byApp: Map<string, { cores: number; peakRss: number }>;
}

/**
 * Runs `work` while sampling every process 4 times a second. CPU is counted per process id from its
 * first to its last sample in the phase, so a PostgreSQL backend that comes or goes meanwhile counts
 * for the time it was seen.
 */
async function measure(name: string, processes: () => Promise<Map<string, number[]>>, work: () => Promise<void>): Promise<Phase> {
  const first = new Map<number, number>();
  const last = new Map<number, number>();
  const appOf = new Map<number, string>();
  const peak = new Map<string, number>();
  const sample = async () => {
    for (const [app, pids] of await processes()) {
      let rss = 0;
      for (const pid of pids) {
        const u = await usage(pid);
        if (!u) continue;
        appOf.set(pid, app);
        if (!first.has(pid)) first.set(pid, u.cpuSeconds);
        last.set(pid, u.cpuSeconds);
        rss += u.rssBytes;
      }
      peak.set(app, Math.max(peak.get(app) ?? 0, rss));
    }
  };
  await sample();
  const started = performance.now();
  let running = true;
  const sampler = (async () => {
    while (running) {
      await new Promise((r) => setTimeout(r, 250));
      await sample();
    }
  })();
  await work();
  running = false;
  await sampler;
  await sample();
  const seconds = (performance.now() - started) / 1000;
  const cpu = new Map<string, number>();
  for (const [pid, app] of appOf) cpu.set(app, (cpu.get(app) ?? 0) + last.get(pid)! - first.get(pid)!);
  const byApp = new Map([...peak].map(([app, bytes]) => [app, { cores: (cpu.get(app) ?? 0) / seconds, peakRss: bytes }]));
  return { name, seconds, byApp };
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

export async function runSizingBench() {
  const records = Number(process.env.BENCH_SIZING_RECORDS ?? 20_000);
  const searches = Number(process.env.BENCH_SIZING_SEARCHES ?? 500);
  const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-sizing-'));
  const server = await startEmbeddedPostgres({ dataDir: path.join(dir, 'postgres'), port: await freePort() });
  const apps: RunningApp[] = [];
  let proxy: Awaited<ReturnType<typeof startPathProxy>> | undefined;
  const pool = await (async () => {
    await ensureDatabase(server.adminUrl, 'loupe');
    return createPool(withDatabase(server.adminUrl, 'loupe'), 4);
  })();
  try {
    const url = withDatabase(server.adminUrl, 'loupe');
    const ports = Object.fromEntries(await Promise.all(APPS.map(async (a) => [a, await freePort()] as const))) as Record<HttpApp, number>;
    proxy = await startPathProxy(ports);
    const common = { DATABASE_URL: url, DATA_DIR: dir, PUBLIC_BASE_URL: proxy.url, LOG_LEVEL: 'warn', PER_IP_LIMIT_PER_MINUTE: '100000000' };
    apps.push(await startApp('auth-server', { ...common, PORT: String(ports['auth-server']) }, () => {}));
    for (const app of ['ingest-api', 'mcp-server', 'web'] as const) apps.push(await startApp(app, { ...common, PORT: String(ports[app]) }, () => {}));
    apps.push(await startApp('worker', common, () => {}));
    const db = createPrismaClient(pool);
    const ws = await createWorkspace(db, { name: 'Sizing' });
    const product = await createProduct(db, ws.id, { name: 'Sizing' });
    const project = await createProject(db, ws.id, product.id, { name: 'Sizing' });
    await grantCredits(pool, ws.id, 100_000_000, 'sizing', 'sizing');
    const ingestKeys = await Promise.all([0, 1].map(async (i) => (await createApiKey(db, { workspaceId: ws.id, name: `ingest ${i}`, permissions: ['api:write'], servicePrefix: 'loupe_' })).key));
    const mcpKeys = await Promise.all(Array.from({ length: Math.ceil(searches / 900) + 1 }, async (_, i) => (await createApiKey(db, { workspaceId: ws.id, name: `mcp ${i}`, permissions: ['mcp:read'], defaultProductId: product.id, servicePrefix: 'loupe_' })).key));
    const tenant: BenchTenant = { workspaceId: ws.id, productId: product.id, projectId: project.id, keys: ingestKeys };
    const postmaster = Number((await readFile(path.join(dir, 'postgres', 'postmaster.pid'), 'utf8')).split('\n')[0]);
    const processes = async () => new Map<string, number[]>([...apps.map((a) => [a.app, [a.child.pid!]] as [string, number[]]), ['postgresql', await postgresPids(postmaster)]]);

    const phases: Phase[] = [];
    phases.push(await measure('at rest (10 s after start)', processes, () => new Promise((r) => setTimeout(r, 10_000))));
    phases.push(await measure(`ingesting ${records.toLocaleString('en')} records (2 clients, 1,000 a request) until processed and embedded`, processes, async () => {
      const all = makeRecords(tenant, records, 1024);
      let next = 0;
      await Promise.all(ingestKeys.map(async (key) => {
        while (next < all.length) {
          const slice = all.slice(next, next + 1000);
          next += slice.length;
          for (;;) {
            const r = await postOnce(new URL(`${proxy!.url}/api/v1/ingest`), agent, { 'content-type': 'application/json', 'x-api-key': key }, JSON.stringify(slice));
            if (r.status === 202) break;
            if (r.status !== 429 && r.status !== 503) throw new Error(`ingest answered ${r.status}: ${r.text.slice(0, 200)}`);
            await new Promise((res) => setTimeout(res, 500));
          }
        }
      }));
      for (;;) {
        const { rows: [s] } = await pool.query<{ processed: number; pending: number }>(
          `SELECT (SELECT coalesce(sum(processed_count), 0)::int FROM batches WHERE workspace_id = $1) AS processed,
                  (SELECT count(*)::int FROM source_semantics WHERE workspace_id = $1 AND pending) AS pending`, [ws.id]);
        if (s!.processed >= records && s!.pending === 0) break;
        await new Promise((r) => setTimeout(r, 500));
      }
    }));
    const queries = ['export to csv', 'the export takes minutes for large projects', '"export to CSV"', 'zebrafish'];
    phases.push(await measure(`${searches} find_sources calls back to back (over MCP)`, processes, async () => {
      for (let i = 0; i < searches; i++) {
        const body = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/call', params: { name: 'find_sources', arguments: { query: queries[i % queries.length] } } });
        const r = await postOnce(new URL(`${proxy!.url}/api/mcp`), agent, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': mcpKeys[Math.floor(i / 900)]! }, body);
        if (r.status !== 200) throw new Error(`find_sources answered ${r.status}: ${r.text.slice(0, 200)}`);
      }
    }));
    phases.push(await measure('at rest again (10 s)', processes, () => new Promise((r) => setTimeout(r, 10_000))));
    return { machine: machine(), records, searches, phases };
  } finally {
    for (const a of apps) await a.stop();
    await proxy?.close();
    await pool.end();
    await server.stop();
    await rm(dir, { recursive: true, force: true });
  }
}

export function printSizing(f: Awaited<ReturnType<typeof runSizingBench>>) {
  console.log(`\nsizing on ${f.machine}: each app its own process, embedded PostgreSQL 18, all on this machine`);
  const names = [...f.phases[0]!.byApp.keys()];
  for (const p of f.phases) {
    console.log(`\n${p.name}, ${round(p.seconds, 1)} s:`);
    console.log('| process | CPU (cores busy, mean) | memory (PSS, peak) |\n|---|---|---|');
    for (const n of names) {
      const u = p.byApp.get(n)!;
      console.log(`| ${n} | ${round(u.cores, 2)} | ${round(u.peakRss / 2 ** 20)} MB |`);
    }
  }
}

if (process.argv[1] && import.meta.url.endsWith(path.basename(process.argv[1]))) printSizing(await runSizingBench());
