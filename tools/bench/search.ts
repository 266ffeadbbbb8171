/**
 * find_sources at scale (issue 22): realistic multi-turn support conversations are loaded through the
 * ingestion API (as customers send them) up to each scale, the worker turns them into sources, then
 * every query shape (one word, a natural-language sentence, a quoted phrase, a miss; with and without
 * filters) is called over MCP, and p50/p99, the size of the search indexes and the delay from a
 * record's 202 to find_sources returning it are printed.
 *
 *   npm run bench:search      BENCH_SEARCH_SCALES (default 10000,100000,1000000), BENCH_SEARCH_CALLS per shape (default 200: the p99 is then the 198th of 200 calls)
 *
 * BENCH_SEARCH_WHILE_INGESTING=20000 (issue 46) then measures the shapes again at each scale while that
 * many more records are sent into the same workspace (2 clients) and the worker turns them into
 * sources: rounds of every shape until the worker is done (at most BENCH_SEARCH_CALLS rounds).
 *
 * With BENCH_URL and BENCH_DATABASE_URL it runs against a service already started (npm start with
 * PER_IP_LIMIT_PER_MINUTE raised) and leaves it and its data in place; BENCH_SEARCH_WORKSPACE=ws_…
 * then measures that earlier run's workspace again as it is, loading nothing.
 */
import { randomBytes } from 'node:crypto';
import http from 'node:http';
import os from 'node:os';
import { pathToFileURL } from 'node:url';
import { createApiKey } from '@loupe/api-keys';
import { createPool, createPrismaClient } from '@loupe/db';
import { grantCredits } from '@loupe/credits';
import { vocabularyState } from '@loupe/sources';
import { createProject } from '@loupe/workspaces';
import { benchTenant, machine, percentile, postOnce, round, sampleHealth, sampleLatency, startBenchService, waitEmbedded, type BenchTarget, type BenchTenant } from './lib';
import { seeded } from '../eval/seeded';

export interface LatencyFigures {
  p50: number;
  p99: number;
  max: number;
}

const latencyFigures = (sorted: number[]): LatencyFigures => ({ p50: round(percentile(sorted, 50), 1), p99: round(percentile(sorted, 99), 1), max: round(sorted.at(-1) ?? 0, 1) });

export interface SearchShapeFigures {
  shape: string;
  filtered: boolean;
  p50: number;
  p99: number;
  max: number;
  /** Mean `total` answered (a lower bound where the tool says so). */
  meanTotal: number;
  errors: number;
}

export interface SearchScaleFigures {
  /** The 1-minute load average of the machine while the shapes were measured (2 cores: above 2 is queueing). */
  loadAverage: number;
  sources: number;
  segments: number;
  loadSeconds: number;
  /** Records per second from the first request to the last source written, for this step. */
  loadRecordsPerSecond: number;
  shapes: SearchShapeFigures[];
  /** The same shapes while more records were ingested and processed (BENCH_SEARCH_WHILE_INGESTING). */
  whileIngesting?: {
    records: number; recordsPerSecond: number; rounds: number; loadAverage: number; shapes: SearchShapeFigures[];
    /** Meanwhile, every 20 ms: the service's /healthz (the process alone) and `SELECT 1` on the database. */
    stalls: { healthz: LatencyFigures; database: LatencyFigures };
  };
  /** The GIN index of the sources' document vectors. */
  indexBytes: number;
  tableBytes: { sources: number; segments: number };
  /** From a record's 202 to find_sources returning its source, ms. */
  searchableAfterMs: number;
  /** After the load: seconds until the worker had embedded every source and the MCP process's semantic index held them. */
  semanticReadySeconds: number;
  /** The workspace's vocabulary for search once the worker was done: sources it was learned among and from, its size. */
  vocabulary?: { sources: number; sampled: number; bytes: number };
}

export interface SearchFigures {
  machine: string;
  settings: string;
  scales: SearchScaleFigures[];
}

// --- realistic conversations ------------------------------------------------------------------------------


