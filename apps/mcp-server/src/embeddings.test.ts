import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { startSemanticsThread, type SemanticsThread } from '@loupe/semantics';
import { startFakeEmbeddings, type FakeEmbeddings } from '@loupe/semantics/testing';
import { createSemanticSearch, embedPendingSources } from '@loupe/sources';
import { call, connectClient, seedSource, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

// find_sources with an embedding provider (EMBEDDINGS_URL; a fake on 127.0.0.1): sources not embedded yet
// are found by their words and counted, and a provider that fails leaves the answer to the words, said so.
let h: McpHarness;
let fake: FakeEmbeddings;
let semantics: SemanticsThread;
let w: Workspace;
let client: Client;
beforeAll(async () => {
  fake = await startFakeEmbeddings({ dims: 16 });
  semantics = startSemanticsThread({ embeddings: { url: fake.url, model: 'fake-embed', batchSize: 8, timeoutMs: 1_000, retries: 0, backoffMs: 10 } });
  h = await startMcpServer({ semanticSearch: (pool) => createSemanticSearch({ pool, semantics }) });
  w = await seedWorkspace(h);
  client = await connectClient(h, { key: w.key });
});
afterAll(async () => {
  await client?.close();
  await h.close();
  await semantics.close();
  await fake.close();
});

describe('find_sources with an embedding provider', () => {
  it('finds by words what is not embedded yet and says how many; says so when the provider does not answer', async () => {
    const okta = await seedSource(h, w, { title: 'Okta', segments: ['Our staff cannot log in through Okta'] });
    await seedSource(h, w, { title: 'Exports', segments: ['Exporting the monthly report takes twenty minutes'] });

    const waiting = await call(client, 'find_sources', { query: 'Okta log in' });
    expect(waiting.data!.items.map((s: { id: string }) => s.id)).toEqual([okta]);
    expect(waiting.data!.not_yet_searchable).toBe(2);
    expect(waiting.text).toMatch(/2 sources are not yet searchable by meaning/);

    expect(await embedPendingSources({ pool: h.pool, semantics }, w.workspaceId)).toBe(2);
    fake.setMode('failing');
    try {
      const down = await call(client, 'find_sources', { query: 'Okta log in' });
      expect(down.isError).toBe(false);
      expect(down.data!.items.map((s: { id: string }) => s.id)).toEqual([okta]);
      expect(down.data!.meaning_unavailable).toBe(true);
      expect(down.text).toMatch(/Search by meaning is unavailable right now \(the embedding provider did not answer\): these results match your words only/);
    } finally {
      fake.setMode('ok');
    }
  });
});
