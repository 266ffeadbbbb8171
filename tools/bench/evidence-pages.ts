/**
 * The evidence pages of the account app at scale (issue 27: "a page renders in < 200 ms at 100,000
 * sources and 100,000 signals"). A workspace is filled in bulk (SQL) with BENCH_PAGES_SOURCES sources
 * (one of 2,000 turns), BENCH_PAGES_SIGNALS signals grouped 50 to an opportunity, and 1,000 shaping
 * notes; the web app's pages are then requested over HTTP as a signed-in member, each
 * BENCH_PAGES_CALLS times, and p50/p95/max per page are printed with the machine.
 *
 *   npm run bench:evidence-pages      BENCH_PAGES_SOURCES, BENCH_PAGES_SIGNALS (default 100000 each), BENCH_PAGES_CALLS (default 20)
 */
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { freePort, openDatabase } from '@loupe/db';
import { createAuthApp } from '@loupe/auth-server';
import { createWebApp } from '@loupe/web';
import { appShell, createLogger, listen, systemClock } from '@loupe/http';
import { ensureSignalTypes } from '@loupe/evidence';
import { refreshSearchDocuments } from '@loupe/sources';
import { createLocalStorage } from '@loupe/storage';
import { machine, percentile, round } from './lib';

const SOURCES = Number(process.env.BENCH_PAGES_SOURCES ?? 100_000);
const SIGNALS = Number(process.env.BENCH_PAGES_SIGNALS ?? 100_000);
const CALLS = Number(process.env.BENCH_PAGES_CALLS ?? 20);
const WS = 'ws_bench_pages';
const PROD = 'prod_bench_pages';

// Its own PostgreSQL (embedded under a temporary directory, or DATABASE_URL's), migrated like npm start's.
const dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-bench-pages-'));
const t = await openDatabase({ databaseUrl: process.env.DATABASE_URL, dataDir, embeddedPgPort: await freePort(), poolSize: 8 });
const pool = t.pool;
const started = performance.now();
await pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Bench')", [WS]);
await pool.query("INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, 'Bench app')", [PROD, WS]);
await ensureSignalTypes(pool, WS);
const WORDS = ['export', 'timeout', 'invoice', 'onboarding', 'sso', 'okta', 'slack', 'pricing', 'mobile', 'crash', 'report', 'dashboard', 'csv', 'latency', 'billing'];
await pool.query(
  `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, participants, tags, status, segment_count)
   SELECT 'src_b' || lpad(i::text, 7, '0'), $1, $2, '{}', 'conversation', 'evidence', 'Conversation ' || i || ' about ' || ($4::text[])[1 + i % 15],
          now() - (i || ' minutes')::interval, '[]', '{}', 'ready', CASE WHEN i = 1 THEN 2000 ELSE 2 END
     FROM generate_series(1, $3) i`,
  [WS, PROD, SOURCES, WORDS],
);
await pool.query(
  `INSERT INTO source_segments (source_id, position, kind, speaker, text)
   SELECT 'src_b' || lpad(i::text, 7, '0'), p, 'turn', CASE WHEN p % 2 = 0 THEN 'Customer' ELSE 'Support' END,
          'The ' || ($2::text[])[1 + (i + p) % 15] || ' is slow and the ' || ($2::text[])[1 + (i * 7 + p) % 15] || ' keeps failing for us, turn ' || p
     FROM generate_series(1, $1) i, generate_series(0, CASE WHEN i = 1 THEN 1999 ELSE 1 END) p`,
  [SOURCES, WORDS],
);
for (let at = 1; at <= SOURCES; at += 5_000) {
  const ids = Array.from({ length: Math.min(5_000, SOURCES - at + 1) }, (_, k) => `src_b${String(at + k).padStart(7, '0')}`);
  await refreshSearchDocuments(pool, ids);
}
await pool.query(
  `INSERT INTO signals (id, workspace_id, product_id, source_id, type_id, title, content, who_said_it, content_hash, created_at, updated_at, company, cluster_pending, written_by_key_id)
   SELECT 'sig_b' || lpad(i::text, 7, '0'), $1, $2, 'src_b' || lpad((1 + i % $4)::text, 7, '0'),
          (SELECT id FROM signal_types WHERE workspace_id = $1 ORDER BY key OFFSET i % 6 LIMIT 1),
          'Signal ' || i, 'The customer says the ' || ($5::text[])[1 + i % 15] || ' is painful (' || i || ')', 'person' || (i % 500) || '@company' || (i % 300) || '.com',
          md5(i::text), now() - (i || ' seconds')::interval, now() - (i || ' seconds')::interval, 'company' || (i % 300) || '.com', false, 'key_bench'
     FROM generate_series(1, $3) i`,
  [WS, PROD, SIGNALS, SOURCES, WORDS],
);
await pool.query(
  `INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, created_at, updated_at)
   SELECT 'opp_b' || lpad(o::text, 6, '0'), $1, $2, 'Opportunity ' || o, '', 'need', 50, 50, now(), now() FROM generate_series(1, $3 / 50) o`,
  [WS, PROD, SIGNALS],
);
await pool.query(
  `INSERT INTO opportunity_signals (opportunity_id, signal_id)
   SELECT 'opp_b' || lpad((1 + (i - 1) / 50)::text, 6, '0'), 'sig_b' || lpad(i::text, 7, '0') FROM generate_series(1, ($1 / 50) * 50) i`,
  [SIGNALS],
);
await pool.query(
  `INSERT INTO shaping_notes (id, workspace_id, product_id, title, content, status, tags, version, created_at, updated_at)
   SELECT 'shn_b' || i, $1, $2, 'Note ' || i, '# Note ' || i || E'\n\nSome **markdown** text.', 'ideas', '{}', 1, now(), now() - (i || ' minutes')::interval FROM generate_series(1, 1000) i`,
  [WS, PROD],
);
await pool.query(
  `INSERT INTO shaping_note_versions (note_id, version, title, content, status, tags, created_at)
   SELECT id, 1, title, content, status, tags, created_at FROM shaping_notes WHERE workspace_id = $1`,
  [WS],
);
await pool.query('VACUUM ANALYZE');
const loadSeconds = round((performance.now() - started) / 1000, 1);