const TOPICS: Array<{ subject: string; customer: string[]; agent: string[] }> = [
  { subject: 'Export to CSV times out', customer: ['The export to CSV times out for our larger projects.', 'When I export to CSV the file is missing the custom fields.', 'We need the CSV export every Monday for the finance review.'], agent: ['Large exports run in the background now; you get an email with the file.', 'Could you tell me roughly how many rows the export has?'] },
  { subject: 'Onboarding new hires', customer: ['Our new hires find the onboarding checklist confusing.', 'Onboarding takes our team almost two weeks, mostly waiting for access.', 'Is there a way to skip the onboarding tour for admins?'], agent: ['You can assign an onboarding template to each new member.', 'I shared a guide on onboarding teams of more than fifty people.'] },
  { subject: 'SSO with Okta', customer: ['We want single sign-on with Okta before rolling out to the whole company.', 'Our IT department requires SAML for every tool we buy.', 'The Okta login loops back to the sign-in page.'], agent: ['SAML single sign-on is part of the enterprise plan.', 'Please check that the ACS URL in Okta matches the one in your settings.'] },
  { subject: 'Invoice shows the wrong amount', customer: ['This month\'s invoice charges us for seats we removed.', 'The invoice PDF has the wrong billing address.', 'Can we pay invoices by bank transfer instead of card?'], agent: ['I refunded the difference on the invoice.', 'Seats removed mid-cycle are credited on the next invoice.'] },
  { subject: 'Webhooks stopped firing', customer: ['Our webhooks stopped firing yesterday afternoon.', 'Webhook deliveries arrive twice for the same event.', 'Is there a retry policy for failed webhooks?'], agent: ['Webhook deliveries are retried with backoff for 24 hours.', 'I see timeouts from your endpoint in the webhook logs.'] },
  { subject: 'Dashboard is slow', customer: ['The dashboard takes ten seconds to load every morning.', 'Charts on the dashboard show yesterday\'s numbers.', 'Could the dashboard remember my filters?'], agent: ['We found a slow query behind the dashboard and fixed it.', 'Dashboard data refreshes every fifteen minutes.'] },
  { subject: 'Mobile app crashes', customer: ['The mobile app crashes when I open a photo attachment.', 'Push notifications on the mobile app arrive hours late.', 'The Android app logs me out every day.'], agent: ['Version 4.2 of the mobile app fixes the crash on attachments.', 'Could you send the crash report from the app settings?'] },
  { subject: 'Permissions for contractors', customer: ['We need a role for contractors that hides billing.', 'Guests can see projects they were never invited to.', 'Can permissions be set per folder?'], agent: ['Custom roles let you hide billing from contractors.', 'Folder-level permissions are on the roadmap for next quarter.'] },
  { subject: 'Salesforce integration', customer: ['The Salesforce integration duplicates contacts.', 'Opportunities from Salesforce do not sync the close date.', 'We would like the Salesforce sync to run hourly.'], agent: ['The Salesforce sync matches contacts by email address.', 'I reset the Salesforce connection; the next sync should be clean.'] },
  { subject: 'Slack notifications', customer: ['Slack notifications go to the wrong channel.', 'Can we mute Slack alerts on weekends?', 'Too many Slack messages for small changes.'], agent: ['Each project can post to its own Slack channel.', 'Notification digests bundle small changes into one Slack message.'] },
  { subject: 'Audit log retention', customer: ['Our auditors ask for two years of audit log history.', 'The audit log does not show who exported data.', 'Can we stream the audit log to our SIEM?'], agent: ['Audit log retention is one year on the business plan.', 'Exports are recorded in the audit log since last release.'] },
  { subject: 'Pricing for more seats', customer: ['What would pricing look like for two hundred seats?', 'The price per seat is too high for occasional users.', 'Do you offer discounts for nonprofits?'], agent: ['Read-only seats are free on every plan.', 'I asked sales to prepare a quote for two hundred seats.'] },
  { subject: 'Data import from spreadsheets', customer: ['Importing our spreadsheet fails at row four thousand.', 'The import wizard does not recognise dates in European format.', 'Can we import attachments with the spreadsheet?'], agent: ['The import accepts up to fifty thousand rows per file.', 'Set the date format in step two of the import wizard.'] },
  { subject: 'Calendar sync', customer: ['Calendar sync with Google creates duplicate events.', 'Outlook calendar sync stopped after the password change.', 'Meetings booked in the app do not appear in my calendar.'], agent: ['Reconnect the calendar after a password change.', 'Duplicate events come from two connected calendars.'] },
  { subject: 'Two-factor authentication', customer: ['We want to enforce two-factor authentication for everyone.', 'I lost my phone and cannot pass two-factor.', 'Can two-factor use hardware keys?'], agent: ['Admins can require two-factor for the whole workspace.', 'Hardware security keys work with two-factor since version 5.'] },
  { subject: 'Search does not find documents', customer: ['Search does not find documents by their content.', 'Searching for a client name returns nothing.', 'Could search cover comments too?'], agent: ['Documents are indexed for search within a few minutes.', 'Search covers titles and content, not comments yet.'] },
  { subject: 'API rate limits', customer: ['We hit the API rate limit during the nightly job.', 'The API returns 429 even at low volume.', 'Is there a bulk endpoint in the API?'], agent: ['The API allows one thousand requests per minute per key.', 'Use the batch endpoint to send up to one thousand items per request.'] },
  { subject: 'Reports for managers', customer: ['Managers want a weekly report by email.', 'The utilisation report counts holidays as idle time.', 'Can reports be scheduled for the first Monday of the month?'], agent: ['Scheduled reports can go to any email address.', 'Holidays are excluded from utilisation in the new report.'] },
  { subject: 'Email templates', customer: ['Email templates lose their formatting when sent.', 'We need email templates in German and French.', 'Can email templates include the customer\'s logo?'], agent: ['Templates support several languages per workspace.', 'Logos are added under branding in the template editor.'] },
  { subject: 'GDPR data deletion', customer: ['A customer asked us to delete all their personal data.', 'Where is our data stored for GDPR purposes?', 'We need a data processing agreement signed.'], agent: ['Deleting a contact removes their personal data within thirty days.', 'Data is stored in Frankfurt for European workspaces.'] },
];

