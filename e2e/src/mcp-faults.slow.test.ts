import { createApiKey } from '@loupe/api-keys';
import { createPrismaClient } from '@loupe/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledPostgres, demoFrom, serviceOn, type ControlledPostgres, type Demo } from './cluster';
import { inParallel, mcpRpc, mcpTool, outcome, send, tally, tokenRequest, type ToolAnswer } from './mcp-client';
import { admin, type Started } from './process';
import { registerClient, WebPerson } from './web-person';

// Fault tests of the MCP half against real service processes: PostgreSQL restarted under MCP clients
// that write, read and refresh their tokens; two instances on one database (limits, credits, token
// rotation and its grace); 50 concurrent refreshes of one refresh token. Each prints its figures.

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
let ipCount = 0;
/** A fresh client address (sent as X-Forwarded-For), so the per-IP limit counts only what a test means it to. */
const nextIp = () => { const n = ipCount++; return `10.${100 + (n >> 16)}.${(n >> 8) & 255}.${n & 255}`; };

async function newKey(pg: ControlledPostgres, workspaceId: string, productId: string, name: string) {
  const { key, apiKey } = await createApiKey(createPrismaClient(pg.pool), {
    workspaceId, name, permissions: ['mcp:read', 'mcp:write'], defaultProductId: productId, servicePrefix: 'loupe_',
  });
  return { key, id: apiKey.id };
}

interface Connection { clientId: string; accessToken: string; refreshToken: string }

/** A newly registered client, authorized by `person` for `workspaceId`: one token family. */
async function connect(base: string, person: WebPerson, workspaceId: string, name: string): Promise<Connection> {
  const client = await registerClient(base, name, nextIp());
  const tokens = await person.connect(client, workspaceId);
  return { clientId: client.client_id, accessToken: tokens.access_token, refreshToken: tokens.refresh_token };
}

/** A workspace of its own with one product and `credits` credits; its id and product id. */
async function creditWorkspace(pg: ControlledPostgres, name: string, credits: number) {
  const workspaceId = /Created workspace (\S+)/.exec(await admin(pg.url, 'workspace', 'create', '--name', name))![1]!;
  const productId = /Created product (\S+)/.exec(await admin(pg.url, 'product', 'create', '--workspace', workspaceId, '--name', `${name} app`))![1]!;
  await admin(pg.url, 'credits', 'grant', '--workspace', workspaceId, '--amount', String(credits));
  return { workspaceId, productId };
}

async function ledger(pg: ControlledPostgres, workspaceId: string) {
  const { rows } = await pg.pool.query<{ charges: number; sum: number; balance: number }>(
    `SELECT (SELECT count(*)::int FROM credit_ledger WHERE workspace_id = $1 AND kind = 'charge') AS charges,
            (SELECT coalesce(sum(amount), 0)::int FROM credit_ledger WHERE workspace_id = $1) AS sum,
            (SELECT credit_balance::int FROM workspaces WHERE id = $1) AS balance`, [workspaceId]);
  return rows[0]!;
}

async function waitFor<T>(what: string, fn: () => Promise<T | undefined>, tries = 240): Promise<T> {
  for (let i = 0; i < tries; i++) {
    const v = await fn();
    if (v !== undefined) return v;
    await sleep(250);
  }
  throw new Error(`timed out waiting for ${what}`);
}

const FAILED_ON_OUR_SIDE = /failed unexpectedly on our side; nothing was changed or charged/;

