/**
 * OAuth token endpoint: refresh_token grants per second and their latency, ours (`npm start`'s
 * service: express, our limits, oidc-provider on PostgreSQL) beside oidc-provider with its own
 * in-memory adapter and nothing else (bare-oidc-provider.ts), in the same run, in alternating rounds.
 * Each client of the closed loop refreshes one family after another, always with the refresh token
 * it was just given (every refresh rotates it). Families come from the real code flow over HTTP
 * (token-families.ts); since ours allows 60 refreshes an hour per connection (spec 8.1), no family is
 * used more than 60 times on either side, and more are obtained between rounds as the rate requires.
 *
 *   npm run bench:token     (BENCH_SECONDS per round, default 5; BENCH_CLIENTS, default 8; BENCH_ROUNDS, default 4;
 *                            BENCH_SCOPE, default "mcp:read mcp:write")
 *
 * BENCH_SERVICE_NODE_OPTIONS is given to our service's process as NODE_OPTIONS, to profile it:
 * `--cpu-prof --cpu-prof-dir=/tmp/token-prof`.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { cpuMeter, type CpuPerThousand } from './cpu';
import { machine, percentile, postOnce, round, startBenchService, statementsOf, type BenchTarget } from './lib';
import { bareFamilySupplier, loupeFamilySupplier, type Family, type OAuthClient } from './token-families';

type Side = 'ours' | 'bare';

/** What MCP clients ask for (the scopes the MCP endpoint's metadata lists, and the default); with `openid` an ID token is made too. */
const SCOPE = process.env.BENCH_SCOPE ?? 'mcp:read mcp:write';

/** Refreshes allowed per client connection and hour (spec 8.1): the bench never asks a family for more. */
const REFRESHES_PER_FAMILY = 60;

export interface TokenSideFigures {
  refreshesPerSecond: number;
  p50: number;
  p99: number;
  refreshes: number;
  errors: number;
  /** The first few errors, as answered. */
  errorSamples: string[];
  families: number;
  /** CPU per 1,000 refreshes: the server process, PostgreSQL (ours only), the load generator. */
  cpu: CpuPerThousand;
}

export interface TokenFigures {
  machine: string;
  scope: string;
  clients: number;
  seconds: number;
  rounds: number;
  ours: TokenSideFigures;
  bare: TokenSideFigures;
  ratio: number;
  /** Per-round rates, in the order run, to show the noise. */
  roundRates: Array<{ side: Side; refreshesPerSecond: number }>;
  /**
   * The statements our service sends PostgreSQL per refresh: refreshes one at a time, and under the
   * closed loop of `clients` (where overlapping refreshes share statements); with those of one refresh.
   */
  database: { statementsPerRefresh: number; underLoad: number; statements: string[] } | undefined;
  /** What the run checked of our answers beside each 200 (see `verify`). */
  checks: string[];
  /** Times a round ran out of families and waited for more (each wait is inside the measurement). */
  refills: Record<Side, number>;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

const postForm = (url: URL, form: Record<string, string>) =>
  postOnce(url, agent, { 'content-type': 'application/x-www-form-urlencoded' }, new URLSearchParams(form).toString());

/** One refresh of `family` with its newest token; on success the family holds the new tokens. */
async function refresh(tokenUrl: URL, family: Family): Promise<{ ok: true } | { ok: false; answer: string }> {
  const res = await postForm(tokenUrl, { grant_type: 'refresh_token', refresh_token: family.refreshToken, client_id: family.client.client_id })
    .catch((error: Error) => ({ status: 0, text: error.message }));
  if (res.status === 200) {
    const body = JSON.parse(res.text) as { access_token?: string; refresh_token?: string; token_type?: string };
    if (body.refresh_token?.startsWith('loupe_rt_') && body.access_token?.startsWith('loupe_at_') && body.refresh_token !== family.refreshToken) {
      family.refreshToken = body.refresh_token;
      family.accessToken = body.access_token;
      family.uses++;
      return { ok: true };
    }
  }
  return { ok: false, answer: `${res.status} ${res.text.slice(0, 200)}` };
}

/** The families of one side: handed out in turn, each until it has been refreshed 60 times. */
class FamilyPool {
  private stock: Family[] = [];
  obtained = 0;
  /** Families refreshed their 60 times: kept for the check that a 61st is refused. */
  readonly usedUp: Family[] = [];
  constructor(private readonly supplier: { more(count: number): Promise<Family[]> }) {}