const GENERIC_CUSTOMER = ['Hi, thanks for getting back to me.', 'It happens to most of our team, not just me.', 'This is blocking our rollout.', 'We are on the business plan.', 'Any update on this?', 'That would help a lot.', 'I tried again this morning with the same result.', 'Our manager asked me to follow up.'];
const GENERIC_AGENT = ['Thanks for reaching out!', 'Sorry for the trouble.', 'Let me check with the team and come back to you.', 'I have escalated this to engineering.', 'Is there anything else I can help with?', 'Could you share a screenshot?', 'I will keep this ticket open until it is solved.'];
const FIRST = ['Ada', 'Bo', 'Cy', 'Dana', 'Eve', 'Finn', 'Gia', 'Hugo', 'Ines', 'Jon', 'Kai', 'Lea', 'Mo', 'Noa', 'Oli', 'Pia'];
const SYLLABLES = ['ka', 'lo', 'mi', 'ra', 'to', 've', 'zu', 'bri', 'cor', 'dex', 'fen', 'gal', 'hol', 'jin', 'nor', 'pel', 'quin', 'sar', 'tek', 'vor'];

/** One conversation record of 4–12 turns about one topic, with a company name that makes rare words. */
function conversation(t: BenchTenant, projects: string[], i: number, run: string, random: () => number): Record<string, unknown> {
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)]!;
  const topic = pick(TOPICS);
  const company = pick(SYLLABLES) + pick(SYLLABLES) + pick(SYLLABLES);
  const customer = pick(FIRST);
  const agent = pick(FIRST);
  const turns = 4 + Math.floor(random() * 9);
  const messages = Array.from({ length: turns }, (_, k) => {
    const isCustomer = k % 2 === 0;
    const own = isCustomer ? topic.customer : topic.agent;
    const sentences = [random() < 0.6 ? pick(own) : pick(isCustomer ? GENERIC_CUSTOMER : GENERIC_AGENT)];
    if (random() < 0.5) sentences.push(pick(isCustomer ? GENERIC_CUSTOMER : GENERIC_AGENT));
    if (isCustomer && random() < 0.3) sentences.push(`We are ${company}, ticket ${Math.floor(random() * 100000)}.`);
    return { author: isCustomer ? `${customer} (${company})` : `${agent} (Support)`, text: sentences.join(' ') };
  });
  return {
    _type: 'conversation',
    _schema_version: '1.0.0',
    _event_at: new Date(Date.UTC(2025, 0, 1) + i * 30_000).toISOString(),
    _vendor_ids: { zendesk: `${run}-${i}` },
    _product_id: t.productId,
    _project_ids: [projects[i % projects.length]!],
    _nature: 'evidence',
    _participants: [{ id: `cust-${customer}`, role: 'external', name: customer }, { id: `agent-${agent}`, role: 'internal', name: agent }],
    _tags: ['bench'],
    data: { subject: `${topic.subject} (${company})`, messages },
  };
}

// --- loading ----------------------------------------------------------------------------------------------

