import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findConnection } from '../store';
import { syncConnection } from '../sync';
import { SLACK_CHANNEL, slackFixture, type SlackFixture } from '../test/slack-fixture';

// Hostile and broken answers of every Web API method the connector calls: whatever Slack (or something posing as
// it at base_url) answers, a sync ends `synced` or `failed` with a reason, the connection stays active, nothing
// throws, and a clean sync afterwards reads on. HOSTILE_RUNS runs more of them.
const RUNS = Number(process.env.HOSTILE_RUNS ?? 150);

/** A small seeded generator (mulberry32): a failing run is repeated by its seed. */
function random(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const EVIL: unknown[] = [
  null, -1, 0, 1.5, 1e308, true, '', ' ', 'x'.repeat(100_000), 'a\u0000b', 'half \ud800 surrogate', '<@U0CUSTOM1|<!here>>', '<https://x|'.repeat(2_000),
  'constructor', 'token_revoked\u0000', {}, [], [[[[[]]]]], { __proto__: { polluted: true } }, '1767225660.000100', '99999999999999999999.1', '1767225660.1234567', '-1.000001', 'NaN',
  ['U0CUSTOM1'], { id: 'F1' }, 'C0FAKE001', 'dXNlcjpVMDYxTkZUVDI=', 'x'.repeat(5_000),
];

const message = (ts: string, extra: Record<string, unknown> = {}) => ({
  type: 'message', ts, user: 'U0CUSTOM1', text: 'Export fails <@U0MEMBER1>', team: 'T0CUSTOM9', user_team: 'T0CUSTOM9',
  files: [{ id: 'F1', name: 'error.png', mimetype: 'image/png', size: 10, url_private: 'https://files.slack.com/x', permalink: 'https://acme.slack.com/files/x' }],
  bot_profile: { id: 'B1', name: 'bot' }, ...extra,
});

/** A valid answer of each method, to be broken; its messages posted at `base` (seconds), newer than any read before. */
const templates = (base: number): Record<string, () => Record<string, unknown>> => {
  const parent = `${base}.000200`;
  const reply = `${base + 30}.000000`;
  return {
    'auth.test': () => ({ ok: true, team_id: 'T0LOUPE01', team: 'Acme', user_id: 'U0LOUPEAPP', url: 'https://acme.slack.com/' }),
    'conversations.info': () => ({ ok: true, channel: { id: SLACK_CHANNEL, name: 'customer-feedback-1', is_private: false } }),
    'conversations.history': () => ({
      ok: true, has_more: false, response_metadata: { next_cursor: '' },
      messages: [message(`${base + 60}.000300`), message(parent, { thread_ts: parent, reply_count: 1, latest_reply: reply }), message(`${base - 60}.000100`, { subtype: 'bot_message', bot_id: 'B1' })],
    }),
    'conversations.replies': () => ({
      ok: true, has_more: false, response_metadata: { next_cursor: '' },
      messages: [message(parent, { thread_ts: parent, reply_count: 1 }), message(reply, { thread_ts: parent, user: 'U0MEMBER1' })],
    }),
    'users.info': () => ({ ok: true, user: { id: 'U0CUSTOM1', team_id: 'T0CUSTOM9', real_name: 'Customer 1', is_stranger: true, profile: { email: 'person1@customer1.example' } } }),
  };
};
const METHODS = Object.keys(templates(0));

function paths(value: unknown, at: (string | number)[] = []): (string | number)[][] {
  if (value === null || typeof value !== 'object') return [at];
  const entries = Array.isArray(value) ? value.map((v, i) => [i, v] as const) : Object.entries(value);
  return [at, ...entries.flatMap(([k, v]) => paths(v, [...at, k]))];
}

function setAt(root: Record<string, unknown>, path: (string | number)[], value: unknown): unknown {
  if (!path.length) return value;
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  node[path[path.length - 1]!] = value;
  return root;
}

/** A broken answer: the template with one to three values replaced, or cut short, or not JSON at all. */
function hostileAnswer(next: () => number, method: string, base: number): { status: number; body: string } {
  const pick = <T>(list: readonly T[]) => list[Math.floor(next() * list.length)]!;
  const roll = next();
  if (roll < 0.08) return { status: pick([200, 500, 502, 404, 400]), body: pick(['', '<html>', '{', 'null', '[]', '"ok"', '{"ok":true', JSON.stringify({ ok: false }), JSON.stringify({ ok: false, error: 'a\u0000b\ud800' }), JSON.stringify({ ok: false, error: '__proto__' })]) };
  let body: unknown = templates(base)[method]!();
  for (let i = 0, n = 1 + Math.floor(next() * 3); i < n; i++) {
    const all = paths(body);
    body = setAt(body as Record<string, unknown>, pick(all), structuredClone(pick(EVIL)));
  }
  const text = JSON.stringify(body) ?? 'null';
  return { status: 200, body: roll < 0.12 ? text.slice(0, Math.floor(text.length * next())) : text };
}

describe('Slack sync against hostile answers', () => {
  let f: SlackFixture;
  beforeAll(async () => {
    f = await slackFixture(30);
  });
  afterAll(async () => f.close());

  it(`ends ${RUNS} syncs each synced or failed with a reason, never thrown, never failing the credentials, the connection active`, async () => {
    const conn = await f.connect({ channel_ids: [SLACK_CHANNEL], start_date: '2026-01-01', page_size: 10, reply_window_days: 30 });
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 30 });
    const seed = Number(process.env.HOSTILE_SEED ?? 45045);
    const next = random(seed);
    const outcomes = new Map<string, number>();
    for (let run = 0; run < RUNS; run++) {
      const method = METHODS[Math.floor(next() * METHODS.length)]!;
      // Each run's messages are newer than the last: the thread and its people are read, so each method is asked.
      const base = 1_800_000_000 + run * 600;
      const answer = hostileAnswer(next, method, base);
      f.fake.serveRaw(method === 'conversations.history' ? answer : { status: 200, body: JSON.stringify(templates(base)['conversations.history']!()) });
      if (method !== 'conversations.history') f.fake.serveRawTo(method, answer);
      let outcome;
      try {
        outcome = await syncConnection(f.deps, conn.id);
      } catch (error) {
        throw new Error(`run ${run} (seed ${seed}), ${method} answered ${answer.body.slice(0, 300)}: the sync threw ${(error as Error).stack}`);
      }
      expect(['synced', 'failed'], `run ${run} (seed ${seed}), ${method}: ${answer.body.slice(0, 300)} → ${JSON.stringify(outcome)}`).toContain(outcome.status);
      if (outcome.status === 'failed') expect(outcome.message.length).toBeGreaterThan(0);
      outcomes.set(`${method} ${outcome.status}`, (outcomes.get(`${method} ${outcome.status}`) ?? 0) + 1);
      // An answer no request asked for (a thread not read again this time) must not be served to the next run.
      f.fake.drainRaw();
    }
    if (process.env.HOSTILE_PRINT) console.log(JSON.stringify([...outcomes].sort()));
    expect([...outcomes.keys()].some((k) => k.endsWith('failed'))).toBe(true);
    const after = (await findConnection(f.t.pool, f.ws, conn.id))!;
    expect(after.status).toBe('active');
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced' });
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.last_error).toBeNull();
  });
});