  /** Makes sure at least `count` unused families are waiting (obtained now, outside any measurement). */
  async ensure(count: number) {
    const missing = count - this.stock.length;
    if (missing <= 0) return;
    this.stock.push(...(await this.supplier.more(missing)));
    this.obtained += missing;
  }

  /** The next unused family; should the estimate fall short, more are obtained on the spot (counted in `refills`). */
  async take(): Promise<Family> {
    while (this.stock.length === 0) {
      if (!this.refilling) {
        this.refills++;
        this.refilling = this.ensure(16).finally(() => (this.refilling = undefined));
      }
      await this.refilling;
    }
    return this.stock.shift()!;
  }

  refills = 0;
  private refilling: Promise<void> | undefined;

  /** An unused family, taken out of the pool for a check that must not disturb the ones in use. */
  spare(): Family | undefined {
    return this.stock.shift();
  }
}

/** Refreshes per second each side is assumed able to reach, at least, when families are obtained for a round. */
const FLOOR_RATE: Record<Side, number> = { ours: 800, bare: 4000 };

/** Families enough for `seconds` at three times `rate` (rounds vary that much on a busy machine), and one in hand per client. */
const familiesFor = (rate: number, seconds: number, clients: number) => Math.ceil((rate * 3 * seconds) / REFRESHES_PER_FAMILY) + clients;

async function closedLoop(tokenUrl: URL, families: FamilyPool, held: Family[], seconds: number) {
  const latencies: number[] = [];
  const errors: string[] = [];
  const until = performance.now() + seconds * 1000;
  await Promise.all(held.map(async (_, c) => {
    while (performance.now() < until) {
      if (held[c]!.uses >= REFRESHES_PER_FAMILY) {
        families.usedUp.push(held[c]!);
        held[c] = await families.take();
      }
      const started = performance.now();
      const result = await refresh(tokenUrl, held[c]!);
      if (result.ok) {
        latencies.push(performance.now() - started);
      } else {
        errors.push(result.answer);
        held[c] = await families.take(); // a refused family is not retried
      }
    }
  }));
  return { latencies, errors };
}

async function startBare(): Promise<{ url: string; client: OAuthClient; child: ChildProcess; close(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'bare-oidc-provider.ts')], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let err = '';
  child.stderr!.on('data', (d: Buffer) => (err += d.toString()));
  const { url, client } = await new Promise<{ url: string; client: OAuthClient }>((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString();
      const m = /^(http:\S+)\n(\{.*\})$/m.exec(out);
      if (m) resolve({ url: m[1]!, client: JSON.parse(m[2]!) as OAuthClient });
    });
    child.once('exit', (code) => reject(new Error(`the baseline provider exited (${code}):\n${err}`)));
  });
  return {
    url, client, child,
    async close() {
      await new Promise((r) => { child.once('exit', r); child.kill('SIGTERM'); });
    },
  };
}


/** The statements our service sends PostgreSQL per refresh (PostgreSQL's log: `statementsOf`): `count` refreshes one at a time, then a second of the closed loop. */
async function statementsOfRefreshes(service: BenchTarget, tokenUrl: URL, families: FamilyPool, held: Family[], count: number) {
  const family = families.spare()!;
  const { perCall, statements } = await statementsOf(service, async () => {
    for (let i = 0; i < count; i++) {
      const result = await refresh(tokenUrl, family);
      if (!result.ok) throw new Error(`a refresh failed while its statements were counted: ${result.answer}`);
    }
    return count;
  });
  const underLoad = await statementsOf(service, async () => {
    const run = await closedLoop(tokenUrl, families, held, 1);
    if (run.errors.length) throw new Error(`a refresh failed while its statements were counted: ${run.errors[0]}`);
    return run.latencies.length;
  });
  return { statementsPerRefresh: perCall, underLoad: underLoad.perCall, statements };
}