describe('PostgreSQL restarted while MCP clients call tools and refresh tokens', () => {
  let pg: ControlledPostgres;
  let service: Started;
  let demo: Demo;
  const RUN = `outage${Date.now().toString(36)}`;

  interface Client {
    name: string;
    ip: string;
    key?: { key: string; id: string };
    oauth?: Connection;
    /** Set when a refresh was refused with invalid_grant: the family is gone for this client. */
    lostFamily?: string;
    calls: Array<{ op: string; at: number; outcome: string; message: string }>;
    refreshes: Array<{ at: number; outcome: string }>;
    notes: string[];
    signals: string[];
    charged: number;
  }
  const clients: Client[] = [];
  let sourceId = '';

  const headersOf = (c: Client) => ({
    'x-forwarded-for': c.ip,
    ...(c.oauth ? { authorization: `Bearer ${c.oauth.accessToken}` } : { 'x-api-key': c.key!.key }),
  });

  beforeAll(async () => {
    pg = await controlledPostgres();
    service = await serviceOn(pg.url);
    demo = demoFrom(service.output());
    await Promise.all([
      admin(pg.url, 'member', 'add', '--workspace', demo.workspaceId, '--email', 'outage@loupe.test', '--role', 'member'),
      admin(pg.url, 'credits', 'grant', '--workspace', demo.workspaceId, '--amount', '1000000'),
    ]);
    const person = new WebPerson(service.url, pg.pool, 'outage@loupe.test', nextIp());
    const fresh = (name: string): Client => ({ name, ip: nextIp(), calls: [], refreshes: [], notes: [], signals: [], charged: 0 });
    for (let i = 0; i < 3; i++) clients.push({ ...fresh(`key${i}`), key: await newKey(pg, demo.workspaceId, demo.productId, `outage key ${i}`) });
    for (let i = 0; i < 3; i++) clients.push({ ...fresh(`oauth${i}`), oauth: await connect(service.url, person, demo.workspaceId, `Outage notebook ${i}`) });
    // The demo's records become sources in the worker: add_signals needs one.
    sourceId = await waitFor('a demo source', async () => {
      const r = await mcpTool(service.url, headersOf(clients[0]!), 'find_sources', {});
      return (r.result?.structuredContent?.items as Array<{ id: string }> | undefined)?.[0]?.id;
    });
  });
  afterAll(async () => {
    await service?.stop();
    await pg?.destroy();
  });

  async function call(c: Client, op: string, i: number): Promise<ToolAnswer> {
    const args: Record<string, unknown> =
      op === 'create_shaping_note' ? { product_id: demo.productId, title: `${RUN} ${c.name} #${i}`, content: `Written by ${c.name} while PostgreSQL restarts.` }
        : op === 'add_signals' ? { source_id: sourceId, signals: [{ type: 'need', title: `${RUN} ${c.name} #${i}`, content: `${RUN} ${c.name} #${i}: exports must survive a restart` }] }
          : {};
    const at = Date.now();
    const a = await mcpTool(service.url, headersOf(c), op, args);
    c.calls.push({ op, at, outcome: outcome(a), message: a.message });
    if (a.ok) {
      if (op !== 'find_skills') c.charged++;
      if (op === 'create_shaping_note') c.notes.push(a.result!.structuredContent.id as string);
      if (op === 'add_signals') c.signals.push(...(a.result!.structuredContent.signals as Array<{ id: string }>).map((s) => s.id));
    }
    return a;
  }

  async function refresh(c: Client) {
    const at = Date.now();
    const a = await tokenRequest(service.url, { grant_type: 'refresh_token', refresh_token: c.oauth!.refreshToken, client_id: c.oauth!.clientId }, c.ip);
    c.refreshes.push({ at, outcome: outcome(a) });
    if (a.status === 200) {
      c.oauth!.refreshToken = a.body!.refresh_token as string;
      c.oauth!.accessToken = a.body!.access_token as string;
    } else if (a.body?.error === 'invalid_grant') {
      c.lostFamily = `${a.body.error_description} after ${c.refreshes.slice(-3).map((r) => r.outcome).join(', ')}`;
    }
    return a;
  }

  it('answers with clean errors during the outage, recovers by itself, loses no write, charges once, revokes no family', async () => {
    const OPS = ['create_shaping_note', 'get_products', 'add_signals', 'find_skills', 'refresh'];
    let running = true;
    const loops = clients.map(async (c) => {
      for (let i = 0; running; i++) {
        const op = OPS[i % OPS.length]!;
        if (op === 'refresh') {
          if (c.oauth && !c.lostFamily) await refresh(c);
        } else {
          await call(c, op, i);
        }
        await sleep(40);
      }
    });
    await sleep(2500);
    const stoppedAt = Date.now();
    await pg.stop();
    await sleep(4000);
    await pg.start();
    const startedAt = Date.now();
    await sleep(6000);
    running = false;
    await Promise.all(loops);
    expect(service.child.exitCode, `the service died during the outage:\n${service.output().slice(-4000)}`).toBeNull();

    // Recovered by itself: every client writes again, and every OAuth client refreshes and uses its new token.
    const after = await Promise.all(clients.map(async (c) => {
      const refreshed = c.oauth && !c.lostFamily ? outcome(await refresh(c)) : 'no refresh';
      return { client: c.name, refreshed, write: outcome(await call(c, 'create_shaping_note', 100_000)) };
    }));

    const phase = (t: number) => (t < stoppedAt ? 'before' : t < startedAt ? 'during' : 'after');
    const all = clients.flatMap((c) => c.calls);
    const refreshes = clients.flatMap((c) => c.refreshes);
    const byPhase = (items: Array<{ at: number; outcome: string }>) =>
      Object.fromEntries(['before', 'during', 'after'].map((p) => [p, tally(items.filter((x) => phase(x.at) === p).map((x) => x.outcome))]));

    const notes = clients.flatMap((c) => c.notes);
    const signals = clients.flatMap((c) => c.signals);
    const { rows: [stored] } = await pg.pool.query<{ notes: number; ghost_notes: number; signals: number; ghost_signals: number }>(
      `SELECT (SELECT count(*)::int FROM shaping_notes WHERE id = ANY($1)) AS notes,
              (SELECT count(*)::int FROM shaping_notes WHERE title LIKE $3 AND NOT id = ANY($1)) AS ghost_notes,
              (SELECT count(*)::int FROM signals WHERE id = ANY($2)) AS signals,
              (SELECT count(*)::int FROM signals WHERE title LIKE $3 AND NOT id = ANY($2)) AS ghost_signals`,
      [notes, signals, `${RUN} %`]);
    const charged = clients.reduce((n, c) => n + c.charged, 0);
    const { rows: [charges] } = await pg.pool.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM credit_ledger WHERE kind = 'charge' AND (api_key_id = ANY($1) OR oauth_client_id = ANY($2)) AND tool = ANY($3)`,
      [clients.flatMap((c) => (c.key ? [c.key.id] : [])), clients.flatMap((c) => (c.oauth ? [c.oauth.clientId] : [])), OPS]);
    const books = await ledger(pg, demo.workspaceId);
    const { rows: perTool } = await pg.pool.query<{ who: string; tool: string; n: number; times: Date[] }>(
      `SELECT coalesce(api_key_id, oauth_client_id) AS who, tool, count(*)::int AS n, array_agg(created_at ORDER BY created_at) AS times
         FROM credit_ledger WHERE kind = 'charge' AND (api_key_id = ANY($1) OR oauth_client_id = ANY($2)) AND tool = ANY($3) GROUP BY 1, 2`,
      [clients.flatMap((c) => (c.key ? [c.key.id] : [])), clients.flatMap((c) => (c.oauth ? [c.oauth.clientId] : [])), OPS]);
    // Where the ledger and the answers disagree: each credential's charges of one tool against its calls answered ok.
    const mismatches = perTool.flatMap((r) => {
      const c = clients.find((x) => x.key?.id === r.who || x.oauth?.clientId === r.who)!;
      const ok = c.calls.filter((x) => x.op === r.tool && x.outcome === 'tool ok').length;
      if (ok === r.n) return [];
      const near = (t: number) => t > stoppedAt - 2000 && t < startedAt + 2000;
      return [{ client: c.name, tool: r.tool, charges: r.n, answeredOk: ok,
        chargesNearOutage: r.times.map((t) => t.getTime() - stoppedAt).filter((t) => near(t + stoppedAt)),
        callsNearOutage: c.calls.filter((x) => x.op === r.tool && near(x.at)).map((x) => `${x.at - stoppedAt}: ${x.outcome} ${x.message.slice(0, 60)}`) }];
    });

    console.log([
      `postgres restart under MCP clients (3 API keys, 3 OAuth connections; down ${startedAt - stoppedAt} ms):`,
      `  tool calls ${all.length}: ${JSON.stringify(byPhase(all))}`,
      `  refreshes ${refreshes.length}: ${JSON.stringify(byPhase(refreshes))}`,
      `  after: ${JSON.stringify(after)}`,
      `  writes answered ok: ${notes.length} notes, ${signals.length} signals; stored ${stored!.notes} and ${stored!.signals}; ` +
        `written but answered failed: ${stored!.ghost_notes} notes, ${stored!.ghost_signals} signals`,
      `  charged calls answered ok ${charged}, ledger charges ${charges!.n}; workspace balance ${books.balance}, ledger sum ${books.sum}`,
      ...(mismatches.length ? [`  ledger and answers disagree (ms from the stop): ${JSON.stringify(mismatches, null, 1)}`] : []),
      `  families lost: ${JSON.stringify(clients.filter((c) => c.lostFamily).map((c) => `${c.name}: ${c.lostFamily}`))}`,
    ].join('\n'));

    // The outage was seen, and answered cleanly: a tool error result, or a JSON-RPC 503 to retry; never a 500, a dropped or a hung request.
    expect(all.some((x) => x.outcome !== 'tool ok')).toBe(true);
    const allowedCall = (o: string) => o === 'tool ok' || o.startsWith('tool error: ') || o === '503 -32603';
    expect(all.filter((x) => !allowedCall(x.outcome))).toEqual([]);
    expect(all.filter((x) => x.outcome.startsWith('tool error: ') && !FAILED_ON_OUR_SIDE.test(x.message))).toEqual([]);
    expect(refreshes.filter((x) => !['200', '503 SERVICE_UNAVAILABLE', '503 temporarily_unavailable'].includes(x.outcome))).toEqual([]);
    expect(after.every((a) => a.write === 'tool ok' && (a.refreshed === '200' || a.refreshed === 'no refresh'))).toBe(true);
    // No lost write, no write behind a failure answer.
    expect(stored).toEqual({ notes: notes.length, ghost_notes: 0, signals: signals.length, ghost_signals: 0 });
    // One charge per successful charged call; the balance is the ledger's sum.
    expect(charges!.n).toBe(charged);
    expect(books.balance).toBe(books.sum);
    // No family revoked: each client refreshed alone, so none can have lost a race.
    expect(clients.filter((c) => c.lostFamily).map((c) => c.name)).toEqual([]);
  });
});

describe('two service instances on one database (MCP)', () => {
  const PER_IP = 100;
  let pg: ControlledPostgres;
  let one: Started;
  let two: Started;
  let demo: Demo;
  let person: WebPerson;
  const at = (i: number) => (i % 2 ? two.url : one.url);

  beforeAll(async () => {
    pg = await controlledPostgres();
    one = await serviceOn(pg.url, { PER_IP_LIMIT_PER_MINUTE: String(PER_IP) });
    demo = demoFrom(one.output());
    [two] = await Promise.all([
      serviceOn(pg.url, { PER_IP_LIMIT_PER_MINUTE: String(PER_IP) }),
      admin(pg.url, 'member', 'add', '--workspace', demo.workspaceId, '--email', 'pair@loupe.test', '--role', 'member'),
      admin(pg.url, 'credits', 'grant', '--workspace', demo.workspaceId, '--amount', '1000000'),
    ]);
    person = new WebPerson(one.url, pg.pool, 'pair@loupe.test', nextIp());
  });
  afterAll(async () => {
    await Promise.all([one?.stop(), two?.stop()]);
    await pg?.destroy();
  });

  it('holds the per-key limit across them: 1,001 requests alternating instances, exactly 1,000 served', async () => {
    for (let attempt = 0; ; attempt++) {
      const key = await newKey(pg, demo.workspaceId, demo.productId, `limit key ${attempt}`);
      const started = Date.now();
      const answers = await inParallel(Array.from({ length: 1001 }, (_, i) => i), 16, (i) =>
        mcpRpc(at(i), { 'x-api-key': key.key, 'x-forwarded-for': nextIp() }, 'ping'));
      const hour = (t: number) => Math.floor(t / 3600_000);
      if (hour(started) !== hour(Date.now()) && attempt < 2) continue; // the burst straddled two hourly windows
      const limited = answers.filter((a) => a.status === 429);
      console.log(`per-key limit across instances: ${JSON.stringify(tally(answers.map(outcome)))}; the 429: ${limited[0]?.text}`);
      expect(tally(answers.map((a) => String(a.status)))).toEqual({ 200: 1000, 429: 1 });
      expect(limited[0]!.body).toMatchObject({ retryAfter: expect.any(Number), remaining: 0, error: expect.stringMatching(/Rate limit exceeded for this API key/) });
      break;
    }
  });

  it('holds the per-IP limit across them and across paths', async () => {
    const paths = ['/api/mcp', '/.well-known/oauth-authorization-server', '/oauth/clients'];
    for (let attempt = 0; ; attempt++) {
      while (Date.now() % 60_000 > 40_000) await sleep(200); // room for the burst in this minute's window
      const ip = nextIp();
      const key = await newKey(pg, demo.workspaceId, demo.productId, `per-ip key ${attempt}`);
      const started = Date.now();
      const answers = await inParallel(Array.from({ length: PER_IP + 30 }, (_, i) => i), 10, (i) =>
        i % 3 === 0
          ? mcpRpc(at(i), { 'x-api-key': key.key, 'x-forwarded-for': ip }, 'ping')
          : send(`${at(i)}${paths[i % 3]}`, { headers: { 'x-forwarded-for': ip } }));
      if (Math.floor(started / 60_000) !== Math.floor(Date.now() / 60_000) && attempt < 2) continue; // straddled two windows
      const limited = answers.filter((a) => a.status === 429);
      const byPath = paths.map((p, k) => `${p} ${JSON.stringify(tally(answers.filter((_, i) => i % 3 === k).map((a) => String(a.status))))}`);
      console.log(`per-IP limit ${PER_IP}/min across instances, ${answers.length} requests from one IP: ${byPath.join('; ')}`);
      expect(answers.length - limited.length).toBe(PER_IP);
      expect(answers.filter((a) => a.status !== 429).every((a) => a.status === 200)).toBe(true);
      for (const a of limited) expect(a.body).toMatchObject({ msg: expect.any(String), retryAfterSeconds: expect.any(Number), error: 'rate_limit_exceeded' });
      break;
    }
  });

  it('charges exactly once per call across them, and refuses exactly the calls the credits do not cover', async () => {
    const plenty = await creditWorkspace(pg, 'Plenty', 10_000);
    const scarce = await creditWorkspace(pg, 'Scarce', 40);
    const burst = async (ws: { workspaceId: string; productId: string }, n: number) => {
      const key = await newKey(pg, ws.workspaceId, ws.productId, 'credits key');
      const before = await ledger(pg, ws.workspaceId);
      // Both charge paths: read-only calls go through the batched charger, writes charge in their own transaction.
      const answers = await Promise.all(Array.from({ length: n }, (_, i) => mcpTool(at(i), { 'x-api-key': key.key, 'x-forwarded-for': nextIp() },
        i % 2 ? 'get_products' : 'create_shaping_note', i % 2 ? {} : { title: `credit note ${i}`, content: 'one credit' })));
      const books = await ledger(pg, ws.workspaceId);
      const { rows: [notes] } = await pg.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM shaping_notes WHERE workspace_id = $1', [ws.workspaceId]);
      return { answers, before, books, notes: notes!.n, ok: answers.filter((a) => a.ok).length };
    };
    const a = await burst(plenty, 120);
    const b = await burst(scarce, 100);
    const notesOk = (r: typeof a) => r.answers.filter((x, i) => x.ok && i % 2 === 0).length;
    console.log(`credits across instances: 120 concurrent calls with 10,000 credits → ${JSON.stringify(tally(a.answers.map(outcome)))}, ` +
      `ledger charges ${a.books.charges}, balance ${a.before.balance} → ${a.books.balance} (ledger sum ${a.books.sum}); ` +
      `100 concurrent calls with 40 credits → ${JSON.stringify(tally(b.answers.map(outcome)))}, ledger charges ${b.books.charges}, ` +
      `balance ${b.before.balance} → ${b.books.balance} (ledger sum ${b.books.sum}), notes stored ${b.notes} of ${notesOk(b)} answered ok`);
    expect(a.ok).toBe(120);
    expect(a.books).toEqual({ charges: 120, sum: 10_000 - 120, balance: 10_000 - 120 });
    expect(a.notes).toBe(60);
    expect(b.ok).toBe(40);
    expect(b.answers.filter((x) => !x.ok).every((x) => x.message.startsWith('MCP access is paused'))).toBe(true);
    expect(b.books).toEqual({ charges: 40, sum: 0, balance: 0 });
    expect(b.notes).toBe(notesOk(b));
  });

  it('rotates refresh tokens across them, with the grace window holding on the other instance', async () => {
    const c = await connect(one.url, person, demo.workspaceId, 'Rotation notebook');
    const refresh = (base: string, token: string) => tokenRequest(base, { grant_type: 'refresh_token', refresh_token: token, client_id: c.clientId }, nextIp());
    const first = await refresh(one.url, c.refreshToken);
    const retired = await refresh(two.url, c.refreshToken);
    const second = await refresh(two.url, first.body?.refresh_token as string);
    const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'x-forwarded-for': nextIp() });
    const calls = await Promise.all([one.url, two.url].map((u) => mcpTool(u, bearer(second.body?.access_token as string), 'get_products', {})));
    console.log(`rotation across instances: refresh at one ${outcome(first)}; the retired token at two ${outcome(retired)} (${retired.body?.error_description}); ` +
      `the new one at two ${outcome(second)}; its access token at one and two: ${calls.map(outcome).join(', ')}`);
    expect(first.status).toBe(200);
    expect(retired.status).toBe(400);
    expect(retired.body?.error).toBe('invalid_grant');
    expect(second.status).toBe(200);
    expect(calls.every((x) => x.ok)).toBe(true);
  });

  it('50 concurrent refreshes of one token across them: one wins, 49 get invalid_grant, the family lives; a replay after the grace revokes it', async () => {
    const c = await connect(one.url, person, demo.workspaceId, 'Race notebook');
    const refresh = (base: string, token: string) => tokenRequest(base, { grant_type: 'refresh_token', refresh_token: token, client_id: c.clientId }, nextIp());
    const bearer = (token: string) => ({ authorization: `Bearer ${token}`, 'x-forwarded-for': nextIp() });
    const race = await Promise.all(Array.from({ length: 50 }, (_, i) => refresh(at(i), c.refreshToken)));
    const raced = Date.now();
    const winners = race.filter((r) => r.status === 200);
    const losers = race.filter((r) => r.status !== 200);
    const winner = winners[0]?.body as { access_token: string; refresh_token: string } | undefined;
    const useBoth = async (token: string) => (await Promise.all([one.url, two.url].map((u) => mcpTool(u, bearer(token), 'get_products', {})))).map(outcome);
    const winnerCalls = winner ? await useBoth(winner.access_token) : [];
    const next = winner ? await refresh(two.url, winner.refresh_token) : undefined;
    console.log(`50 concurrent refreshes of one token over two instances: ${JSON.stringify(tally(race.map(outcome)))} ` +
      `(${JSON.stringify(tally(losers.map((r) => String(r.body?.error_description))))}); ` +
      `the winner's access token at one and two: ${winnerCalls.join(', ')}; its refresh token at two: ${next && outcome(next)}`);
    expect(winners).toHaveLength(1);
    expect(losers.every((r) => r.status === 400 && r.body?.error === 'invalid_grant')).toBe(true);
    expect(winnerCalls).toEqual(['tool ok', 'tool ok']);
    expect(next?.status).toBe(200);

    // Past the 30-second grace, the retired token is a replay (spec 5.6 rule 3): the whole family ends, on both instances.
    await sleep(Math.max(0, raced + 31_000 - Date.now()));
    const newest = next!.body as { access_token: string; refresh_token: string };
    const replay = await refresh(one.url, c.refreshToken);
    const afterReplay = await refresh(two.url, newest.refresh_token);
    const revokedCalls = (await Promise.all([one.url, two.url].map((u) => mcpRpc(u, bearer(newest.access_token), 'tools/list')))).map(outcome);
    console.log(`replay after the grace: ${outcome(replay)}; the family's newest refresh token at two: ${outcome(afterReplay)}; its access token at one and two: ${revokedCalls.join(', ')}`);
    expect(replay.body?.error).toBe('invalid_grant');
    expect(afterReplay.body?.error).toBe('invalid_grant');
    expect(revokedCalls).toEqual(['401 invalid_token', '401 invalid_token']);
  });
});