const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });

async function ingest(service: BenchTarget, key: string, records: unknown[]): Promise<number> {
  for (;;) {
    const res = await postOnce(new URL(`${service.url}/api/v1/ingest`), agent, { 'content-type': 'application/json', 'x-api-key': key }, JSON.stringify(records));
    if (res.status === 202) return (JSON.parse(res.text) as { acceptedCount: number }).acceptedCount;
    if (res.status === 429 || res.status === 503) {
      await new Promise((r) => setTimeout(r, 500));
      continue;
    }
    throw new Error(`ingest answered ${res.status}: ${res.text.slice(0, 300)}`);
  }
}

/** Sends records up to `target` from `clients` clients, 1,000 per request, then waits for the worker. */
async function loadUpTo(service: BenchTarget, t: BenchTenant, projects: string[], from: number, target: number, run: string) {
  const started = performance.now();
  let next = from;
  let accepted = 0;
  const random = seeded(from + 1);
  await Promise.all(t.keys.map(async (key) => {
    while (next < target) {
      const start = next;
      const n = Math.min(1000, target - start);
      next += n;
      const records = Array.from({ length: n }, (_, k) => conversation(t, projects, start + k, run, random));
      accepted += await ingest(service, key, records);
    }
  }));
  for (;;) {
    const { rows } = await service.pool.query<{ n: number; failed: number }>(
      `SELECT coalesce(sum(processed_count), 0)::int AS n, count(*) FILTER (WHERE status = 'FAILED')::int AS failed FROM batches WHERE workspace_id = $1`,
      [t.workspaceId],
    );
    if (rows[0]!.failed) throw new Error(`${rows[0]!.failed} batches FAILED`);
    if (rows[0]!.n >= target) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const seconds = (performance.now() - started) / 1000;
  return { seconds, recordsPerSecond: (target - from) / seconds, accepted };
}

// --- querying over MCP ---------------------------------------------------------------------------------------

const CALLS_PER_KEY = 900; // under the 1,000 calls an hour of spec 8.1

class Keys {
  private used = 0;
  constructor(private readonly keys: string[]) {}
  next(): string {
    const k = this.keys[Math.floor(this.used++ / CALLS_PER_KEY)];
    if (!k) throw new Error('the bench ran out of MCP keys');
    return k;
  }
}

async function mcpKeys(service: BenchTarget, t: BenchTenant, count: number): Promise<Keys> {
  await grantCredits(service.pool, t.workspaceId, 100_000_000, 'bench', 'bench credits');
  const keys: string[] = [];
  for (let i = 0; i < count; i++) {
    keys.push((await createApiKey(service.db, { workspaceId: t.workspaceId, name: `search bench ${i}`, permissions: ['mcp:read'], defaultProductId: t.productId, servicePrefix: 'loupe_' })).key);
  }
  return new Keys(keys);
}

async function findSources(service: BenchTarget, key: string, args: Record<string, unknown>, tool = 'find_sources'): Promise<{ ms: number; total: number; ids: string[]; ok: boolean; text: string }> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: tool, arguments: args } });
  const started = performance.now();
  const res = await postOnce(new URL(`${service.url}/api/mcp`), agent, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key }, body);
  const ms = performance.now() - started;
  const parsed = res.status === 200 ? (JSON.parse(res.text) as { result?: { isError?: boolean; structuredContent?: { total: number; items: Array<{ id: string }> } } }) : undefined;
  const content = parsed?.result?.structuredContent;
  const ok = !!content && !parsed?.result?.isError;
  return { ms, total: content?.total ?? 0, ids: content?.items?.map((i) => i.id) ?? [], ok, text: ok ? '' : res.text.slice(0, 300) };
}

/** Each shape with a few variants, so a run is not one query repeated. */
const SHAPES: Array<{ shape: string; queries: string[] }> = [
  { shape: 'one word', queries: ['webhooks', 'onboarding', 'invoice', 'salesforce', 'dashboard'] },
  { shape: 'sentence', queries: ['customers struggling with the onboarding checklist', 'why does the csv export keep failing for big projects', 'our team cannot log in with okta single sign-on', 'the invoice charged us for removed seats again', 'slack alerts are posted in the wrong channel'] },
  { shape: 'phrase', queries: ['"export to CSV"', '"audit log"', '"mobile app crashes"', '"two-factor authentication"', '"rate limit"'] },
  { shape: 'miss', queries: ['zebrafish', 'xylophone quartet', '"purple submarine"', 'kilimanjaro', 'photosynthesis'] },
];

