import { newId, withTransaction } from '@loupe/db';
import { createTestDatabase, statementsOf, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSourceFromRecord, insertSources, buildSource, readSource, READ_LIMITS, type SourceRecord } from './index';

describe('sources in the database', () => {
  let t: TestDatabase;
  let workspaceId: string;
  let batchId: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    workspaceId = newId('ws');
    batchId = newId('bat');
    await t.pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Acme')", [workspaceId]);
    await t.pool.query(
      `INSERT INTO batches (id, workspace_id, product_id, source, type, status, accepted_count, rejected_count, total_error_count)
       VALUES ($1, $2, 'prod_1', 'api', 'call', 'PROCESSING', 0, 0, 0)`,
      [batchId, workspaceId],
    );
  });
  afterAll(() => t.close());

  let position = 0;
  async function storedRecord(type: string, data: unknown, ws = workspaceId): Promise<SourceRecord> {
    const id = newId('rec');
    const raw = JSON.stringify(data);
    await t.pool.query(
      `INSERT INTO records (id, workspace_id, batch_id, position, dedup_key, type, nature, product_id, project_ids, event_at,
                            vendor_ids, tags, data)
       VALUES ($1, $2, $3, $4, $1, $5, 'evidence', 'prod_1', '{proj_1}', '2026-01-02T03:04:05Z', '{"crm":"1"}', '{vip}', $6::json)`,
      [id, ws, batchId, position++, type, raw],
    );
    // Read back the way the worker does: the raw JSON text, parsed here.
    const { rows } = await t.pool.query<{ data: string; event_at: Date }>('SELECT data::text AS data, event_at FROM records WHERE id = $1', [id]);
    return {
      id, workspaceId: ws, productId: 'prod_1', projectIds: ['proj_1'], type, nature: 'evidence', eventAt: rows[0]!.event_at,
      threadId: null, participants: null, tags: ['vip'], data: JSON.parse(rows[0]!.data),
    };
  }

  it('creates a source with ordered segments once, however often it is called', async () => {
    const record = await storedRecord('call', { title: 'Discovery call', transcript: 'Ann: Hello\nBo: Hi\nAnn: Exports are slow' });
    const first = await withTransaction(t.pool, (c) => createSourceFromRecord(c, record));
    const second = await withTransaction(t.pool, (c) => createSourceFromRecord(c, record));
    expect(first).toMatchObject({ recordId: record.id, created: true, segmentCount: 3 });
    expect(second).toEqual({ ...first, created: false });
    const { rows } = await t.pool.query('SELECT count(*)::int AS n FROM sources WHERE record_id = $1', [record.id]);
    expect(rows[0].n).toBe(1);
    const page = await readSource(t.pool, workspaceId, first.sourceId);
    expect(page).toMatchObject({
      source: {
        id: first.sourceId, title: 'Discovery call', source_type: 'call', nature: 'evidence', status: 'ready',
        occurred_at: '2026-01-02T03:04:05.000Z', product_id: 'prod_1', project_ids: ['proj_1'], tags: ['vip'], record_id: record.id,
        participants: [{ id: 'Ann', role: 'unknown', name: 'Ann' }, { id: 'Bo', role: 'unknown', name: 'Bo' }],
      },
      offset: 0, returned: 3, total_segments: 3, has_more: false,
    });
    expect(page!.next_offset).toBeUndefined();
    expect(page!.segments.map((s) => [s.position, s.kind, s.speaker, s.text])).toEqual([
      [0, 'turn', 'Ann', 'Hello'],
      [1, 'turn', 'Bo', 'Hi'],
      [2, 'turn', 'Ann', 'Exports are slow'],
    ]);
  });

  it('gives concurrent creators of the same record one source', async () => {
    const record = await storedRecord('message', { text: 'race me' });
    const results = await Promise.all(Array.from({ length: 5 }, () => withTransaction(t.pool, (c) => createSourceFromRecord(c, record))));
    expect(new Set(results.map((r) => r.sourceId)).size).toBe(1);
    expect(results.filter((r) => r.created)).toHaveLength(1);
    const { rows } = await t.pool.query(
      'SELECT count(*)::int AS n FROM source_segments g JOIN sources s ON s.id = g.source_id WHERE s.record_id = $1',
      [record.id],
    );
    expect(rows[0].n).toBe(1);
  });

  it('writes many sources in one call and reports which already existed', async () => {
    const a = await storedRecord('document', { content: '# A\nalpha' });
    const b = await storedRecord('document', { content: '# B\nbeta' });
    await withTransaction(t.pool, (c) => createSourceFromRecord(c, a));
    const results = await withTransaction(t.pool, (c) => insertSources(c, [buildSource(a), buildSource(b)]));
    expect(results.map((r) => [r.recordId, r.created])).toEqual([
      [a.id, false],
      [b.id, true],
    ]);
  });

  it('pages segments by offset and limit, and by about 60,000 characters', async () => {
    const turns = Array.from({ length: 450 }, (_, i) => ({ speaker: i % 2 ? 'Bo' : 'Ann', text: `${i} ${'x'.repeat(290)}` }));
    const record = await storedRecord('call', { turns });
    const { sourceId } = await withTransaction(t.pool, (c) => createSourceFromRecord(c, record));
    const first = await readSource(t.pool, workspaceId, sourceId, { offset: 0, limit: 100 });
    expect(first).toMatchObject({ offset: 0, returned: 100, total_segments: 450, has_more: true, next_offset: 100 });
    // 500 would be allowed by count, but 60,000 characters come first (about 295 chars a segment).
    const big = await readSource(t.pool, workspaceId, sourceId, { offset: 100, limit: READ_LIMITS.maxSegments });
    const chars = big!.segments.reduce((n, s) => n + s.text.length + (s.speaker?.length ?? 0), 0);
    expect(chars).toBeLessThanOrEqual(READ_LIMITS.maxChars);
    expect(big!.returned).toBeGreaterThan(150);
    expect(big!.returned).toBeLessThan(350);
    expect(big!.segments[0]!.position).toBe(100);
    const rest = await readSource(t.pool, workspaceId, sourceId, { offset: big!.next_offset!, limit: 500 });
    expect(rest).toMatchObject({ has_more: false, returned: 450 - 100 - big!.returned });
    expect(rest!.segments.at(-1)!.text.startsWith('449 ')).toBe(true);
    const past = await readSource(t.pool, workspaceId, sourceId, { offset: 1000 });
    expect(past).toMatchObject({ returned: 0, has_more: false });
    await expect(readSource(t.pool, workspaceId, sourceId, { limit: 501 })).rejects.toThrow(/limit must be a whole number from 1 to 500/);
    await expect(readSource(t.pool, workspaceId, sourceId, { offset: -1 })).rejects.toThrow(/offset/);
  });

  it('reads a source only inside its own workspace', async () => {
    const other = newId('ws');
    await t.pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Other')", [other]);
    const record = await storedRecord('message', { text: 'private' });
    const { sourceId } = await withTransaction(t.pool, (c) => createSourceFromRecord(c, record));
    expect(await readSource(t.pool, other, sourceId)).toBeUndefined();
    expect(await readSource(t.pool, workspaceId, 'src_missing')).toBeUndefined();
    expect((await readSource(t.pool, workspaceId, sourceId))!.segments[0]!.text).toBe('private');
  });

  it('reads that overlap share one statement, each answered within its own workspace and with its own page', async () => {
    const other = newId('ws');
    await t.pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Overlapping')", [other]);
    const turns = (who: string) => Array.from({ length: 30 }, (_, i) => ({ speaker: who, text: `${who} ${i}` }));
    const oursRecord = await storedRecord('call', { turns: turns('ours') });
    const theirsRecord = await storedRecord('call', { turns: turns('theirs') }, other);
    const ours = await withTransaction(t.pool, (c) => createSourceFromRecord(c, oursRecord));
    const theirs = await withTransaction(t.pool, (c) => createSourceFromRecord(c, theirsRecord));
    const asks = [
      { ws: workspaceId, id: ours.sourceId, offset: 0, limit: 5 },
      { ws: other, id: theirs.sourceId, offset: 10, limit: 3 },
      { ws: other, id: ours.sourceId, offset: 0, limit: 5 }, // another workspace's source: not found
      { ws: workspaceId, id: ours.sourceId, offset: 28, limit: 10 },
      { ws: workspaceId, id: theirs.sourceId, offset: 0, limit: 5 }, // not found either
      { ws: workspaceId, id: ours.sourceId, offset: 2 ** 40, limit: 1 }, // past any int4 position: an empty page, not an error
    ];
    let pages: Awaited<ReturnType<typeof readSource>>[] = [];
    const sent = await statementsOf(async () => {
      pages = await Promise.all(asks.map((a) => readSource(t.pool, a.ws, a.id, { offset: a.offset, limit: a.limit })));
    });
    // The first goes alone; the five that arrive while it is out go together.
    expect(sent).toEqual(['sources-read-source-page', 'sources-read-source-page']);
    const texts = pages.map((p) => p && p.segments.map((s) => s.text));
    expect(texts).toEqual([
      ['ours 0', 'ours 1', 'ours 2', 'ours 3', 'ours 4'],
      ['theirs 10', 'theirs 11', 'theirs 12'],
      undefined,
      ['ours 28', 'ours 29'],
      undefined,
      [],
    ]);
    expect(pages[1]).toMatchObject({ source: { id: theirs.sourceId }, offset: 10, total_segments: 30, has_more: true, next_offset: 13 });
    expect(pages[3]).toMatchObject({ offset: 28, returned: 2, has_more: false });
  });

  it('an id no source can have (a NUL character, overlong, spaces) is not found, and never joins the reads beside it (issue 41)', async () => {
    const record = await storedRecord('call', { turns: [{ speaker: 'Ana', text: 'beside the hostile ids' }] });
    const { sourceId } = await withTransaction(t.pool, (c) => createSourceFromRecord(c, record));
    const ids = [sourceId, 'src_\u0000', sourceId, `src_${'x'.repeat(200)}`, 'src_a b', '', sourceId];
    let pages: Awaited<ReturnType<typeof readSource>>[] = [];
    const sent = await statementsOf(async () => {
      pages = await Promise.all(ids.map((id) => readSource(t.pool, workspaceId, id)));
    });
    expect(pages.map((p) => p?.segments[0]?.text)).toEqual(['beside the hostile ids', undefined, 'beside the hostile ids', undefined, undefined, undefined, 'beside the hostile ids']);
    expect(sent).toEqual(['sources-read-source-page', 'sources-read-source-page']);
  });
});
