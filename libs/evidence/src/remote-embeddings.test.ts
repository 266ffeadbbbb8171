import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { LEXICAL_DIMS, remoteVersionOf, startSemanticsThread, type SemanticsThread } from '@loupe/semantics';
import { startFakeEmbeddings, type FakeEmbeddings } from '@loupe/semantics/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { addSignals, updateOpportunities } from './index';

// Signals clustered with the built-in word vectors, then the embedding switched to an OpenAI-compatible
// provider (a fake on 127.0.0.1): the next update re-embeds and re-clusters them with the provider's vectors.
describe('signals with an embedding provider', () => {
  let t: TestDatabase;
  let fake: FakeEmbeddings;
  let builtin: SemanticsThread;
  let remote: SemanticsThread;
  let now = Date.UTC(2026, 10, 1);
  const clock = { now: () => now++ };
  const ws = newId('ws');
  const prod = newId('prod');
  const src = newId('src');

  beforeAll(async () => {
    t = await createTestDatabase();
    fake = await startFakeEmbeddings({ dims: 16 });
    builtin = startSemanticsThread();
    remote = startSemanticsThread({ embeddings: { url: fake.url, model: 'fake-embed', batchSize: 5, timeoutMs: 1_000, retries: 0, backoffMs: 10 } });
    await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, 'W']);
    await t.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [prod, ws, 'P']);
    await t.pool.query(
      `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status) VALUES ($1, $2, $3, '{}', 'call', 'evidence', 'Call', now(), 'ready')`,
      [src, ws, prod],
    );
  });
  afterAll(async () => {
    await builtin.close();
    await remote.close();
    await fake.close();
    await t.close();
  });

  const stored = async () => (await t.pool.query<{ version: string | null; bytes: number | null; n: number }>(
    'SELECT embedding_version AS version, octet_length(embedding) AS bytes, count(*)::int AS n FROM signals WHERE workspace_id = $1 GROUP BY 1, 2 ORDER BY 1', [ws],
  )).rows;

  it('re-embeds and re-clusters the signals after a change of model, with the provider\'s dimensions', async () => {
    const items = [
      ['SSO', 'We need single sign-on with Okta'], ['SSO', 'Okta login for all staff please'], ['Exports', 'Exports to Excel take twenty minutes'],
      ['Exports', 'The CSV export is very slow'], ['Mobile', 'The Android app crashes on photo upload'], ['Billing', 'Invoices cut off the last line'],
    ].map(([theme, content]) => ({ type: 'need', title: content!, content: content!, theme: theme! }));
    await addSignals(t.pool, { workspaceId: ws, sourceId: src, items }, clock);
    await updateOpportunities({ pool: t.pool, semantics: builtin, clock }, ws, prod);
    expect(await stored()).toEqual([{ version: await builtin.version(), bytes: (100 + LEXICAL_DIMS) * 4, n: 6 }]);

    const result = await updateOpportunities({ pool: t.pool, semantics: remote, clock }, ws, prod);
    expect(result).toMatchObject({ embedded: 6, reclustered: true });
    expect(await stored()).toEqual([{ version: remoteVersionOf('fake-embed'), bytes: (16 + LEXICAL_DIMS) * 4, n: 6 }]);
    // The six texts and their themes, in batches of EMBEDDINGS_BATCH_SIZE (5).
    expect(fake.requests.every((r) => r.input.length <= 5)).toBe(true);
    const { rows } = await t.pool.query<{ embedding_version: string; mean: Buffer }>('SELECT embedding_version, mean FROM product_clusterings WHERE workspace_id = $1', [ws]);
    expect(rows).toEqual([{ embedding_version: remoteVersionOf('fake-embed'), mean: expect.any(Buffer) }]);
    expect(rows[0]!.mean.length).toBe(16 * 4);
    const { rows: placed } = await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM opportunity_signals os JOIN signals s ON s.id = os.signal_id WHERE s.workspace_id = $1', [ws]);
    expect(placed[0]!.n).toBe(6);
  });

  it('stores a signal while the provider fails; its update fails and leaves it for a retry', async () => {
    fake.setMode('failing');
    try {
      const added = await addSignals(t.pool, { workspaceId: ws, sourceId: src, items: [{ type: 'need', title: 'Dark mode', content: 'Dark mode for the night shift' }] }, clock);
      expect(added.results).toHaveLength(1);
      await expect(updateOpportunities({ pool: t.pool, semantics: remote, clock }, ws, prod)).rejects.toThrow(/answered 500/);
      const { rows } = await t.pool.query('SELECT embedding_version, cluster_pending FROM signals WHERE id = $1', [added.results[0]!.id]);
      expect(rows[0]).toEqual({ embedding_version: null, cluster_pending: true });
    } finally {
      fake.setMode('ok');
    }
    await updateOpportunities({ pool: t.pool, semantics: remote, clock }, ws, prod);
    expect(await stored()).toEqual([{ version: remoteVersionOf('fake-embed'), bytes: (16 + LEXICAL_DIMS) * 4, n: 7 }]);
  });
});