async function measureShapes(
  service: BenchTarget, keys: Keys, t: BenchTenant, projects: string[], sources: number, calls: number, options: { until?: () => boolean; warm?: boolean } = {},
): Promise<SearchShapeFigures[] & { rounds?: number }> {
  // Filters: one of the two projects, and the latest ~30 % of the dates.
  const since = new Date(Date.UTC(2025, 0, 1) + Math.floor(sources * 0.7) * 30_000).toISOString();
  const filters = { product_id: t.productId, project_id: projects[0], since };
  // The floor: get_products (auth, limits, one small query, the charge) in the same rounds, so a
  // shared machine's noise shows beside the search figures.
  const plan = [...SHAPES.flatMap((s) => [false, true].map((filtered) => ({ ...s, filtered, tool: 'find_sources' }))),
    { shape: 'get_products (floor)', queries: [''], filtered: false, tool: 'get_products' }];
  const args = (p: (typeof plan)[number], i: number) =>
    p.tool === 'get_products' ? {} : { query: p.queries[i % p.queries.length], ...(p.filtered ? filters : {}) };
  // Warm-up: every query once (plans, caches, the word statistics).
  if (options.warm !== false) for (const p of plan) for (let i = 0; i < p.queries.length; i++) await findSources(service, keys.next(), args(p, i), p.tool);
  const samples = new Map(plan.map((p) => [`${p.shape}|${p.filtered}`, { ms: [] as number[], totals: [] as number[], errors: 0 }]));
  // Interleaved: each round calls every shape once, so noise spreads over all of them.
  let rounds = 0;
  for (let i = 0; i < calls && !options.until?.(); i++, rounds++) {
    for (const p of plan) {
      const r = await findSources(service, keys.next(), args(p, i), p.tool);
      const s = samples.get(`${p.shape}|${p.filtered}`)!;
      if (r.ok) {
        s.ms.push(r.ms);
        s.totals.push(r.total);
      } else {
        s.errors++;
        if (s.errors === 1) console.error(`find_sources failed (${p.shape}): ${r.text}`);
      }
    }
  }
  return Object.assign(plan.map((p) => {
    const s = samples.get(`${p.shape}|${p.filtered}`)!;
    const sorted = [...s.ms].sort((a, b) => a - b);
    return {
      shape: p.shape, filtered: p.filtered, p50: round(percentile(sorted, 50), 1), p99: round(percentile(sorted, 99), 1), max: round(sorted.at(-1) ?? 0, 1),
      meanTotal: round(s.totals.reduce((a, b) => a + b, 0) / Math.max(1, s.totals.length)), errors: s.errors,
    };
  }), { rounds });
}

/** From a record's 202 to find_sources returning its source (a word no other record has). */
/** Waits until the worker is done with the workspace's sources (their vectors, its vocabulary) and find_sources no longer says some are not yet searchable by meaning. */
async function semanticReady(service: BenchTarget, t: BenchTenant, keys: Keys): Promise<number> {
  const started = performance.now();
  await waitEmbedded(service.pool, t.workspaceId);
  for (;;) {
    const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'find_sources', arguments: { query: 'warm up', limit: 1 } } });
    const res = await postOnce(new URL(`${service.url}/api/mcp`), agent, { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': keys.next() }, body);
    if (!/not_yet_searchable/.test(res.text)) return (performance.now() - started) / 1000;
    await new Promise((res2) => setTimeout(res2, 500));
  }
}

async function searchableAfter(service: BenchTarget, t: BenchTenant, projects: string[], keys: Keys): Promise<number> {
  const word = `zq${randomBytes(5).toString('hex')}`;
  const record = conversation(t, projects, 0, `probe-${word}`, seeded(7));
  (record.data as { messages: Array<{ text: string }> }).messages[0]!.text += ` The ${word} widget is broken.`;
  const sent = performance.now();
  await ingest(service, t.keys[0]!, [record]);
  for (;;) {
    const r = await findSources(service, keys.next(), { query: word });
    if (r.total > 0) return performance.now() - sent;
    if (performance.now() - sent > 120_000) throw new Error('the probe record was not searchable within 2 minutes');
    await new Promise((res) => setTimeout(res, 50));
  }
}