const mail: Array<{ to: string; text: string }> = [];
let url = '';
const log = createLogger('silent');
const app = appShell(log, (a) => {
  const mailer = { send: async (m: { to: string; text: string }) => void mail.push(m) };
  // As npm start mounts them: the sign-in page (authorization server) and the evidence pages (web) on one origin.
  a.use(createAuthApp({ pool, db: t.db, clock: systemClock, log, baseUrl: () => url, servicePrefix: 'loupe_', mailer }));
  a.use(createWebApp({ pool, db: t.db, clock: systemClock, log, baseUrl: () => url, servicePrefix: 'loupe_', mailer, storage: createLocalStorage(dataDir) }));
});
const server = await listen(app, 0, '127.0.0.1', { requestTimeoutMs: 30_000 });
url = `http://127.0.0.1:${server.port}`;

// A member signed in with the emailed code, as on the pages.
const cookies = new Map<string, string>();
const keep = (res: Response) => {
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const [k, v] = pair!.split('=');
    cookies.set(k!, v ?? '');
  }
};
const cookie = () => [...cookies].map(([k, v]) => `${k}=${v}`).join('; ');
const get = async (path: string) => {
  const res = await fetch(`${url}${path}`, { redirect: 'manual', headers: { cookie: cookie() } });
  keep(res);
  return res;
};
const post = async (path: string, form: Record<string, string>) => {
  const res = await fetch(`${url}${path}`, { method: 'POST', redirect: 'manual', headers: { cookie: cookie(), 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
  keep(res);
  return res;
};
const csrf = (html: string) => /name="_csrf" value="([^"]+)"/.exec(html)?.[1] ?? '';
const email = 'bench@pages.test';
const signInPage = await (await get('/account/sign-in')).text();
await post('/account/sign-in', { _csrf: csrf(signInPage), email, return_to: '/account' });
const code = /\b(\d{3})[ -]?(\d{3})\b/.exec(mail.find((m) => m.to === email)!.text)!.slice(1).join('');
const codePage = await (await get('/account/sign-in')).text();
await post('/account/sign-in/code', { _csrf: csrf(codePage), email, code, return_to: '/account' });
await pool.query(`INSERT INTO memberships (workspace_id, user_id, role) SELECT $1, id, 'member' FROM users WHERE email = $2`, [WS, email]);

const w = `/account/w/${WS}`;
const PAGES: Array<[string, string]> = [
  ['signals (newest)', `${w}/signals`],
  ['signals, type filter', `${w}/signals?type=need`],
  ['signals, product + writer', `${w}/signals?product=${PROD}&by=key:key_bench`],
  ['signals, one source', `${w}/signals?source=src_b0000042`],
  ['signals, page 50 (cursor)', ''],
  ['one signal', `${w}/signals/sig_b0050000`],
  ['opportunities', `${w}/opportunities`],
  ['opportunities, page 40', `${w}/opportunities?product=${PROD}&page=40`],
  ['one opportunity', `${w}/opportunities/opp_b000500`],
  ['sources (newest)', `${w}/sources`],
  ['sources, one word', `${w}/sources?q=export`],
  ['sources, sentence', `${w}/sources?q=customers+say+the+invoice+keeps+failing`],
  ['sources, word + filter', `${w}/sources?q=okta&type=conversation&since=2020-01-01`],
  ['one source (2,000 turns), page 1', `${w}/sources/src_b0000001`],
  ['one source, page 15', `${w}/sources/src_b0000001?from=1400`],
  ['shaping notes', `${w}/notes`],
  ['one shaping note', `${w}/notes/shn_b500`],
];
// The cursor of the 50th page of signals, followed as a person would.
let cursorPath = `${w}/signals`;
for (let i = 0; i < 49; i++) cursorPath = /href="([^"]+after=[^"]+)">Older signals/.exec(await (await get(cursorPath)).text())![1]!.replace(/&amp;/g, '&');
PAGES[4]![1] = cursorPath;

const rows: string[] = [];
for (const [name, p] of PAGES) {
  const times: number[] = [];
  for (let i = 0; i < CALLS + 2; i++) {
    const t0 = performance.now();
    const res = await get(p);
    await res.text();
    if (res.status !== 200) throw new Error(`${name}: ${res.status}`);
    if (i >= 2) times.push(performance.now() - t0); // the first two warm the caches and plans
  }
  times.sort((a, b) => a - b);
  rows.push(`| ${name.padEnd(34)} | ${String(round(percentile(times, 50), 1)).padStart(7)} | ${String(round(percentile(times, 95), 1)).padStart(7)} | ${String(round(times[times.length - 1]!, 1)).padStart(7)} |`);
}
console.log(`evidence pages: ${SOURCES.toLocaleString('en-US')} sources, ${SIGNALS.toLocaleString('en-US')} signals, 1,000 notes (loaded in ${loadSeconds} s); ${CALLS} requests each, ms`);
console.log(machine());
console.log(`| ${'page'.padEnd(34)} |     p50 |     p95 |     max |\n| ${'-'.repeat(34)} | ------- | ------- | ------- |\n${rows.join('\n')}`);
await server.close(0);
await t.close();
await rm(dataDir, { recursive: true, force: true });
