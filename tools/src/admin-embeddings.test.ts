import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { configuredEmbeddingVersion, LEXICAL_DIMS } from '@loupe/semantics';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin } from './admin';

describe('admin embeddings status', () => {
  let t: TestDatabase;
  let database: never;
  const ws = newId('ws');
  const provider = { url: 'http://localhost:11434/v1', model: 'nomic-embed-text' };
  beforeAll(async () => {
    t = await createTestDatabase();
    database = { pool: t.pool, url: t.url, db: t.db } as never;
    await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $1)', [ws]);
    for (let i = 0; i < 3; i++) {
      await t.pool.query(
        `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status) VALUES ($1, $2, 'p', '{}', 'call', 'evidence', 'Call', now(), 'ready')`,
        [`src_${i}_${ws}`, ws],
      );
    }
    // Two sources embedded with the built-in word vectors, one waiting.
    await t.pool.query(
      `UPDATE source_semantics SET pending = false, version = $2, vector = $3 WHERE source_id <> $1 AND workspace_id = $4`,
      [`src_2_${ws}`, configuredEmbeddingVersion(undefined), Buffer.alloc(104), ws],
    );
  });
  afterAll(() => t.close());

  it('prints the model, its dimensions and what is embedded and left per kind', async () => {
    expect(await runAdmin(['embeddings', 'status'], database, 'loupe_')).toEqual([
      `Model: the built-in word vectors (version ${configuredEmbeddingVersion(undefined)})`,
      `Dimensions: 100 from the model + ${LEXICAL_DIMS} lexical`,
      'Sources: 2 embedded, 1 left',
      'Signals: 0 embedded, 0 left',
      'The worker embeds what is left in the background (a model change is picked up when it starts); search answers by words for the sources left.',
    ]);
    // After a change of model every source is left until the worker has re-embedded it.
    expect(await runAdmin(['embeddings', 'status'], database, 'loupe_', { embeddings: provider })).toEqual([
      `Model: nomic-embed-text at http://localhost:11434/v1/embeddings (version remote:nomic-embed-text+lex${LEXICAL_DIMS})`,
      'Dimensions: not known yet (nothing embedded with this model)',
      'Sources: 0 embedded, 3 left',
      'Signals: 0 embedded, 0 left',
      'The worker embeds what is left in the background (a model change is picked up when it starts); search answers by words for the sources left.',
    ]);
  });
});
