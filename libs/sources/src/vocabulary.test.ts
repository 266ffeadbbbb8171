import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { startSemanticsThread, type SemanticsThread } from '@loupe/semantics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createSemanticSearch, embedPendingSources, EMPTY_VOCABULARY, refreshSearchDocuments, refreshVocabulary, VOCABULARY, vocabularyState, vocabularyToLearnAgain } from './index';

/** Two themes, each text four words of one drawn at random (seeded): a theme's words are used together. */
const CARDS = ['freeze', 'lock', 'block', 'debit', 'visa', 'plastic', 'card', 'stolen', 'cancel', 'replace', 'pin', 'chip'];
const TRANSFERS = ['wire', 'remit', 'overseas', 'abroad', 'payee', 'swift', 'iban', 'routing', 'beneficiary', 'foreign', 'currency', 'sepa'];
let seed = 7;
const random = () => (seed = (seed * 1103515245 + 12345) % 2147483648) / 2147483648;
const texts = (words: string[], n: number) => Array.from({ length: n }, () => `${Array.from({ length: 4 }, () => words[Math.floor(random() * words.length)]).join(' ')} please`);

describe('a workspace\'s own vocabulary for search', () => {
  let t: TestDatabase;
  let semantics: SemanticsThread;
  const ws = newId('ws');
  const small = newId('ws');
  let day = 0;

  async function source(workspaceId: string, text: string): Promise<string> {
    const id = newId('src');
    await t.pool.query(
      `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, participants, tags, status, segment_count)
       VALUES ($1, $2, 'prod_1', '{}', 'email', 'evidence', 'Note', $3, '[]', '{}', 'ready', 1)`,
      [id, workspaceId, new Date(Date.UTC(2026, 0, 1) + day++ * 86_400_000)],
    );
    await t.pool.query(`INSERT INTO source_segments (source_id, position, kind, speaker, text) VALUES ($1, 0, 'turn', 'Ann', $2)`, [id, text]);
    await refreshSearchDocuments(t.pool, [id]);
    return id;
  }

  const rerank = (search: ReturnType<typeof createSemanticSearch>, workspaceId: string) =>
    search.reranker(workspaceId)('lock debit', [{ id: 'a', text: 'wire overseas' }, { id: 'b', text: 'freeze visa' }]);

  beforeAll(async () => {
    t = await createTestDatabase();
    semantics = startSemanticsThread();
    await t.pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Acme'), ($2, 'Small')", [ws, small]);
    for (const text of [...texts(CARDS, 30), ...texts(TRANSFERS, 30)]) await source(ws, text);
    for (const text of texts(CARDS, VOCABULARY.minSources - 1)) await source(small, text);
  });
  afterAll(async () => {
    await semantics.close();
    await t.close();
  });

  it('is learned once a workspace has enough sources, and again once it has grown by a quarter', async () => {
    expect(await embedPendingSources({ pool: t.pool, semantics }, small)).toBe(49);
    expect(await refreshVocabulary({ pool: t.pool, semantics }, small, 49)).toEqual({ learned: false });
    expect(await vocabularyState(t.pool, small)).toBeUndefined();

    await embedPendingSources({ pool: t.pool, semantics }, ws);
    // During a load it only counts.
    expect(await refreshVocabulary({ pool: t.pool, semantics }, ws, 60, { learn: false })).toEqual({ learned: false });
    expect(await vocabularyState(t.pool, ws)).toBeUndefined();
    const learned = await refreshVocabulary({ pool: t.pool, semantics }, ws, 60);
    expect(learned).toMatchObject({ learned: true, sources: 60, sampled: 60 });
    // The themes' 24 words, "please" and the sources' title.
    expect(learned.terms).toBe(26);
    expect(await vocabularyState(t.pool, ws)).toMatchObject({ sources: 60, sampled: 60, grown: 0, learned: true, generation: 0 });

    expect(await refreshVocabulary({ pool: t.pool, semantics }, ws, 14)).toEqual({ learned: false });
    expect(await vocabularyState(t.pool, ws)).toMatchObject({ grown: 14 });
    for (const text of texts(CARDS, 2)) await source(ws, text);
    expect(await refreshVocabulary({ pool: t.pool, semantics }, ws, 1)).toMatchObject({ learned: true, sources: 62, sampled: 62 });
  });

  it('gives the second stage a ranking by the workspace\'s own words: "lock debit" is nearer "freeze visa" than "wire overseas", sharing no word with either', async () => {
    const search = createSemanticSearch({ pool: t.pool, semantics });
    try {
      const scores = await rerank(search, ws);
      expect(scores.latent).toHaveLength(2);
      // The query is moved toward both candidates alike (its feedback: the first ten), so what parts them is the query's own place.
      expect(scores.latent![1]).toBeGreaterThan(scores.latent![0]! + 0.25);
      // A workspace without one: no third ranking.
      expect((await rerank(search, small)).latent).toBeUndefined();
    } finally {
      search.close();
    }
  });

  it('is emptied with the sources it was learned from, dropped by the MCP servers, and learned again from what is left', async () => {
    const search = createSemanticSearch({ pool: t.pool, semantics, vocabularyCheckMs: 0 });
    try {
      expect((await rerank(search, ws)).latent).toBeDefined();
      await t.pool.query(EMPTY_VOCABULARY, [ws, new Date()]);
      expect(await vocabularyState(t.pool, ws)).toMatchObject({ learned: false, generation: 1, sources: 62 });
      expect(await vocabularyToLearnAgain(t.pool)).toEqual([ws]);
      // The next search checks in the background; the one after answers without it.
      await rerank(search, ws);
      await expect.poll(async () => (await rerank(search, ws)).latent).toBeUndefined();

      expect(await refreshVocabulary({ pool: t.pool, semantics }, ws, 0)).toMatchObject({ learned: true, sources: 62 });
      expect(await vocabularyToLearnAgain(t.pool)).toEqual([]);
      await expect.poll(async () => (await rerank(search, ws)).latent).toBeDefined();
    } finally {
      search.close();
    }
  });

  it('a vocabulary learned while a deletion empties it is not written (it was read from the deleted texts)', async () => {
    /** The semantics thread, with a deletion in the workspace committed while it learns. */
    const deletingIn = (workspaceId: string): SemanticsThread => ({
      ...semantics,
      run: (async (op: 'vocabulary-learn', args: { texts: string[]; rank: number }) => {
        if (op === 'vocabulary-learn') await t.pool.query(EMPTY_VOCABULARY, [workspaceId, new Date()]);
        return semantics.run(op, args);
      }) as SemanticsThread['run'],
    });
    const generation = (await vocabularyState(t.pool, ws))!.generation;
    await t.pool.query('UPDATE search_vocabularies SET grown = sources WHERE workspace_id = $1', [ws]);
    expect(await refreshVocabulary({ pool: t.pool, semantics: deletingIn(ws) }, ws, 0)).toEqual({ learned: false });
    expect(await vocabularyState(t.pool, ws)).toMatchObject({ learned: false, generation: generation + 1 });
    // A workspace that had none gets an empty row, so one being learned for the first time is not written either.
    const fresh = newId('ws');
    await t.pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'Fresh')", [fresh]);
    for (const text of texts(TRANSFERS, VOCABULARY.minSources)) await source(fresh, text);
    expect(await refreshVocabulary({ pool: t.pool, semantics: deletingIn(fresh) }, fresh, VOCABULARY.minSources)).toEqual({ learned: false });
    expect(await vocabularyState(t.pool, fresh)).toMatchObject({ learned: false, generation: 1, sources: 0 });
    // Emptied with too few sources left: the sweep stops asking.
    await t.pool.query(EMPTY_VOCABULARY, [small, new Date()]);
    await t.pool.query('UPDATE search_vocabularies SET sources = 80 WHERE workspace_id = $1', [small]);
    expect(await vocabularyToLearnAgain(t.pool)).toContain(small);
    expect(await refreshVocabulary({ pool: t.pool, semantics }, small, 0)).toEqual({ learned: false });
    expect(await vocabularyToLearnAgain(t.pool)).not.toContain(small);
  });

  it('a search thread started again without the vocabulary reads it again', async () => {
    expect(await refreshVocabulary({ pool: t.pool, semantics }, ws, 0)).toMatchObject({ learned: true });
    const search = createSemanticSearch({ pool: t.pool, semantics });
    try {
      expect((await rerank(search, ws)).latent).toBeDefined();
      // As if the thread had lost it.
      await semantics.run('vocabulary-set', { collection: ws, model: null });
      expect((await rerank(search, ws)).latent).toBeUndefined();
      expect((await rerank(search, ws)).latent).toBeDefined();
    } finally {
      search.close();
    }
  });
});
