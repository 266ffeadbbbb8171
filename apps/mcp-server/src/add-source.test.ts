import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { call, connectClient, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';
import { docxBomb, pdfBomb } from './testing/document-bombs';

let h: McpHarness;
let w: Workspace;
let other: Workspace;
let client: Client;
beforeAll(async () => {
  h = await startMcpServer();
  w = await seedWorkspace(h);
  other = await seedWorkspace(h, 'Other');
  client = await connectClient(h, { key: w.readOnlyKey }); // add_source needs only mcp:read (spec 5.3 rule 3)
});
afterAll(async () => {
  await client?.close();
  await h.close();
});

async function landed(recordId: string) {
  const { rows } = await h.pool.query(
    `SELECT r.type, r.nature, r.product_id, r.project_ids, r.vendor_ids, r.data, b.source, b.status, b.workspace_id
       FROM records r JOIN batches b ON b.id = r.batch_id WHERE r.id = $1`,
    [recordId],
  );
  return rows[0];
}

describe('add_source', () => {
  it('a note lands as a record of an mcp batch, queued for the worker like ingested records', async () => {
    const r = await call(client, 'add_source', { project_id: w.projectId, source_type: 'meeting_notes', title: 'Sync with Globex', content: '# Notes\nThey want CSV export.' });
    expect(r.isError, r.text).toBe(false);
    expect(r.data).toMatchObject({ already_exists: false, status: 'processing', record_id: expect.stringMatching(/^rec_/) });
    expect(r.data).not.toHaveProperty('source_id'); // not built yet: left out, not null
    expect(await landed(r.data!.record_id)).toMatchObject({
      type: 'meeting_notes', nature: 'evidence', product_id: w.productId, project_ids: [w.projectId], source: 'mcp', status: 'LANDED', workspace_id: w.workspaceId,
      data: { title: 'Sync with Globex', content: '# Notes\nThey want CSV export.' },
    });
    const { rows } = await h.pool.query(`SELECT count(*)::int AS n FROM pgboss.job WHERE data->>'batchId' = $1`, [r.data!.batch_id]);
    expect(rows[0].n).toBe(1);
  });

  it('meetings from transcript turns, communications from messages, text files from base64', async () => {
    const meeting = await call(client, 'add_source', { project_id: w.projectId, source_type: 'call_transcription', transcript_turns: [{ speaker: 'Ana', text: 'Exports are slow.', start_ms: 0 }], participants: [{ email: 'ana@globex.com', role: 'external' }] });
    expect((await landed(meeting.data!.record_id)).data.transcript).toEqual([{ speaker: 'Ana', text: 'Exports are slow.', start_ms: 0 }]);
    const thread = await call(client, 'add_source', { project_id: w.projectId, source_type: 'email_thread', messages: [{ author: 'ana@globex.com', text: 'Any news on SSO?' }] });
    expect((await landed(thread.data!.record_id)).data.messages).toEqual([{ from: 'ana@globex.com', text: 'Any news on SSO?' }]);
    const file = await call(client, 'add_source', { project_id: w.projectId, source_type: 'document', file_base64: Buffer.from('# Survey\nResults').toString('base64'), filename: 'survey.md' });
    expect((await landed(file.data!.record_id)).data).toMatchObject({ filename: 'survey.md', content: '# Survey\nResults' });
  });

  it('the same external_source and external_id again: already_exists, nothing landed twice', async () => {
    const args = { project_id: w.projectId, source_type: 'call', content: 'Call notes', external_source: 'zoom', external_id: 'm-123' };
    const first = await call(client, 'add_source', args);
    const again = await call(client, 'add_source', { ...args, content: 'Different text, same meeting', occurred_at: '2026-01-01T00:00:00Z' });
    expect(again.data).toMatchObject({ already_exists: true, record_id: first.data!.record_id });
    const { rows } = await h.pool.query(`SELECT count(*)::int AS n FROM records WHERE vendor_ids @> '{"zoom":"m-123"}'`);
    expect(rows[0].n).toBe(1);
    // another workspace may use the same pair for its own meeting
    const c2 = await connectClient(h, { key: other.key });
    expect((await call(c2, 'add_source', { ...args, project_id: other.projectId })).data!.already_exists).toBe(false);
    await c2.close();
  });

  it.each([
    [{ external_source: 'zoom' }, /^external_source and external_id go together/],
    [{ content: 'a', messages: [{ author: 'x', text: 'y' }] }, /^Give only one of/],
    [{}, /^Nothing to add/],
    [{ content: 'x', media_url: 'http://insecure.example.com/a.mp3' }, /https/],
    [{ file_base64: Buffer.from([0, 1, 2, 255]).toString('base64'), filename: 'deck.key' }, /not a format Loupe reads/],
    // Issue 24 item 9: a broken encoding is named as such, not as an unreadable format.
    [{ file_base64: '%%% this is not base64 %%%', filename: 'notes.md' }, /^file_base64 is not valid base64/],
    // Issue 24 item 4: an unknown argument is refused by name, with the ones that exist.
    [{ content: 'x', text: 'hello' }, /^Invalid arguments for add_source: unknown argument "text": add_source takes only project_id, source_type, .*content/],
  ])('refuses %j', async (extra, message) => {
    const r = await call(client, 'add_source', { project_id: w.projectId, source_type: 'document', ...(('content' in extra || 'messages' in extra || 'file_base64' in extra || Object.keys(extra).length === 0) ? {} : { content: 'x' }), ...extra });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(message);
  });

  it('another workspace\'s project is answered like one that does not exist', async () => {
    const a = await call(client, 'add_source', { project_id: other.projectId, source_type: 'document', content: 'x' });
    const b = await call(client, 'add_source', { project_id: 'proj_nope', source_type: 'document', content: 'x' });
    expect(a.text.replace(other.projectId, 'ID')).toBe(b.text.replace('proj_nope', 'ID'));
    expect(a.text).toMatch(/^Project not found or access denied/);
  });

  it('text over 4 MB is refused with the limit named', async () => {
    const r = await call(client, 'add_source', { project_id: w.projectId, source_type: 'document', content: 'x'.repeat(4 * 1024 * 1024 + 10) });
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(/4 MB/);
  });

  // The record is no longer serialised and re-parsed to be validated: what PostgreSQL cannot store is still caught outside `data`.
  it('a NUL character in a participant is refused by name; in the text it is kept, as ingestion keeps it', async () => {
    const bad = await call(client, 'add_source', { project_id: w.projectId, source_type: 'document', content: 'x', participants: [{ name: 'Ana\u0000', role: 'external' }] });
    expect(bad.isError).toBe(true);
    expect(bad.text).toMatch(/_participants\[0\]\.id.*NUL character/);
    const kept = await call(client, 'add_source', { project_id: w.projectId, source_type: 'document', content: 'before\u0000after \ud800 lone' });
    expect(kept.isError, kept.text).toBe(false);
    expect((await landed(kept.data!.record_id)).data.content).toBe('before\u0000after \ud800 lone');
  });

  // Issue 23 item 1: these parsed on the event loop of the one process, which stalled or died.
  it.each([
    ['a PDF whose stream inflates to 50 MB', 'bomb.pdf', () => Promise.resolve(pdfBomb(50))],
    ['a Word file whose zip inflates to 45 MB', 'bomb.docx', () => docxBomb(45)],
  ])('%s: a tool error within 5 s, free, while the server keeps answering', async (_what, filename, build) => {
    const file = (await build()).toString('base64');
    const balance = async () => (await h.pool.query('SELECT credit_balance FROM workspaces WHERE id = $1', [w.workspaceId])).rows[0].credit_balance as number;
    const before = await balance();
    const started = performance.now();
    let calling = true;
    const probe = (async () => {
      let slowest = 0;
      while (calling) {
        const t = performance.now();
        await (await fetch(`${h.url}/.well-known/oauth-protected-resource`)).arrayBuffer();
        slowest = Math.max(slowest, performance.now() - t);
        await new Promise((r) => setTimeout(r, 50));
      }
      return slowest;
    })();
    const r = await call(client, 'add_source', { project_id: w.projectId, source_type: 'document', file_base64: file, filename });
    calling = false;
    const slowest = await probe;
    expect(r.isError).toBe(true);
    expect(r.text).toMatch(new RegExp(`^file_base64: ${filename.replace('.', '\\.')} .*Extract its text and send it as content instead\\.$`));
    expect(performance.now() - started).toBeLessThan(5000);
    expect(slowest).toBeLessThan(250);
    expect(await balance()).toBe(before);
  }, 60_000);
});
