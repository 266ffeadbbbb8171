/**
 * How well the evidence layer groups and finds what customers mean, measured through the service's own
 * API on labelled text (../shared/data: CLINC150): records are ingested (POST /api/v1/ingest), the worker
 * turns them into sources, one signal per text is added over MCP (add_signals, no theme: as an AI client
 * that gives none), and the opportunities are read back (get_opportunities + view_item) once every signal
 * is placed and no regrouping is due. Labels are used for scoring only. Then search: held-out texts (clinc150-val.csv) as
 * find_sources queries against the sources, precision@10 and how many queries find nothing.
 *
 *   npm run eval:evidence      (EVAL_PER_INTENT=10,30 samples per intent, 0 for none; EVAL_QUERIES=300 search queries, 0 for none)
 *
 * Within one domain (issue 46: where it is hard), with `--within-domain` after the default run's figures:
 * each CLINC150 domain alone (../shared/data/clinc150-domains.csv, 15 close intents each) as its own
 * workspace, that domain's 450 test texts as sources and its 300 val texts as find_sources queries
 * (precision@10 per domain and their mean, beside the same queries against all 4,500 sources); and
 * clustering at 10, 30 and 100 signals per intent (EVAL_DOMAIN_PER_INTENT) over all intents and over
 * one domain (EVAL_CLUSTER_DOMAIN=banking; `all` for each domain alone and their mean; none for none), reporting opportunities per true intent.
 * Texts come from test then val (50 per intent); beyond that, copies of them with one small
 * deterministic edit each (a word dropped, two words swapped, or two letters swapped), as the output says.
 *
 *   npm run eval:evidence -- --within-domain      (EVAL_PER_INTENT=0 EVAL_QUERIES=0 to run only this;
 *                                                  EVAL_DOMAIN_SEARCH=0 for its clustering alone)
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { createApiKey } from '@loupe/api-keys';
import { loadConfig } from '@loupe/config';
import { grantCredits } from '@loupe/credits';
import { startSemanticsThread } from '@loupe/semantics';
import { createSemanticSearch, searchSources } from '@loupe/sources';
import { createProduct, createProject } from '@loupe/workspaces';
import { benchTenant, machine, round, startBenchService, waitEmbedded, type BenchTarget } from '../bench/lib';
import { ari, largestShare, nmi, precisionAtK, readLabelledCsv } from './metrics';
import { sample, sampleWithCopies, type Labelled } from './clinc-sets';

const dataDir = path.resolve(import.meta.dirname, '../../../shared/data');
const perIntent = (process.env.EVAL_PER_INTENT ?? '10,30').split(',').map(Number).filter((n) => n > 0);
const queryCount = Number(process.env.EVAL_QUERIES ?? 300);
const withinDomain = process.argv.includes('--within-domain');
const domainPerIntent = (process.env.EVAL_DOMAIN_PER_INTENT ?? '10,30,100').split(',').map(Number).filter((n) => n > 0);
const clusterDomain = process.env.EVAL_CLUSTER_DOMAIN ?? 'banking';
const domainSearch = process.env.EVAL_DOMAIN_SEARCH !== '0';
const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;

/** An MCP client on a fresh key each 900 calls (the spec's 1,000 calls an hour per key). */
class Mcp {
  private client: Client | undefined;
  private calls = 0;
  constructor(private service: BenchTarget, private workspaceId: string, private productId: string) {}
  /** Makes sure the next `n` calls fit on the current key (call before starting calls in parallel). */
  async reserve(n: number): Promise<void> {
    if (!this.client || this.calls + n > 900) {
      await this.client?.close();
      const { key } = await createApiKey(this.service.db, {
        workspaceId: this.workspaceId, name: `eval ${Date.now()}`, permissions: ['mcp:read', 'mcp:write'], defaultProductId: this.productId, servicePrefix: 'loupe_',
      });
      this.client = new Client({ name: 'loupe-eval', version: '1.0.0' });
      await this.client.connect(new StreamableHTTPClientTransport(new URL(`${this.service.url}/api/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
      this.calls = 0;
    }
    this.calls += n;
  }
  async call(name: string, args: Record<string, unknown>, reserved = false): Promise<Record<string, any>> {
    if (!reserved) await this.reserve(1);
    const r = await this.client!.callTool({ name, arguments: args });
    if (r.isError) throw new Error(`${name}: ${JSON.stringify(r.content)}`);
    return r.structuredContent as Record<string, any>;
  }
  close() {
    return this.client?.close();
  }
}

async function ingest(service: BenchTarget, key: string, productId: string, projectId: string, rows: Labelled[], tag: string): Promise<Map<string, number>> {
  const records = rows.map((r, i) => ({
    _type: 'conversation', _schema_version: '1.0.0', _event_at: new Date(Date.UTC(2026, 0, 1) + i * 1000).toISOString(),
    _vendor_ids: { eval: `${tag}-${i}` }, _product_id: productId, _project_ids: [projectId], _nature: 'evidence',
    _participants: [{ id: `customer-${i}@example.com`, role: 'external', name: 'Customer' }],
    data: { messages: [{ author: 'Customer', text: r.text }] },
  }));
  for (let at = 0; at < records.length; at += 1_000) {
    const res = await fetch(`${service.url}/api/v1/ingest`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': key }, body: JSON.stringify(records.slice(at, at + 1_000)) });
    // Over the key's rate limit: wait as the answer says and send the same batch again, as a client should.
    if (res.status === 429) {
      await new Promise((resolve) => setTimeout(resolve, 1_000 * Number(res.headers.get('retry-after') ?? 1)));
      at -= 1_000;
      continue;
    }
    if (res.status !== 202) throw new Error(`ingest answered ${res.status}: ${await res.text()}`);
  }
  // Bookkeeping only: which source holds which text (read from the database, the way an operator would).
  for (;;) {
    const { rows: ready } = await service.pool.query<{ id: string; text: string }>(
      `SELECT s.id, g.text FROM sources s JOIN source_segments g ON g.source_id = s.id WHERE s.workspace_id = (SELECT workspace_id FROM products WHERE id = $1) AND s.product_id = $1`,
      [productId],
    );
    if (ready.length >= rows.length) {
      const byText = new Map(ready.map((r) => [r.text, r.id]));
      return new Map(rows.map((r, i) => [byText.get(r.text)!, i]));
    }
    await new Promise((r) => setTimeout(r, 250));
  }
}

async function clusteringRun(service: BenchTarget, rows: Labelled[], per: number | string) {
  const tenant = await benchTenant(service, 1);
  await grantCredits(service.pool, tenant.workspaceId, 1_000_000, `eval-${Date.now()}`);
  const product = await createProduct(service.db, tenant.workspaceId, { name: `CLINC ${per}` });
  const project = await createProject(service.db, tenant.workspaceId, product.id, { name: 'Eval' });
  const started = Date.now();
  const sourceOf = await ingest(service, tenant.keys[0]!, product.id, project.id, rows, `c${String(per).replace(/\W+/g, '-')}`);
  const ingested = Date.now();
  const mcp = new Mcp(service, tenant.workspaceId, product.id);
  const indexOfSignal = new Map<string, number>();
  const sources = [...sourceOf.entries()];
  // One source per text, so one add_signals call per signal, 16 at a time.
  for (let at = 0; at < sources.length; at += 16) {
    const slice = sources.slice(at, at + 16);
    await mcp.reserve(slice.length);
    await Promise.all(
      slice.map(async ([sourceId, i]) => {
        const text = rows[i]!.text;
        const out = await mcp.call('add_signals', { source_id: sourceId, signals: [{ type: 'feedback', title: text.slice(0, 200), content: text }] }, true);
        indexOfSignal.set(out.signals[0].id, i);
      }),
    );
  }
  const added = Date.now();
  let listed: any;
  for (;;) {
    listed = await mcp.call('get_opportunities', { limit: 100 });
    if (listed.pending_signals === 0 && !listed.regrouping_soon) break;
    await new Promise((r) => setTimeout(r, 500));
  }
  const settled = Date.now();
  const clusterOf = new Array<string>(rows.length);
  let offset: number | undefined = 0;
  while (offset !== undefined) {
    const page = await mcp.call('get_opportunities', { limit: 100, offset });
    for (const o of page.items) {
      let evidenceOffset: number | undefined = 0;
      while (evidenceOffset !== undefined) {
        const view = await mcp.call('view_item', { item_id: o.id, item_type: 'opportunity', offset: evidenceOffset });
        for (const e of view.item.evidence) clusterOf[indexOfSignal.get(e.id)!] = o.id;
        evidenceOffset = view.item.evidence_next_offset;
      }
    }
    offset = page.next_offset;
  }
  await mcp.close();
  const labels = rows.map((r) => r.label);
  const clusters = clusterOf.map((c, i) => c ?? `unplaced-${i}`);
  const intents = new Set(labels).size;
  // How many opportunities an intent's signals are spread over, on average.
  const spread = new Map<string, Set<string>>();
  labels.forEach((l, i) => spread.set(l, (spread.get(l) ?? new Set()).add(clusters[i]!)));
  return {
    intents, perIntent: round(new Set(clusters).size / intents, 2), spread: round([...spread.values()].reduce((a, c) => a + c.size, 0) / intents, 2),
    per, signals: rows.length, nmi: round(nmi(labels, clusters), 3), ari: round(ari(labels, clusters), 3),
    opportunities: new Set(clusters).size, largestShare: round(largestShare(clusters) * 100, 1), unplaced: clusterOf.filter((c) => !c).length,
    ingestSeconds: round((ingested - started) / 1000, 1), addSeconds: round((added - ingested) / 1000, 1), settleSeconds: round((settled - added) / 1000, 1),
  };
}

/** Waits until the worker is done with the workspace's sources (their vectors, its vocabulary) and the service's index holds them. */
async function waitSearchable(service: BenchTarget, workspaceId: string, mcp: Mcp, productId: string): Promise<void> {
  await waitEmbedded(service.pool, workspaceId);
  for (;;) {
    const out = await mcp.call('find_sources', { query: 'warm up', product_id: productId, limit: 1 });
    if (!out.not_yet_searchable) return;
    await new Promise((r) => setTimeout(r, 200));
  }
}

type Ranker = (query: string) => Promise<string[]>;

async function precisionOf(rank: Ranker, corpus: Labelled[], sourceOf: Map<string, number>, queries: Labelled[]) {
  const results: string[][] = [];
  const latencies: number[] = [];
  for (const q of queries) {
    const t = performance.now();
    const ids = await rank(q.text);
    latencies.push(performance.now() - t);
    results.push(ids.slice(0, 10).map((id) => corpus[sourceOf.get(id)!]?.label ?? '?'));
  }
  latencies.sort((a, b) => a - b);
  return {
    perQuery: results.map((r, i) => precisionAtK([queries[i]!.label], [r], 10)),
    results,
    precisionAt10: round(precisionAtK(queries.map((q) => q.label), results, 10), 3),
    empty: results.filter((r) => r.length === 0).length, p50Ms: round(latencies[Math.floor(latencies.length / 2)]!, 1),
  };
}

/**
 * Search quality three ways over the same sources: find_sources as a client calls it (lexical and
 * semantic fused), and each half alone through the libraries (the lexical search, and a semantic
 * index of the eval's own), to show what the fusion adds.
 */
async function searchRun(service: BenchTarget, corpus: Labelled[], queries: Labelled[]) {
  const tenant = await benchTenant(service, 1);
  await grantCredits(service.pool, tenant.workspaceId, 1_000_000, `eval-${Date.now()}`);
  const product = await createProduct(service.db, tenant.workspaceId, { name: 'Search' });
  const project = await createProject(service.db, tenant.workspaceId, product.id, { name: 'Eval' });
  const sourceOf = await ingest(service, tenant.keys[0]!, product.id, project.id, corpus, 's');
  const mcp = new Mcp(service, tenant.workspaceId, product.id);
  await waitSearchable(service, tenant.workspaceId, mcp, product.id);
  // The service's embedding (EMBEDDINGS_URL, or the built-in vectors), so its vectors are the ones searched.
  const thread = startSemanticsThread({ embeddings: loadConfig().embeddings });
  const semantic = createSemanticSearch({ pool: service.pool, semantics: thread });
  try {
    const fused = await precisionOf(async (q) => {
      // A query of common words alone that nothing answers is refused: it found nothing.
      const out = await mcp.call('find_sources', { query: q, product_id: product.id, limit: 10 }).catch(() => ({ items: [] }));
      return (out.items as Array<{ id: string }>).map((s) => s.id);
    }, corpus, sourceOf, queries);
    const lexical = await precisionOf(async (q) => {
      const page = await searchSources(service.pool, tenant.workspaceId, { query: q, limit: 10, filters: { productId: product.id } }).catch(() => undefined);
      return page?.items.map((s) => s.id) ?? [];
    }, corpus, sourceOf, queries);
    for (let found = await semantic.search(tenant.workspaceId, 'warm up', {}, 1); found.indexing; found = await semantic.search(tenant.workspaceId, 'warm up', {}, 1)) {
      await new Promise((r) => setTimeout(r, 200));
    }
    const alone = await precisionOf(async (q) => (await semantic.search(tenant.workspaceId, q, { productId: product.id }, 10)).hits.map((h) => h.sourceId), corpus, sourceOf, queries);
    return { queries: queries.length, sources: corpus.length, fused, lexical, semantic: alone };
  } finally {
    await mcp.close();
    await thread.close();
  }
}

/** Search within each domain alone, beside the same queries against every domain's sources. */
async function domainSearchRun(service: BenchTarget, test: Labelled[], val: Labelled[], domains: string[], domainOf: Map<string, string>) {
  console.log('\nSearch: a domain\'s clinc150-val texts as find_sources queries against that domain\'s clinc150-test texts only, beside the same queries against all 4,500 test texts:');
  const all = await searchRun(service, test, val);
  const table: string[] = [];
  const means = { fused: [] as number[], lexical: [] as number[], semantic: [] as number[], all: [] as number[], wrongHere: [] as number[] };
  for (const domain of domains) {
    const corpus = test.filter((r) => domainOf.get(r.label) === domain);
    const queries = val.filter((r) => domainOf.get(r.label) === domain);
    const s = await searchRun(service, corpus, queries);
    const allHere = mean(all.fused.perQuery.filter((_, i) => domainOf.get(val[i]!.label) === domain));
    // Of the wrong answers these queries get among all 4,500 sources, the share from their own domain (a close intent).
    let wrong = 0;
    let wrongHere = 0;
    all.fused.results.forEach((labels, i) => {
      if (domainOf.get(val[i]!.label) !== domain) return;
      for (const l of labels) {
        if (l === val[i]!.label) continue;
        wrong++;
        if (domainOf.get(l) === domain) wrongHere++;
      }
    });
    means.wrongHere.push(wrongHere / wrong);
    means.fused.push(s.fused.precisionAt10);
    means.lexical.push(s.lexical.precisionAt10);
    means.semantic.push(s.semantic.precisionAt10);
    means.all.push(allHere);
    table.push(`| ${domain} | ${s.sources} | ${s.queries} | **${s.fused.precisionAt10}** | ${s.lexical.precisionAt10} | ${s.semantic.precisionAt10} | ${round(allHere, 3)} | ${round((100 * wrongHere) / wrong, 1)} % | ${s.fused.empty} | ${s.fused.p50Ms} |`);
  }
  console.log('| domain | sources | queries | find_sources p@10, domain alone | lexical alone | semantic alone | find_sources p@10, same queries, all 4,500 sources | of their wrong answers there, from the same domain | answered with nothing | p50 ms |');
  console.log('|---|---|---|---|---|---|---|---|---|---|');
  for (const line of table) console.log(line);
  console.log(`| **mean of the domains** | | | **${round(mean(means.fused), 3)}** | ${round(mean(means.lexical), 3)} | ${round(mean(means.semantic), 3)} | ${round(mean(means.all), 3)} | ${round(100 * mean(means.wrongHere), 1)} % | | |`);
  console.log(`| all domains, one workspace (all ${all.queries} val texts, ${all.sources} sources) | | | ${all.fused.precisionAt10} | ${all.lexical.precisionAt10} | ${all.semantic.precisionAt10} | | | ${all.fused.empty} | ${all.fused.p50Ms} |`);

}

/** Issue 46, item 1: search and clustering within one domain, where the intents are close. */
async function withinDomainRun(service: BenchTarget, test: Labelled[], val: Labelled[]) {
  const domainOf = new Map(
    (await readFile(path.join(dataDir, 'clinc150-domains.csv'), 'utf8')).trim().split('\n').slice(1).map((line) => line.split(',') as [string, string]),
  );
  const domains = [...new Set(domainOf.values())].sort();
  console.log(`\nWithin one domain (--within-domain): each of the ${domains.length} CLINC150 domains alone, its own workspace.`);
  if (domainSearch) await domainSearchRun(service, test, val, domains, domainOf);


  const pool = [...test, ...val];
  const sets: Array<{ scope: string; rows: Labelled[] }> = [{ scope: 'all 150 intents', rows: pool }];
  for (const domain of clusterDomain === 'all' ? domains : domains.filter((d) => d === clusterDomain)) {
    sets.push({ scope: `${domain} alone`, rows: pool.filter((r) => domainOf.get(r.label) === domain) });
  }
  const alone = new Map<number, Array<{ perIntent: number; spread: number; nmi: number; ari: number }>>();
  console.log('\nOpportunities per true intent (one signal per text through add_signals, no theme). Texts: clinc150-test then clinc150-val (50 per intent);');
  console.log('beyond 50, copies of those texts with one small deterministic edit each (a word dropped, two words swapped, or two letters swapped; fixed seed), counted under "edited copies":');
  console.log('| scope | per intent | signals | edited copies | opportunities | per true intent | opportunities an intent spreads over | NMI | ARI | largest | placed after s |');
  console.log('|---|---|---|---|---|---|---|---|---|---|---|');
  for (const { scope, rows } of sets) {
    for (const per of domainPerIntent) {
      const { rows: sampled, copies } = sampleWithCopies(rows, per);
      const r = await clusteringRun(service, sampled, `${scope} ${per}`);
      console.log(`| ${scope} | ${per} | ${r.signals} | ${copies} | ${r.opportunities} | **${r.perIntent}** | ${r.spread} | ${r.nmi} | ${r.ari} | ${r.largestShare} % | ${r.settleSeconds} |${r.unplaced ? ` ${r.unplaced} unplaced!` : ''}`);
      if (scope.endsWith(' alone')) alone.set(per, [...(alone.get(per) ?? []), r]);
    }
  }
  if (clusterDomain === 'all') {
    for (const [per, rs] of alone) {
      const m = (f: (r: (typeof rs)[number]) => number) => round(mean(rs.map(f)), 3);
      console.log(`| **mean of the ${rs.length} domains alone** | ${per} | | | | **${round(mean(rs.map((r) => r.perIntent)), 2)}** | ${round(mean(rs.map((r) => r.spread)), 2)} | ${m((r) => r.nmi)} | ${m((r) => r.ari)} | | |`);
    }
  }
}

const test = readLabelledCsv(await readFile(path.join(dataDir, 'clinc150-test.csv'), 'utf8'));
const val = readLabelledCsv(await readFile(path.join(dataDir, 'clinc150-val.csv'), 'utf8'));
const service = await startBenchService();
try {
  console.log(`eval:evidence on ${machine()}`);
  if (perIntent.length > 0) {
    console.log('\nOpportunities (CLINC150 test, one signal per text through add_signals, no theme; the number of intents is not given):');
    console.log('| per intent | signals | NMI | ARI | opportunities | largest | ingest s | add_signals s | placed after s |');
    console.log('|---|---|---|---|---|---|---|---|---|');
  }
  for (const per of perIntent) {
    const r = await clusteringRun(service, sample(test, per), per);
    console.log(`| ${r.per} | ${r.signals} | ${r.nmi} | ${r.ari} | ${r.opportunities} | ${r.largestShare} % | ${r.ingestSeconds} | ${r.addSeconds} | ${r.settleSeconds} |${r.unplaced ? ` ${r.unplaced} unplaced!` : ''}`);
  }
  if (queryCount > 0) {
    const step = Math.max(1, Math.floor(val.length / queryCount));
    const queries = val.filter((_, i) => i % step === 0).slice(0, queryCount);
    const s = await searchRun(service, test, queries);
    console.log('\nSearch (find_sources, clinc150-val texts as queries against the 4,500 test texts as sources):');
    console.log(`${s.queries} queries, ${s.sources} sources.\n| ranking | precision@10 | answered with nothing | p50 ms |\n|---|---|---|---|`);
    console.log(`| find_sources (lexical + semantic, fused) | ${s.fused.precisionAt10} | ${s.fused.empty} | ${s.fused.p50Ms} |`);
    console.log(`| lexical alone | ${s.lexical.precisionAt10} | ${s.lexical.empty} | ${s.lexical.p50Ms} |`);
    console.log(`| semantic alone | ${s.semantic.precisionAt10} | ${s.semantic.empty} | ${s.semantic.p50Ms} |`);
  }
  if (withinDomain) await withinDomainRun(service, test, val);
} finally {
  await service.close();
}
