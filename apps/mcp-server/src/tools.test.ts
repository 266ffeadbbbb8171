import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import pg from 'pg';
import { statementsOf } from '@loupe/db/testing';
import { call, connectClient, seedSource, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

let h: McpHarness;
let w: Workspace;
let other: Workspace;
let client: Client;
beforeAll(async () => {
  h = await startMcpServer();
  w = await seedWorkspace(h);
  other = await seedWorkspace(h, 'Other');
  client = await connectClient(h, { key: w.key });
});
afterAll(async () => {
  await client?.close();
  await h.close();
});

/** How many sources each lookup of matching segments (the per-segment ranking of libs/sources) was given while `fn` ran. */
async function segmentLookups<T>(fn: () => Promise<T>): Promise<{ result: T; lookups: number[] }> {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  const lookups: number[] = [];
  proto.query = function counted(this: unknown, ...args: unknown[]) {
    const text = typeof args[0] === 'string' ? args[0] : (args[0] as { text?: string } | undefined)?.text ?? '';
    if (/FROM source_segments g\s+CROSS JOIN LATERAL/.test(text)) lookups.push(((args[1] as unknown[])[0] as string[]).length);
    return query.apply(this, args);
  };
  try {
    return { result: await fn(), lookups };
  } finally {
    proto.query = query;
  }
}

describe('tools/list', () => {
  it('lists every tool with a description, an input schema and truthful annotations; output schemas stay out of the list (issue 24 item 3)', async () => {
    const { tools } = await client.listTools();
    for (const tool of tools) {
      expect(tool.description!.length, tool.name).toBeGreaterThan(40);
      expect(tool.inputSchema.type).toBe('object');
      expect(tool.outputSchema, tool.name).toBeUndefined();
      expect(typeof tool.annotations?.readOnlyHint, tool.name).toBe('boolean');
    }
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(['get_products', 'find_sources', 'read_source', 'list_shaping_notes']));
    expect(tools.map((t) => t.name)).not.toContain('see_updated_roadmap');
  });
});

describe('get_products', () => {
  it('lists the workspace\'s products with their projects and marks the key\'s default', async () => {
    const { data, isError, text } = await call(client, 'get_products');
    expect(isError).toBe(false);
    expect(text).toContain(`**Acme app** \`${w.productId}\` (default)`);
    expect(data).toEqual({
      products: [{ id: w.productId, name: 'Acme app', description: 'The main product', status: 'active', projects: [{ id: w.projectId, name: 'Onboarding' }], is_default: true }],
      default_product_id: w.productId,
    });
  });
});

describe('read_source', () => {
  it('pages through a long source with nothing lost or repeated', async () => {
    const texts = Array.from({ length: 1200 }, (_, i) => `Segment ${i}: ${'words '.repeat(i % 7)}`);
    const id = await seedSource(h, w, { segments: texts });
    const seen: string[] = [];
    let offset: number | undefined = 0;
    let pages = 0;
    while (offset !== undefined) {
      const { data, isError } = await call(client, 'read_source', { source_id: id, offset });
      expect(isError).toBe(false);
      seen.push(...data!.segments.map((s: { text: string }) => s.text));
      expect(data!.segments.length).toBeLessThanOrEqual(500);
      offset = data!.next_offset;
      expect(data!.has_more).toBe(offset !== undefined);
      pages++;
    }
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(seen).toEqual(texts);
  });

  it('another workspace\'s source is answered exactly like one that does not exist', async () => {
    const foreign = await seedSource(h, other);
    const a = await call(client, 'read_source', { source_id: foreign });
    const b = await call(client, 'read_source', { source_id: 'src_doesnotexist' });
    expect(a.isError && b.isError).toBe(true);
    expect(a.text.replace(foreign, 'ID')).toBe(b.text.replace('src_doesnotexist', 'ID'));
    expect(a.text).toMatch(/^Source not found or access denied/);
  });

  it('a source still being processed has no content yet', async () => {
    const id = await seedSource(h, w, { status: 'processing', segments: [] });
    const r = await call(client, 'read_source', { source_id: id });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/^This source has no content yet/);
  });

  it('invalid arguments name the field', async () => {
    const r = await call(client, 'read_source', { source_id: 'src_x', limit: 5000 });
    expect(r.isError).toBe(true);
    expect(r.text).toContain('limit');
  });

  it('a source_id no source can have is refused by name, and the reads sharing its statement are answered as if it never came (issue 41)', async () => {
    const id = await seedSource(h, w, { segments: ['Read beside a hostile id.'] });
    const hostile = ['src_\u0000', '\u0000', 'src_a b', `src_${'é'.repeat(100)}`];
    const answers = await Promise.all([id, ...hostile, id, id].map((source_id) => call(client, 'read_source', { source_id })));
    expect(answers.map((a) => a.isError)).toEqual([false, true, true, true, true, false, false]);
    for (const a of answers.slice(1, 5)) expect(a.text).toMatch(/source_id is a src_… id: printable ASCII, no spaces/);
    for (const a of [answers[0]!, answers[5]!, answers[6]!]) expect(a.data!.segments[0].text).toBe('Read beside a hostile id.');
  });
});

