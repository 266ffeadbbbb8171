import { newId } from '@loupe/db';
import { createTestDatabase, statementsOf, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fuseRankings, lexicalSearch, queryShape, readSource, refreshSearchDocuments, SEARCH_LIMITS, searchSources, SearchQueryError } from './index';

describe('lexical search of sources', () => {
  let t: TestDatabase;
  const ws = newId('ws');
  const other = newId('ws');
  let day = 0;

  async function source(workspaceId: string, title: string, turns: Array<[string, string]>, extra: { type?: string; product?: string } = {}): Promise<string> {
    const id = newId('src');
    await t.pool.query(
      `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, participants, tags, status, segment_count)
       VALUES ($1, $2, $3, '{proj_1}', $4, 'evidence', $5, $6, '[]', '{}', 'ready', $7)`,
      [id, workspaceId, extra.product ?? 'prod_1', extra.type ?? 'conversation', title, new Date(Date.UTC(2026, 0, 1) + day++ * 86_400_000), turns.length],
    );
    await t.pool.query(
      `INSERT INTO source_segments (source_id, position, kind, speaker, text)
       SELECT $1, x.position, 'turn', x.speaker, x.text FROM json_to_recordset($2::json) AS x(position int, speaker text, text text)`,
      [id, JSON.stringify(turns.map(([speaker, text], position) => ({ position, speaker, text })))],
    );
    await refreshSearchDocuments(t.pool, [id]); // what insertSources writes with the source
    return id;
  }

  const ids = {} as Record<'phrase' | 'scattered' | 'title' | 'body' | 'onboarding' | 'document' | 'secret' | 'otherOnboarding', string>;
  beforeAll(async () => {
    t = await createTestDatabase();
    await t.pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Acme'), ($2, 'Other')", [ws, other]);
    ids.phrase = await source(ws, 'Weekly call', [['Ada', 'Hello there'], ['Bo', 'The bulk export button keeps timing out for us'], ['Ada', 'Thanks']]);
    ids.scattered = await source(ws, 'Support chat', [['Cy', 'The export of invoices is fine, but the button layout in bulk mode is odd and something keeps timing out']]);
    ids.title = await source(ws, 'Invoices reconciliation review', [['Ann', 'We looked at the quarter together'], ['Bo', 'Nothing else to add']]);
    ids.body = await source(ws, 'Quarterly sync', [['Ann', 'We talked about reconciliation of invoices for a while, among many other topics of the quarter']]);
    ids.onboarding = await source(ws, 'Chat with Globex', [
      ['Eve', 'Hi, I have a question about billing'],
      ['Bo', 'Sure, what is it?'],
      ['Eve', 'Our new hires find the onboarding flow confusing and give up halfway'],
      ['Bo', 'Sorry to hear that, I will pass it on'],
    ]);
    ids.document = await source(ws, 'Roadmap notes', [['Dan', 'Onboarding checklist for admins is planned next quarter']], { type: 'document' });
    ids.secret = await source(other, 'Zanzibar pelican escalation', [['Zed', 'The quokka integration leaks pelican data zanzibar']]);
    ids.otherOnboarding = await source(other, 'Onboarding feedback', [['Zed', 'Onboarding struggling customers onboarding onboarding']]);
    for (let i = 0; i < 40; i++) await source(ws, `Filler ${i}`, [['Al', `A day of work number ${i} with a lot of words and a cat`]]);
  });
  afterAll(() => t.close());

  it('ranks an exact phrase above the same words scattered', async () => {
    const page = await searchSources(t.pool, ws, { query: 'bulk export button timing out' });
    expect(page.matched).toBe('all_words');
    expect(page.items.map((i) => i.id).slice(0, 2)).toEqual([ids.phrase, ids.scattered]);
    const quoted = await searchSources(t.pool, ws, { query: '"bulk export button"' });
    expect(quoted.items.map((i) => i.id)).toEqual([ids.phrase]);
  });

  it('ranks a title match above a body match', async () => {
    const page = await searchSources(t.pool, ws, { query: 'invoices reconciliation' });
    expect(page.items.map((i) => i.id).slice(0, 2)).toEqual([ids.title, ids.body]);
    expect(page.items[0]!.title_matched).toBe(true);
    expect(page.items[1]!.title_matched).toBe(false);
  });

  it('answers a natural-language sentence with the sources about it', async () => {
    const page = await searchSources(t.pool, ws, { query: 'customers struggling with onboarding' });
    expect(page.matched).toBe('some_words');
    expect(page.items.map((i) => i.id)).toEqual(expect.arrayContaining([ids.onboarding, ids.document]));
    expect(page.items.map((i) => i.id)).not.toContain(ids.otherOnboarding);
  });

  it('keeps web-search syntax: -word excludes, or takes either', async () => {
    const without = await searchSources(t.pool, ws, { query: 'onboarding -checklist' });
    expect(without.items.map((i) => i.id)).toEqual([ids.onboarding]);
    const either = await searchSources(t.pool, ws, { query: 'checklist or hires' });
    expect(either.items.map((i) => i.id).sort()).toEqual([ids.onboarding, ids.document].sort());
  });

  it('excerpts point at the matching segment, with the words marked, and read_source starts there', async () => {
    const page = await searchSources(t.pool, ws, { query: 'onboarding flow' });
    const item = page.items.find((i) => i.id === ids.onboarding)!;
    expect(item.excerpts![0]).toMatchObject({ position: 2, speaker: 'Eve' });
    expect(item.excerpts![0]!.snippet).toContain('«onboarding» «flow»');
    const read = await readSource(t.pool, ws, ids.onboarding, { offset: item.excerpts![0]!.position });
    expect(read!.segments[0]!.text).toBe('Our new hires find the onboarding flow confusing and give up halfway');
  });

  it('never shows another workspace\'s sources; its planted words find nothing', async () => {
    for (const query of ['zanzibar pelican', 'quokka', '"pelican escalation"', 'zanzibar or quokka or pelican']) {
      const page = await searchSources(t.pool, ws, { query });
      expect(page.items, query).toEqual([]);
      expect(page.total, query).toBe(0);
    }
    const mine = await searchSources(t.pool, other, { query: 'zanzibar pelican' });
    expect(mine.items.map((i) => i.id)).toEqual([ids.secret]);
    // Another ranking (the semantic side) naming a foreign source cannot bring it in.
    const fused = await searchSources(t.pool, ws, { query: 'onboarding', extraRankings: [[{ sourceId: ids.secret, position: 0 }]] });
    expect(fused.items.map((i) => i.id)).not.toContain(ids.secret);
  });

  it('an offset beyond where the count stops (SEARCH_LIMITS.maxOffset) is refused; up to it, a page (empty past the end) comes back (issue 41)', async () => {
    for (const query of ['customers struggling with onboarding', undefined]) {
      await expect(searchSources(t.pool, ws, { query, offset: 1e9 })).rejects.toThrow(/^offset must be at most 10,000: results are counted and paged up to there/);
      await expect(searchSources(t.pool, ws, { query, offset: SEARCH_LIMITS.maxOffset + 1 })).rejects.toThrow(SearchQueryError);
      expect((await searchSources(t.pool, ws, { query, offset: SEARCH_LIMITS.maxOffset })).items).toEqual([]);
    }
  });

  it('"a" is no substring match: a query of stop words or exclusions only is refused', async () => {
    await expect(searchSources(t.pool, ws, { query: 'a' })).rejects.toThrow(SearchQueryError);
    await expect(searchSources(t.pool, ws, { query: 'the and of' })).rejects.toThrow(SearchQueryError);
    await expect(searchSources(t.pool, ws, { query: '-onboarding' })).rejects.toThrow(SearchQueryError);
    // "cat" is a word of the filler sources; "ca" is not a substring search.
    expect((await searchSources(t.pool, ws, { query: 'ca' })).total).toBe(0);
    expect((await searchSources(t.pool, ws, { query: 'cat' })).total).toBe(40);
  });

  it('filters, sorts by date and pages', async () => {
    const docs = await searchSources(t.pool, ws, { query: 'onboarding', filters: { sourceType: 'document' } });
    expect(docs.items.map((i) => i.id)).toEqual([ids.document]);
    const newest = await searchSources(t.pool, ws, { query: 'cat', sort: 'newest', limit: 5 });
    expect(newest.items.map((i) => i.title)).toEqual(['Filler 39', 'Filler 38', 'Filler 37', 'Filler 36', 'Filler 35']);
    expect(newest.items.every((i) => i.excerpts![0]!.snippet.includes('«cat»'))).toBe(true);
    const seen = new Set<string>();
    for (let offset = 0; offset < 40; offset += 7) {
      for (const i of (await searchSources(t.pool, ws, { query: 'cat', limit: 7, offset })).items) seen.add(i.id);
    }
    expect(seen.size).toBe(40);
    const since = await searchSources(t.pool, ws, { query: 'cat', filters: { since: new Date(Date.UTC(2026, 0, 1) + 40 * 86_400_000) } });
    expect(since.total).toBe(8); // days 40–47: fillers 32–39
  });

  it('finds the same sources whichever candidate plan the word statistics choose', async () => {
    for (const query of ['onboarding', 'customers struggling with onboarding', '"bulk export button"', 'cat', 'zanzibar']) {
      const walk = await lexicalSearch(t.pool, ws, query, {}, { plan: 'walk' });
      const index = await lexicalSearch(t.pool, ws, query, {}, { plan: 'index' });
      expect(walk.hits.map((h) => [h.sourceId, h.position]), query).toEqual(index.hits.map((h) => [h.sourceId, h.position]));
    }
    const docs = await lexicalSearch(t.pool, ws, 'onboarding', { sourceType: 'document' }, { plan: 'walk' });
    expect(docs.hits.map((h) => h.sourceId)).toEqual([ids.document]);
  });

  it('a search waits for few round trips: the query parsed as the transaction opens, the plan set only when it changes, the page read with its excerpts', async () => {
    // The word statistics are read once a pool and kept five minutes (wordStats); read them first, so that the
    // count is the search's own whichever tests ran before.
    await searchSources(t.pool, ws, { query: 'onboarding' });
    const word = await statementsOf(() => searchSources(t.pool, ws, { query: 'onboarding' }));
    // The opening (with the parse), the candidates, the page's matching segments, the page with its excerpts; then the COMMIT, not waited for.
    expect(word).toHaveLength(5);
    expect(word[0]).toMatch(/^BEGIN READ ONLY; .*SET LOCAL enable_bitmapscan = on; SET LOCAL enable_indexscan = off; SELECT websearch_to_tsquery\('english', 'onboarding'\)/);
    expect(word.at(-1)).toBe('COMMIT');
    // The strict pass, then the loose one, both through the index the transaction opened with: no SET between.
    const sentence = await statementsOf(() => searchSources(t.pool, ws, { query: 'customers struggling with onboarding' }));
    expect(sentence.filter((s) => s.startsWith('SET'))).toEqual([]);
    expect(sentence).toHaveLength(6);
    // Walking newest first (here finding too few, so handing over to the index, then walking for the loose
    // pass): each SET changes the plan, none puts back the one in force.
    const walked = await statementsOf(() => lexicalSearch(t.pool, ws, 'customers struggling with onboarding', {}, { plan: 'walk' }));
    const plans = [walked[0]!.match(/SET LOCAL enable_bitmapscan = \w+; SET LOCAL enable_indexscan = \w+/)![0], ...walked.filter((s) => s.startsWith('SET'))];
    expect(plans[1]).toBe('SET LOCAL enable_bitmapscan = off; SET LOCAL enable_indexscan = on');
    plans.slice(1).forEach((plan, i) => expect(plan).not.toBe(plans[i]));
    // A query a quote mark cannot break out of.
    const quoted = await searchSources(t.pool, ws, { query: "onboarding'; SELECT 1; --" });
    expect(quoted.items.map((i) => i.id)).toEqual(expect.arrayContaining([ids.onboarding]));
    // Nor a NUL (which PostgreSQL refuses in any text) or a lone surrogate.
    const odd = await searchSources(t.pool, ws, { query: 'onboarding\u0000flow \ud800' });
    expect(odd.items.map((i) => i.id)).toEqual(expect.arrayContaining([ids.onboarding]));
  });

  it('excerpts of sources another ranking brought: the segment it named, or the opening when it named none', async () => {
    const statements: string[] = [];
    const page = await (async () => {
      let result!: Awaited<ReturnType<typeof searchSources>>;
      statements.push(...await statementsOf(async () => {
        result = await searchSources(t.pool, ws, { query: 'zanzibar', extraRankings: [[{ sourceId: ids.phrase, position: null }, { sourceId: ids.onboarding, position: 2 }]] });
      }));
      return result;
    })();
    expect(page.matched).toBe('none');
    expect(page.items.map((i) => [i.id, i.excerpts!.map((e) => [e.position, e.speaker, e.snippet])])).toEqual([
      [ids.phrase, [[0, 'Ada', 'Hello there']]],
      [ids.onboarding, [[2, 'Eve', 'Our new hires find the onboarding flow confusing and give up halfway']]],
    ]);
    expect(statements).toHaveLength(4); // opening, candidates (none), the page with its excerpts, COMMIT
  });

  it('returns ranked (source, position, score) candidates for fusion', async () => {
    const lexical = await lexicalSearch(t.pool, ws, 'onboarding');
    expect(lexical.hits.length).toBeGreaterThanOrEqual(2);
    for (const h of lexical.hits) expect(h).toEqual({ sourceId: expect.any(String), position: expect.any(Number), score: expect.any(Number), strict: true, titleMatched: expect.any(Boolean) });
    const scores = lexical.hits.map((h) => h.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
  });
});

describe('query shape and fusion', () => {
  it('splits top-level operands of a websearch tsquery', () => {
    expect(queryShape("'custom' & 'struggl' & 'onboard'")).toEqual({ positives: ["'custom'", "'struggl'", "'onboard'"], negatives: [], topLevelOr: false });
    expect(queryShape("'bulk' <-> 'export' & !'slow'")).toEqual({ positives: ["'bulk' <-> 'export'"], negatives: ["!'slow'"], topLevelOr: false });
    expect(queryShape("'sso' | 'okta' & 'login'").topLevelOr).toBe(true);
    expect(queryShape("'it''s' & ( 'a' | 'b' )").positives).toEqual(["'it''s'", "'a' | 'b'"]);
    expect(queryShape('')).toEqual({ positives: [], negatives: [], topLevelOr: false });
  });

  it('fuses ranked lists by reciprocal rank', () => {
    const fused = fuseRankings([
      [{ sourceId: 'a', position: 3 }, { sourceId: 'a', position: 1 }, { sourceId: 'b', position: 0 }],
      [{ sourceId: 'b', position: 2 }, { sourceId: 'c', position: 5 }],
    ]);
    expect(fused.map((f) => f.sourceId)).toEqual(['b', 'a', 'c']);
    expect(fused[0]).toMatchObject({ ranks: [2, 1], positions: [0, 2] });
    expect(fused[1]).toMatchObject({ ranks: [1, null], positions: [3, 1] });
    expect(fused[0]!.score).toBeCloseTo(1 / 62 + 1 / 61);
  });
});