export async function runSearchBench(options: { scales?: number[]; calls?: number; service?: BenchTarget } = {}): Promise<SearchFigures> {
  const scales = options.scales ?? (process.env.BENCH_SEARCH_SCALES ?? '10000,100000,1000000').split(',').map(Number);
  const calls = options.calls ?? Number(process.env.BENCH_SEARCH_CALLS ?? 200);
  const service = options.service ?? (process.env.BENCH_URL ? runningService(process.env.BENCH_URL, process.env.BENCH_DATABASE_URL!) : await startBenchService());
  try {
    const reuse = process.env.BENCH_SEARCH_WORKSPACE;
    const { t, projects, loadedBefore } = reuse ? await existingTenant(service, reuse) : await newTenant(service);
    const keys = await mcpKeys(service, t, Math.ceil(((scales.length * (calls + 5) * 9 * (process.env.BENCH_SEARCH_WHILE_INGESTING ? 2 : 1)) + 4000) / CALLS_PER_KEY));
    const run = randomBytes(4).toString('hex');
    const figures: SearchScaleFigures[] = [];
    let loaded = loadedBefore;
    for (const scale of reuse ? [loadedBefore] : scales) {
      const load = await loadUpTo(service, t, projects, loaded, scale, run);
      loaded = scale;
      console.error(`loaded ${scale} sources (${round(load.recordsPerSecond)} records/s end to end for this step)`);
      // What autovacuum does after a bulk load: fresh statistics for the planner and the word rarity.
      await service.pool.query('ANALYZE sources, source_segments');
      // Both halves of find_sources as a workspace at rest has them: every source embedded and in the index.
      const semanticReadySeconds = round(await semanticReady(service, t, keys), 1);
      console.error(`semantic index ready ${semanticReadySeconds} s after the load`);
      const searchableAfterMs = await searchableAfter(service, t, projects, keys);
      loaded++;
      const load0 = os.loadavg()[0]!;
      const vocabulary = await vocabularyState(service.pool, t.workspaceId);
      const shapes = await measureShapes(service, keys, t, projects, scale, calls);
      const loadAverage = round((load0 + os.loadavg()[0]!) / 2, 1);
      const { rows: [size] } = await service.pool.query<{ doc_idx: string; sources: string; segments: string; n: number; segs: number }>(
        `SELECT pg_relation_size('sources_search_doc_idx') AS doc_idx,
                pg_table_size('sources') AS sources, pg_table_size('source_segments') AS segments,
                (SELECT count(*) FROM sources WHERE workspace_id = $1)::int AS n,
                (SELECT count(*) FROM source_segments g JOIN sources s ON s.id = g.source_id WHERE s.workspace_id = $1)::int AS segs`,
        [t.workspaceId],
      );
      const f: SearchScaleFigures = {
        loadAverage, sources: size!.n, segments: size!.segs, loadSeconds: round(load.seconds, 1), loadRecordsPerSecond: round(load.recordsPerSecond),
        shapes, indexBytes: Number(size!.doc_idx),
        tableBytes: { sources: Number(size!.sources), segments: Number(size!.segments) }, searchableAfterMs: round(searchableAfterMs), semanticReadySeconds,
        ...(vocabulary?.learned ? { vocabulary: { sources: vocabulary.sources, sampled: vocabulary.sampled, bytes: vocabulary.bytes } } : {}),
      };
      const more = Number(process.env.BENCH_SEARCH_WHILE_INGESTING ?? 0);
      if (more > 0) {
        let done = false;
        const loading = loadUpTo(service, t, projects, loaded, loaded + more, `${run}-more-${scale}`).finally(() => (done = true));
        const before = os.loadavg()[0]!;
        const stopHealth = sampleHealth(service.url);
        const stopDatabase = sampleLatency(() => service.pool.query('SELECT 1'));
        const during = await measureShapes(service, keys, t, projects, scale, calls, { until: () => done, warm: false });
        const load = await loading;
        const stalls = { healthz: latencyFigures(await stopHealth()), database: latencyFigures(await stopDatabase()) };
        loaded += more;
        f.whileIngesting = { records: more, recordsPerSecond: round(load.recordsPerSecond), rounds: during.rounds ?? 0, loadAverage: round((before + os.loadavg()[0]!) / 2, 1), shapes: [...during], stalls };
      }
      printScale(f);
      figures.push(f);
    }
    return {
      machine: machine(),
      settings: `support conversations of 4–12 turns over 20 topics, 1,000 records per request from 2 clients through POST /api/v1/ingest, worker inside the service (WORKER_CONCURRENCY=${process.env.WORKER_CONCURRENCY ?? 4}); ` +
        `${calls} calls per shape, one at a time, shapes interleaved, 5 queries per shape; filters = product + one of two projects + since (latest ~30 %); ${service.embedded ? 'embedded PostgreSQL 18' : 'DATABASE_URL'}`,
      scales: figures,
    };
  } finally {
    if (!options.service) await service.close();
  }
}