/** Checks beyond each 200: the new access token works, a retired refresh token is refused, the 61st refresh is limited. */
async function verify(service: BenchTarget, families: FamilyPool, tokenUrl: URL, usedUp: Family | undefined): Promise<string[]> {
  const checks: string[] = [];
  const family = families.spare();
  if (!family) throw new Error('no family left for the checks');
  const retired = family.refreshToken;
  const first = await refresh(tokenUrl, family);
  if (!first.ok) throw new Error(`check: a fresh family's refresh failed: ${first.answer}`);
  const mcp = await fetch(`${service.url}/api/mcp`, {
    method: 'POST',
    headers: { authorization: `Bearer ${family.accessToken}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
  });
  const listed = await mcp.text();
  if (mcp.status !== 200 || !listed.includes('"tools"')) throw new Error(`check: tools/list with a refreshed access token answered ${mcp.status}: ${listed.slice(0, 200)}`);
  checks.push('a refreshed access token is accepted by the MCP endpoint (tools/list)');
  const replay = await refresh(tokenUrl, { ...family, refreshToken: retired });
  if (replay.ok || !replay.answer.startsWith('400') || !replay.answer.includes('invalid_grant')) throw new Error(`check: the retired refresh token was not refused: ${replay.ok ? '200' : replay.answer}`);
  const after = await refresh(tokenUrl, family);
  if (!after.ok) throw new Error(`check: the family did not survive a replay within the grace window: ${after.answer}`);
  checks.push('the retired refresh token, sent again within 30 s, is refused with invalid_grant and the family keeps working');
  if (usedUp) {
    const limited = await refresh(tokenUrl, usedUp);
    if (limited.ok || !limited.answer.startsWith('429')) throw new Error(`check: the 61st refresh of a connection was not limited: ${limited.ok ? '200' : limited.answer}`);
    checks.push('the 61st refresh of one connection within the hour is refused with 429 rate_limit_exceeded');
  }
  return checks;
}

function sideFigures(latencies: number[], errors: string[], busySeconds: number, families: number, cpu: CpuPerThousand): TokenSideFigures {
  const sorted = latencies.sort((a, b) => a - b);
  return {
    refreshesPerSecond: sorted.length / busySeconds, p50: percentile(sorted, 50), p99: percentile(sorted, 99), refreshes: sorted.length,
    errors: errors.length, errorSamples: [...new Set(errors)].slice(0, 3), families, cpu,
  };
}

export async function runTokenBench(options: { seconds?: number; clients?: number; rounds?: number } = {}): Promise<TokenFigures> {
  const seconds = options.seconds ?? Number(process.env.BENCH_SECONDS ?? 5);
  const clients = options.clients ?? Number(process.env.BENCH_CLIENTS ?? 8);
  const rounds = options.rounds ?? Number(process.env.BENCH_ROUNDS ?? 4);
  const nodeOptions = process.env.BENCH_SERVICE_NODE_OPTIONS;
  const service = await startBenchService(nodeOptions ? { NODE_OPTIONS: nodeOptions } : {});
  const bare = await startBare().catch(async (error: unknown) => {
    await service.close();
    throw error;
  });
  try {
    const tokenUrl: Record<Side, URL> = { ours: new URL('/oauth/token', service.url), bare: new URL('/token', bare.url) };
    const families: Record<Side, FamilyPool> = {
      ours: new FamilyPool(loupeFamilySupplier(service.url, service.pool, SCOPE)),
      bare: new FamilyPool(bareFamilySupplier(bare.url, bare.client, SCOPE)),
    };
    const meters: Record<Side, ReturnType<typeof cpuMeter>> = { ours: cpuMeter(service), bare: cpuMeter({ pid: bare.child.pid, postgresDataDir: undefined }) };
    const held = {} as Record<Side, Family[]>;
    const rate: Record<Side, number> = { ours: 0, bare: 0 };
    // Warm-up (JIT, pools, plans), which also estimates each side's rate for the families to obtain.
    for (const side of ['ours', 'bare'] as const) {
      await families[side].ensure(clients * 4);
      held[side] = [];
      for (let c = 0; c < clients; c++) held[side].push(await families[side].take());
      const warm = await closedLoop(tokenUrl[side], families[side], held[side], 1);
      if (warm.errors.length) throw new Error(`${side}: warm-up refreshes failed: ${warm.errors[0]}`);
      rate[side] = warm.latencies.length;
    }

    const latencies: Record<Side, number[]> = { ours: [], bare: [] };
    const errors: Record<Side, string[]> = { ours: [], bare: [] };
    const roundRates: TokenFigures['roundRates'] = [];
    for (let r = 0; r < rounds; r++) {
      for (const side of r % 2 === 0 ? (['bare', 'ours'] as const) : (['ours', 'bare'] as const)) {
        // Obtained before the round starts, for the best rate seen so far: a one-second warm-up underestimates a cold process, hence the floor.
        const expected = Math.max(rate[side], FLOOR_RATE[side]);
        await families[side].ensure(familiesFor(expected, seconds, clients));
        const run = await meters[side].measure(() => closedLoop(tokenUrl[side], families[side], held[side], seconds));
        latencies[side].push(...run.latencies);
        errors[side].push(...run.errors);
        rate[side] = Math.max(rate[side], run.latencies.length / seconds);
        roundRates.push({ side, refreshesPerSecond: run.latencies.length / seconds });
      }
    }
    const ours = sideFigures(latencies.ours, errors.ours, rounds * seconds, families.ours.obtained, meters.ours.perThousand(latencies.ours.length));
    const bareFigures = sideFigures(latencies.bare, errors.bare, rounds * seconds, families.bare.obtained, meters.bare.perThousand(latencies.bare.length));

    await families.ours.ensure(familiesFor(rate.ours, 1, clients) + 2); // the second of closed loop counted below, and two spares: the one-at-a-time count's and the checks'
    const database = service.postgresDataDir ? await statementsOfRefreshes(service, tokenUrl.ours, families.ours, held.ours, 20) : undefined;
    const checks = await verify(service, families.ours, tokenUrl.ours, families.ours.usedUp.at(-1));
    return {
      machine: machine(), scope: SCOPE, clients, seconds, rounds, ours, bare: bareFigures,
      ratio: ours.refreshesPerSecond / bareFigures.refreshesPerSecond, roundRates, database, checks,
      refills: { ours: families.ours.refills, bare: families.bare.refills },
    };
  } finally {
    agent.destroy();
    await bare.close();
    await service.close();
  }
}

export function printToken(f: TokenFigures) {
  if (f.refills.ours + f.refills.bare > 0) console.log(`families ran short ${f.refills.ours + f.refills.bare} times mid-round (ours ${f.refills.ours}, baseline ${f.refills.bare}); those waits are in the figures`);
  console.log(`OAuth refresh_token grants — ${f.machine}`);
  console.log(`${f.clients} clients in a closed loop, ${f.rounds} alternating rounds of ${f.seconds} s per side; scope "${f.scope}"; each refresh rotates the family's token and the next uses the new one; at most ${REFRESHES_PER_FAMILY} refreshes per family`);
  const line = (name: string, s: TokenSideFigures) =>
    console.log(`  ${name.padEnd(34)} ${String(round(s.refreshesPerSecond)).padStart(6)} refreshes/s  p50 ${round(s.p50, 1)} ms  p99 ${round(s.p99, 1)} ms  errors ${s.errors}  (${s.refreshes} refreshes, ${s.families} families)`);
  line('Loupe (npm start, PostgreSQL)', f.ours);
  line('oidc-provider, in-memory adapter', f.bare);
  for (const [name, s] of [['Loupe', f.ours], ['baseline', f.bare]] as const) {
    for (const e of s.errorSamples) console.log(`    ${name} error: ${e}`);
  }
  console.log(`ratio:    ${round(f.ratio, 2)} (Loupe / in-memory oidc-provider; target ≥ 0.35)`);
  console.log(`rounds:   ${f.roundRates.map((r) => `${r.side} ${round(r.refreshesPerSecond)}`).join(', ')}`);
  const ms = (v: number | undefined) => (v === undefined ? '–' : (v / 1000).toFixed(2));
  console.log(`CPU per refresh (ms): Loupe ${ms(f.ours.cpu.serviceMs)} service + ${ms(f.ours.cpu.postgresMs)} PostgreSQL + ${ms(f.ours.cpu.benchMs)} load generator; baseline ${ms(f.bare.cpu.serviceMs)} provider + ${ms(f.bare.cpu.benchMs)} load generator`);
  if (f.database) {
    console.log(`database: ${f.database.statementsPerRefresh} statements per refresh one at a time, ${f.database.underLoad} under the closed loop (from PostgreSQL's log); those of one refresh:`);
    for (const st of f.database.statements) console.log(`  ${st.length > 150 ? `${st.slice(0, 147)}...` : st}`);
  }
  for (const c of f.checks) console.log(`checked:  ${c}`);
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  printToken(await runTokenBench());
}
