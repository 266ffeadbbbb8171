import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { startSemanticsThread, type RemoteEmbeddingsOptions, type SemanticsThread } from '@loupe/semantics';
import { startFakeEmbeddings, type FakeEmbeddings } from '@loupe/semantics/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSemanticSearch, embedPendingSources, markOutdatedSources, pendingSemanticSources, refreshSearchDocuments, searchSources, startSemanticRankings } from './index';

// Sources embedded with the built-in word vectors, then the embedding switched to an OpenAI-compatible
// provider (a fake one on 127.0.0.1 answering deterministic vectors, see @loupe/semantics/testing).
describe('sources with an embedding provider', () => {
  let t: TestDatabase;
  let fake: FakeEmbeddings;
  let builtin: SemanticsThread;
  let remote: SemanticsThread;
  const ws = newId('ws');
  const texts: Record<string, string> = {};
  const ids: string[] = [];

  async function source(title: string, text: string): Promise<string> {
    const id = newId('src');
    await t.pool.query(
      `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, participants, tags, status, segment_count)
       VALUES ($1, $2, 'prod_1', '{}', 'email', 'evidence', $3, now(), '[]', '{}', 'ready', 1)`,
      [id, ws, title],
    );
    await t.pool.query(`INSERT INTO source_segments (source_id, position, kind, speaker, text) VALUES ($1, 0, 'turn', 'Ann', $2)`, [id, text]);
    await refreshSearchDocuments(t.pool, [id]);
    // What embedPendingSources embeds: the title, then the segments.
    texts[id] = `${title}\n${text}`;
    return id;
  }

  const remoteOptions = (): RemoteEmbeddingsOptions => ({ url: `${fake.url}/v1`, model: 'fake-embed', batchSize: 4, timeoutMs: 1_000, retries: 0, backoffMs: 10 });

  beforeAll(async () => {
    t = await createTestDatabase();
    fake = await startFakeEmbeddings({ dims: 48 });
    builtin = startSemanticsThread();
    remote = startSemanticsThread({ embeddings: remoteOptions() });
    await t.pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Acme')", [ws]);
    const lines = [
      ['Okta', 'Our staff cannot log in through Okta, the login page keeps looping'],
      ['Reports', 'Exporting the monthly report to Excel takes twenty minutes'],
      ['Mobile', 'The Android app crashes whenever someone uploads a photo'],
      ['Invoices', 'Printing an invoice cuts off the last line'],
      ['Calendar', 'The calendar integration shows meetings in the wrong time zone'],
      ['Seats', 'Please add two more seats to our plan'],
    ];
    for (const [title, text] of lines) ids.push(await source(title!, text!));
    expect(await embedPendingSources({ pool: t.pool, semantics: builtin }, ws)).toBe(ids.length);
  });
  afterAll(async () => {
    await builtin.close();
    await remote.close();
    await fake.close();
    await t.close();
  });

  it('searches by words, says how many are not embedded yet, and re-embeds in batches after the model changes', async () => {
    // The worker's start with the new model: every source embedded with the built-in one waits again.
    expect(await markOutdatedSources(t.pool, await remote.version())).toEqual([ws]);
    expect(await pendingSemanticSources(t.pool, ws)).toBe(ids.length);

    // Until re-embedded, the index leaves out the vectors of the other model: the search answers by words.
    const search = createSemanticSearch({ pool: t.pool, semantics: remote });
    await search.search(ws, 'okta', {}, 10);
    const before = await search.search(ws, texts[ids[0]!]!, {}, 10);
    expect(before.hits).toEqual([]);
    expect(before.unavailable).toBeUndefined();
    expect(await search.pending(ws)).toBe(ids.length);
    const started = startSemanticRankings(search, ws, 'Okta login', {}, 10);
    const page = await searchSources(t.pool, ws, { query: 'Okta login', extraRankings: started.rankings });
    expect(page.items.map((i) => i.id)).toEqual([ids[0]]);

    fake.requests.length = 0;
    expect(await embedPendingSources({ pool: t.pool, semantics: remote }, ws)).toBe(ids.length);
    // Batches of EMBEDDINGS_BATCH_SIZE (4); the dimensions were known from the searches' queries.
    expect(fake.requests.map((r) => r.input.length)).toEqual([4, 2]);
    const { rows } = await t.pool.query<{ version: string; bytes: number; pending: boolean }>(
      'SELECT DISTINCT version, octet_length(vector) AS bytes, pending FROM source_semantics WHERE workspace_id = $1', [ws],
    );
    // The provider's dimensions (48), quantised with their scale (4 bytes).
    expect(rows).toEqual([{ version: await remote.version(), bytes: 52, pending: false }]);
    expect((await remote.describe()).denseDims).toBe(48);

    // Read again from the start, as a new instance would: the fake's vectors are a hash of the text, so a
    // source's own text is its nearest neighbour.
    const fresh = createSemanticSearch({ pool: t.pool, semantics: remote });
    let after = await fresh.search(ws, texts[ids[2]!]!, {}, 3);
    // The first search starts filling the index; once filled, it answers from it.
    while (after.indexing) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      after = await fresh.search(ws, texts[ids[2]!]!, {}, 3);
    }
    expect(after.hits[0]?.sourceId).toBe(ids[2]);
    expect(await fresh.pending(ws)).toBe(0);
  });

  it('answers by words with a note while the provider fails, and leaves the sources waiting', async () => {
    const search = createSemanticSearch({ pool: t.pool, semantics: remote });
    fake.setMode('failing');
    try {
      await search.search(ws, 'okta', {}, 10);
      const down = await search.search(ws, 'Okta login', {}, 10);
      expect(down).toMatchObject({ hits: [], unavailable: true });
      const page = await searchSources(t.pool, ws, { query: 'Okta login', extraRankings: startSemanticRankings(search, ws, 'Okta login', {}, 10).rankings });
      expect(page.items.map((i) => i.id)).toEqual([ids[0]]);

      const late = await source('Dark mode', 'Dark mode would help our night shift');
      await expect(embedPendingSources({ pool: t.pool, semantics: remote }, ws)).rejects.toThrow(/answered 500/);
      expect(await pendingSemanticSources(t.pool, ws)).toBe(1);
      fake.setMode('ok');
      expect(await embedPendingSources({ pool: t.pool, semantics: remote }, ws)).toBe(1);
      const { rows } = await t.pool.query('SELECT pending FROM source_semantics WHERE source_id = $1', [late]);
      expect(rows[0]).toEqual({ pending: false });
    } finally {
      fake.setMode('ok');
    }
  });
});