async function newTenant(service: BenchTarget) {
  const t = await benchTenant(service, 2);
  const second = await createProject(service.db, t.workspaceId, t.productId, { name: 'Second' });
  return { t, projects: [t.projectId, second.id], loadedBefore: 0 };
}

/** BENCH_SEARCH_WORKSPACE: the workspace of an earlier run, measured again as it is (nothing loaded). */
async function existingTenant(service: BenchTarget, workspaceId: string) {
  const { rows: projects } = await service.pool.query<{ id: string; product_id: string }>(
    'SELECT id, product_id FROM projects WHERE workspace_id = $1 ORDER BY created_at, id', [workspaceId]);
  const { rows: [count] } = await service.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM sources WHERE workspace_id = $1', [workspaceId]);
  const key = await createApiKey(service.db, { workspaceId, name: 'search bench ingest', permissions: ['api:write', 'api:read'], servicePrefix: 'loupe_' });
  const t: BenchTenant = { workspaceId, productId: projects[0]!.product_id, projectId: projects[0]!.id, keys: [key.key] };
  return { t, projects: projects.map((p) => p.id), loadedBefore: count!.n };
}

/** A service started by someone else: closing only closes our connections. */
function runningService(url: string, databaseUrl: string): BenchTarget {
  const pool = createPool(databaseUrl, 8);
  const db = createPrismaClient(pool);
  return {
    url, databaseUrl, pool, db, embedded: true, pid: undefined, postgresDataDir: undefined,
    async close() {
      await db.$disconnect();
      await pool.end();
    },
  };
}

const mb = (bytes: number) => `${round(bytes / 2 ** 20, 1)} MB`;

function printScale(f: SearchScaleFigures) {
  console.log(`\n${f.sources.toLocaleString('en')} sources, ${f.segments.toLocaleString('en')} segments (loaded at ${f.loadRecordsPerSecond} records/s end to end)`);
  console.log(`  index size: sources_search_doc_idx (GIN) ${mb(f.indexBytes)} (tables with their vectors: sources ${mb(f.tableBytes.sources)}, segments ${mb(f.tableBytes.segments)})`);
  console.log(`  semantic index ready ${f.semanticReadySeconds} s after the load; ingest → searchable: ${f.searchableAfterMs} ms; load average while measuring: ${f.loadAverage} (2 cores)`);
  const v = f.vocabulary;
  console.log(v ? `  vocabulary for search: learned among ${v.sources.toLocaleString('en')} sources from ${v.sampled.toLocaleString('en')} of them, ${mb(v.bytes)}` : '  vocabulary for search: none');
  const shapeLine = (s: SearchShapeFigures) =>
    `  ${(s.shape + (s.filtered ? ' + filters' : '')).padEnd(20)} p50 ${String(s.p50).padStart(6)} ms   p99 ${String(s.p99).padStart(6)} ms   max ${String(s.max).padStart(6)} ms   mean total ${s.meanTotal}${s.errors ? `   errors ${s.errors}` : ''}`;
  for (const s of f.shapes) console.log(shapeLine(s));
  const w = f.whileIngesting;
  if (w) {
    console.log(`  while ${w.records.toLocaleString('en')} more records were ingested and processed (${w.recordsPerSecond} records/s end to end, ${w.rounds} rounds, load average ${w.loadAverage}):`);
    for (const s of w.shapes) console.log(shapeLine(s));
    const line = (l: LatencyFigures) => `p50 ${l.p50} ms, p99 ${l.p99} ms, max ${l.max} ms`;
    console.log(`  meanwhile, every 20 ms: /healthz (the process alone) ${line(w.stalls.healthz)}; SELECT 1 (the database alone) ${line(w.stalls.database)}`);
  }
}

export function printSearch(f: SearchFigures) {
  console.log(`\nmachine:  ${f.machine}`);
  console.log(`settings: ${f.settings}`);
  for (const s of f.scales) printScale(s);
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  printSearch(await runSearchBench());
}