describe('find_sources', () => {
  it('finds by words in title or content, filters, and pages with nothing lost or repeated', async () => {
    const ws = await seedWorkspace(h, 'Searchers');
    const c = await connectClient(h, { key: ws.key });
    const base = Date.UTC(2026, 0, 1);
    const ids: string[] = [];
    for (let i = 0; i < 150; i++) {
      ids.push(await seedSource(h, ws, { title: `Interview ${i} ${'x'.repeat(1200)}`, segments: [i % 2 ? 'They export reports to spreadsheets every week' : 'Login with single sign-on fails'], occurredAt: new Date(base + i * 60_000) }));
    }
    const found: string[] = [];
    let offset: number | undefined = 0;
    let pages = 0;
    while (offset !== undefined) {
      const { data } = await call(c, 'find_sources', { query: 'exporting reports', offset });
      expect(data!.total).toBe(75);
      found.push(...data!.items.map((s: { id: string }) => s.id));
      offset = data!.next_offset;
      pages++;
    }
    expect(pages).toBeGreaterThanOrEqual(3);
    const expected = ids.filter((_, i) => i % 2).reverse();
    expect(found).toEqual(expected);
    const all: string[] = [];
    offset = 0;
    pages = 0;
    while (offset !== undefined) {
      const { data } = await call(c, 'find_sources', { offset });
      all.push(...data!.items.map((s: { id: string }) => s.id));
      offset = data!.next_offset;
      pages++;
    }
    expect(pages).toBeGreaterThanOrEqual(3);
    expect(all).toEqual([...ids].reverse());
    const since = await call(c, 'find_sources', { since: new Date(base + 140 * 60_000).toISOString() });
    expect(since.data!.total).toBe(10);
    await c.close();
  });

  it('ranks by relevance with excerpts; read_source from_position starts at the excerpt; "a" finds nothing', async () => {
    const ws = await seedWorkspace(h, 'Rankers');
    const c = await connectClient(h, { key: ws.key });
    const target = await seedSource(h, ws, { title: 'Globex chat', segments: ['Hi', 'Billing question first', 'New hires find the onboarding flow confusing', 'Thanks'] });
    await seedSource(h, ws, { title: 'Onboarding review', segments: ['We reviewed the onboarding flow with the team'] });
    await seedSource(h, ws, { title: 'Unrelated', segments: ['Exports are slow'] });
    const { data } = await call(c, 'find_sources', { query: 'customers struggling with the onboarding flow', limit: 5 });
    expect(data!.sort).toBe('relevance');
    expect(data!.items).toHaveLength(2);
    expect(data!.items[0].title).toBe('Onboarding review'); // title match first
    const hit = data!.items.find((i: { id: string }) => i.id === target);
    expect(hit.excerpts[0]).toMatchObject({ position: 2, speaker: 'Ana', snippet: expect.stringContaining('«onboarding» «flow»') });
    const read = await call(c, 'read_source', { source_id: target, from_position: hit.excerpts[0].position });
    expect(read.data!.segments[0].text).toBe('New hires find the onboarding flow confusing');
    expect(read.data!.offset).toBe(2);
    const a = await call(c, 'find_sources', { query: 'a' });
    expect(a.isError).toBe(true);
    expect(a.text).toMatch(/no word to search for/);
    await c.close();
  });

  it('an offset beyond where the count stops (10,000) is refused at once, naming the argument and the maximum; up to it, pages are answered (issue 41)', async () => {
    const ws = await seedWorkspace(h, 'Deep pagers');
    const c = await connectClient(h, { key: ws.key });
    for (let i = 0; i < 3; i++) await seedSource(h, ws, { title: `Call ${i}`, segments: ['Exports are slow every Monday'] });
    for (const args of [{ query: 'slow exports', offset: 1e9 }, { offset: 1e9 }, { query: 'slow exports', offset: 10_001 }]) {
      let r: Awaited<ReturnType<typeof call>> | undefined;
      const sent = await statementsOf(async () => {
        r = await call(c, 'find_sources', args);
      });
      expect(r!.isError, JSON.stringify(args)).toBe(true);
      expect(r!.text).toMatch(/^Invalid arguments for find_sources: offset: must be at most 10,000: results are counted and paged up to there\. To reach further, narrow the search/);
      // Refused before any search ran.
      expect(sent.filter((s) => /source_segments|FROM sources s|sources-search-parse/.test(s))).toEqual([]);
    }
    const last = await call(c, 'find_sources', { query: 'slow exports', offset: 10_000 });
    expect(last.isError).toBe(false);
    expect(last.data!.returned).toBe(0);
    expect((await call(c, 'find_sources', { query: 'slow exports', limit: 2 })).data!.next_offset).toBe(2);
    await c.close();
  });

  it('the matching segments are looked up for the page returned alone, not for every source before the offset (issue 41)', async () => {
    const ws = await seedWorkspace(h, 'Segment counters');
    const c = await connectClient(h, { key: ws.key });
    for (let i = 0; i < 60; i++) await seedSource(h, ws, { title: `Call ${i}`, segments: ['Hello', `Exports are slow for customer ${i}`, 'Bye'] });
    // Two words, a page deep into the results.
    const { result, lookups } = await segmentLookups(() => call(c, 'find_sources', { query: 'slow exports', offset: 40, limit: 5 }));
    expect(result.isError).toBe(false);
    expect(result.data!.items).toHaveLength(5);
    expect(result.data!.items.every((s: { excerpts: Array<{ position: number }> }) => s.excerpts[0]!.position === 1)).toBe(true);
    expect(lookups).toEqual([5]);
    await c.close();
  });

  it('unknown product or project: the spec\'s errors', async () => {
    expect((await call(client, 'find_sources', { product_id: other.productId })).text).toMatch(/^Product not found/);
    expect((await call(client, 'find_sources', { project_id: other.projectId })).text).toMatch(/^Project not found or access denied/);
  });
});

describe('removed tools', () => {
  it('see_updated_roadmap names get_opportunities', async () => {
    const r = await call(client, 'see_updated_roadmap');
    expect(r.isError).toBe(true);
    expect(r.text).toContain('get_opportunities');
  });
});
