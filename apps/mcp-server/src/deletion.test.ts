import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { updateOpportunities } from '@loupe/evidence';
import { systemClock } from '@loupe/http';
import { deleteEvidence } from '@loupe/lifecycle';
import { startSemanticsThread, type SemanticsThread } from '@loupe/semantics';
import { createLocalStorage } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { call, connectClient, seedSource, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

// Issue 28 item 5: once a source is deleted, no tool finds anything of it: not the source, not its
// words, not the signals taken from it, not an opportunity named after them.
let h: McpHarness;
let w: Workspace;
let client: Client;
let semantics: SemanticsThread;
let dir: string;
beforeAll(async () => {
  semantics = startSemanticsThread();
  dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-mcp-delete-'));
  h = await startMcpServer();
  w = await seedWorkspace(h);
  client = await connectClient(h, { key: w.key });
});
afterAll(async () => {
  await client?.close();
  await semantics?.close();
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

const signal = (title: string, content: string, type = 'pain_point', who = 'zebulon@quuxcorp.test') => ({ type, title, content, who_said_it: who });

describe('after deleting a source', () => {
  it('find_sources, read_source, view_item and get_opportunities find nothing of it', async () => {
    const gone = await seedSource(h, w, { title: 'Call with Zebulon of Quuxcorp', segments: ['Zebulon says the Quuxcorp export to Excel takes twenty minutes.', 'Zebulon needs SAML single sign-on.'] });
    const kept = await seedSource(h, w, { title: 'Call with Initech', segments: ['Exports to Excel are slow for us too.'] });
    const added = await call(client, 'add_signals', { source_id: gone, signals: [signal('Zebulon: Quuxcorp exports are slow', 'Zebulon says the Quuxcorp export takes twenty minutes.'), signal('Zebulon needs SSO', 'Zebulon needs SAML single sign-on.', 'need')] });
    expect(added.isError, added.text).toBe(false);
    const keptSignal = await call(client, 'add_signals', { source_id: kept, signals: [signal('Slow Excel exports', 'Exports to Excel are slow for us too.', 'pain_point', 'ana@initech.test')] });
    expect(keptSignal.isError, keptSignal.text).toBe(false);
    await updateOpportunities({ pool: h.pool, semantics, clock: systemClock }, w.workspaceId, w.productId);
    const signalIds = (added.data!.signals as Array<{ id: string }>).map((s) => s.id);
    const { rows: opps } = await h.pool.query<{ id: string }>('SELECT DISTINCT opportunity_id AS id FROM opportunity_signals WHERE signal_id = ANY($1)', [signalIds]);

    // What each tool says about it beforehand: the checks below would see it.
    const ask = async () => [
      await call(client, 'find_sources', { query: 'Zebulon' }),
      await call(client, 'find_sources', { query: 'Quuxcorp export' }),
      await call(client, 'find_sources', {}),
      await call(client, 'read_source', { source_id: gone }),
      await call(client, 'view_item', { item_type: 'source', item_id: gone }),
      ...(await Promise.all(signalIds.map((id) => call(client, 'view_item', { item_type: 'signal', item_id: id })))),
      ...(await Promise.all(opps.map((o) => call(client, 'view_item', { item_type: 'opportunity', item_id: o.id })))),
      await call(client, 'get_opportunities', {}),
    ];
    const before = JSON.stringify(await ask());
    expect(before).toMatch(/Zebulon/);
    expect(before).toContain(gone);

    await deleteEvidence({ pool: h.pool, storage: createLocalStorage(dir), clock: systemClock }, w.workspaceId, { sourceIds: [gone] });

    const after = await ask();
    // Every answer that is not "not found" (those name the id asked for) holds nothing of it; the
    // search answers are read without the query they repeat.
    const answers = JSON.stringify(after.filter((r) => !r.isError).map((r) => ({ items: r.data?.items, item: r.data?.item, text: r.text.replace(/^# Sources for "[^"]*"/, '') })));
    expect(answers).not.toMatch(/Zebulon|Quuxcorp/i);
    expect(answers).not.toContain(gone);
    for (const id of signalIds) expect(answers).not.toContain(id);
    expect(answers).toContain(kept);
    // read_source, view_item of the source and of each of its signals: not found.
    for (const r of after.slice(3, 5 + signalIds.length)) expect(r.text).toMatch(/not found or access denied|does not exist or you are not allowed/);
  });
});
