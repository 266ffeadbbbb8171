import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { newId } from '@loupe/db';
import { confirmErasure, getErasure, requestErasure, runErasure } from '@loupe/erasure';
import { createBoss, ensureQueues, type Boss } from '@loupe/jobs';
import { systemClock } from '@loupe/http';
import { createSourceFromRecord } from '@loupe/sources';
import { createLocalStorage } from '@loupe/storage';
import { call, connectClient, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

// Issue 28 item 5: after a person's erasure no MCP tool finds anything of them.
let h: McpHarness;
let w: Workspace;
let client: Client;
let boss: Boss;
let dir: string;
beforeAll(async () => {
  h = await startMcpServer();
  w = await seedWorkspace(h);
  client = await connectClient(h, { key: w.key });
  boss = createBoss({ connectionString: h.t.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-mcp-erasure-'));
});
afterAll(async () => {
  await client?.close();
  await boss?.stop({ graceful: false, close: true });
  await h.close();
  await rm(dir, { recursive: true, force: true });
});

/** Traces of Ana: her name, address, participant id and the distinctive words she said. */
const TRACES = ['ana planted', 'planted', 'ana.planted', 'p-ana-7', 'zebra', 'quokka', 'pelican', 'narwhal'];

function expectNoTrace(label: string, text: string) {
  const lower = text.toLowerCase();
  for (const word of TRACES) {
    const at = lower.indexOf(word);
    expect(at < 0 ? '' : lower.slice(Math.max(0, at - 200), at + 80), `${label}: ${word}`).toBe('');
  }
}

const seen = (r: { text: string; data?: unknown }) => `${r.text}\n${JSON.stringify(r.data ?? {})}`;

describe('a person erased is gone from every MCP tool', () => {
  it('find_sources, read_source, view_item, get_opportunities, list_shaping_notes and add_source after the erasure', async () => {
    const storage = createLocalStorage(dir);
    const batch = newId('bat');
    await h.pool.query(
      `INSERT INTO batches (id, workspace_id, product_id, source, type, status, accepted_count, rejected_count, total_error_count)
       VALUES ($1, $2, $3, 'api', 'call', 'COMPLETE', 2, 0, 0)`, [batch, w.workspaceId, w.productId],
    );
    const records = [
      { type: 'call_transcription', participants: [{ id: 'p-ana-7', role: 'external', name: 'Ana Planted', email: 'ana.planted@globex.test' }, { id: 'p-bob', role: 'internal', name: 'Bob Keeper' }],
        data: { title: 'Call with Ana Planted', transcript: [{ speaker: 'Ana Planted', text: 'The zebra report is unusable.' }, { speaker: 'Bob Keeper', text: 'Noted, Ana Planted. Exports are next.' }] } },
      { type: 'email', participants: null, data: { subject: 'Dashboards', from: 'Ana Planted <ana.planted@globex.test>', body: 'Our quokka dashboards never load.' } },
    ];
    const sources: string[] = [];
    for (const [i, r] of records.entries()) {
      const id = newId('rec');
      await h.pool.query(
        `INSERT INTO records (id, workspace_id, batch_id, position, dedup_key, type, nature, product_id, project_ids, event_at, vendor_ids, participants, tags, data)
         VALUES ($1, $2, $3, $4, $5, $6, 'evidence', $7, $8, now(), '{"gong":"x"}', $9, '{}', $10::json)`,
        [id, w.workspaceId, batch, i, `k-${id}`, r.type, w.productId, [w.projectId], r.participants && JSON.stringify(r.participants), JSON.stringify(r.data)],
      );
      const key = `${w.workspaceId}/${batch}/${id}`;
      await storage.put(key, Readable.from([Buffer.from('Ana Planted speaking')]), { maxBytes: 100 });
      await h.pool.query(`INSERT INTO attachments (id, workspace_id, batch_id, record_id, position, type, filename, status, storage_key) VALUES ($1, $2, $3, $4, 0, 'audio', 'ana-planted.mp3', 'COMPLETE', $5)`,
        [newId('att'), w.workspaceId, batch, id, key]);
      sources.push((await createSourceFromRecord(h.pool, {
        id, workspaceId: w.workspaceId, productId: w.productId, projectIds: [w.projectId], type: r.type, nature: 'evidence', eventAt: new Date(),
        data: r.data, participants: r.participants, tags: [], threadId: null,
      })).sourceId);
    }
    const said = await call(client, 'add_signals', { source_id: sources[0], signals: [
      { type: 'pain_point', title: 'Zebra report unusable', content: '"The zebra report is unusable."', who_said_it: 'Ana Planted', participant_id: 'p-ana-7' },
      { type: 'need', title: 'Exports next', content: 'Bob told Ana Planted exports are next.', who_said_it: 'Bob Keeper' },
    ] });
    expect(said.isError, said.text).toBe(false);
    const signalIds = (said.data!.signals as Array<{ id: string }>).map((s) => s.id);
    const opp = newId('opp');
    await h.pool.query(
      `INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, created_at, updated_at, keywords, central_signal_id)
       VALUES ($1, $2, $3, 'Ana Planted: zebra report', 'Zebra report unusable', 'problem', 2, 1, now(), now(), '{zebra,report}', $4)`,
      [opp, w.workspaceId, w.productId, signalIds[0]],
    );
    for (const s of signalIds) await h.pool.query('INSERT INTO opportunity_signals (opportunity_id, signal_id) VALUES ($1, $2)', [opp, s]);
    const note = await call(client, 'create_shaping_note', { title: 'Export PRD', content: '# Export\n\n> "The pelican export is broken"\n— Ana Planted\n\nBob owns it.' });
    expect(note.isError, note.text).toBe(false);
    const noteId = note.data!.id as string;
    expect((await call(client, 'update_shaping_note', { note_id: noteId, content: '# Export v2\n\n> The narwhal report (ana.planted@globex.test)\n\nBob owns it.' })).isError).toBe(false);

    const before = seen(await call(client, 'find_sources', { query: 'zebra' }));
    expect(before.toLowerCase()).toContain('zebra');

    // a dry run offers her name; the owner confirms it, so mentions of "Ana Planted" go too
    const erasure = await requestErasure(h.pool, boss, { workspaceId: w.workspaceId, participantId: 'p-ana-7', dryRun: true, by: { userId: w.userId, label: 'owner' }, now: new Date() });
    const eraseDeps = { pool: h.pool, boss, storage, clock: systemClock };
    expect((await runErasure(eraseDeps, w.workspaceId, erasure.id)).status).toBe('previewed');
    const offered = (await getErasure(h.pool, w.workspaceId, erasure.id))!.preview!.names;
    expect(offered).toEqual([expect.objectContaining({ name: 'Ana Planted', shared: false })]);
    await confirmErasure(h.pool, boss, { workspaceId: w.workspaceId, erasureId: erasure.id, names: ['Ana Planted'], by: { userId: w.userId, label: 'owner' }, now: new Date() });
    expect((await runErasure(eraseDeps, w.workspaceId, erasure.id)).status).toBe('complete');

    for (const query of ['zebra', 'Ana Planted', 'Planted', 'ana.planted@globex.test', 'quokka']) {
      const r = await call(client, 'find_sources', { query });
      // the answer repeats the query it was asked: that is the caller's text, not stored data
      expectNoTrace(`find_sources ${query}`, seen(r).toLowerCase().split(query.toLowerCase()).join('<query>'));
      if (!r.isError) expect(r.data!.items ?? r.data!.sources ?? [], query).toEqual([]);
    }
    expectNoTrace('find_sources (list)', seen(await call(client, 'find_sources', {})));
    for (const id of sources) {
      expectNoTrace(`read_source ${id}`, seen(await call(client, 'read_source', { source_id: id })));
      expectNoTrace(`view_item source ${id}`, seen(await call(client, 'view_item', { item_type: 'source', item_id: id })));
    }
    for (const id of signalIds) expectNoTrace(`view_item signal ${id}`, seen(await call(client, 'view_item', { item_type: 'signal', item_id: id })));
    expectNoTrace('view_item opportunity', seen(await call(client, 'view_item', { item_type: 'opportunity', item_id: opp })));
    expectNoTrace('get_opportunities', seen(await call(client, 'get_opportunities', {})));
    expectNoTrace('view_item note', seen(await call(client, 'view_item', { item_type: 'shaping_note', item_id: noteId })));
    expectNoTrace('view_item note v1', seen(await call(client, 'view_item', { item_type: 'shaping_note', item_id: noteId, version: 1 })));
    expectNoTrace('list_shaping_notes', seen(await call(client, 'list_shaping_notes', {})));
    expect((await call(client, 'list_shaping_notes', { query: 'Planted' })).data!.items ?? []).toEqual([]);
    // what others said stays
    expect(seen(await call(client, 'read_source', { source_id: sources[0] }))).toContain('Exports are next');
    expect(seen(await call(client, 'view_item', { item_type: 'shaping_note', item_id: noteId }))).toContain('Bob owns it');
    const { rows } = await h.pool.query('SELECT storage_key FROM attachments WHERE workspace_id = $1', [w.workspaceId]);
    expect(rows.every((r) => r.storage_key === null)).toBe(true);

    // and nothing about her comes back in
    const again = await call(client, 'add_source', { project_id: w.projectId, source_type: 'call_transcription', transcript_turns: [{ speaker: 'Ana', text: 'Hi' }],
      participants: [{ name: 'Ana', email: 'someone@globex.test' }] });
    expect(again.isError, again.text).toBe(false);
    for (const participants of [[{ email: 'ana.planted@globex.test' }], [{ name: 'p-ana-7' }]]) {
      const refused = await call(client, 'add_source', { project_id: w.projectId, source_type: 'email', content: 'Hello again', participants });
      expect(refused.isError, JSON.stringify(participants)).toBe(true);
      expect(refused.text).toMatch(/participants\[0\]\.(email|id): names a person erased from this workspace \(suppression sup_/);
      expect(refused.text).not.toMatch(/p-ana-7|planted/i);
    }
  });
});
