import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { withTransaction } from '@loupe/db';
import { addSuppression } from '@loupe/erasure';
import { call, connectClient, seedSource, seedWorkspace, startMcpServer, type McpHarness, type Workspace } from './test/harness';

// Issue 41 finding 7c: an AI client cannot write a person erased from the workspace back into a signal.
let h: McpHarness;
let w: Workspace;
let client: Client;
let sourceId: string;
beforeAll(async () => {
  h = await startMcpServer();
  w = await seedWorkspace(h);
  client = await connectClient(h, { key: w.key });
  sourceId = await seedSource(h, w, { segments: ['Exports to Excel take twenty minutes.'] });
  await withTransaction(h.pool, async (c) => {
    await addSuppression(c, { workspaceId: w.workspaceId, kind: 'email', value: 'sig.ana@globex.test', by: 'owner', now: new Date() });
    await addSuppression(c, { workspaceId: w.workspaceId, kind: 'participant_id', value: 'P-Sig-Ana', by: 'owner', now: new Date() });
  });
});
afterAll(async () => {
  await client?.close();
  await h.close();
});

const signal = (extra: Record<string, unknown> = {}) => ({ type: 'pain_point', title: 'Slow exports', content: '"Exports take twenty minutes."', ...extra });
const refusal = (what: string, field: string) => new RegExp(
  `^${what} were refused: ${field.replace(/[[\].]/g, '\\$&')}: names a person erased from this workspace \\(suppression sup_\\w+\\); records about them are refused until the suppression is lifted\\. ` +
  'Leave them out, or ask the workspace\'s owner to lift the suppression \\(account pages, Privacy\\)\\.$',
);
const signalCount = async () => (await h.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM signals WHERE workspace_id = $1', [w.workspaceId])).rows[0]!.n;

describe('signals naming a suppressed person', () => {
  it('add_signals refuses them all, naming the field: participant id (any case), who said it, an address in the text', async () => {
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ participant_id: 'p-sig-ana' }, 'signals[1].participant_id'],
      [{ who_said_it: 'Ana <sig.ana@globex.test>' }, 'signals[1].who_said_it'],
      [{ who_said_it: 'P-SIG-ANA' }, 'signals[1].who_said_it'],
      [{ content: 'Ana (SIG.ANA@globex.test) says exports are slow' }, 'signals[1].content'],
      [{ title: 'Write to sig.ana@globex.test' }, 'signals[1].title'],
      [{ theme: 'sig.ana@globex.test exports' }, 'signals[1].theme'],
      [{ quote: 'write to sig.ana@globex.test about exports' }, 'signals[1].quote'],
    ];
    for (const [extra, field] of cases) {
      const r = await call(client, 'add_signals', { source_id: sourceId, signals: [signal({ title: 'Fine one' }), signal(extra)] });
      expect(r.isError, JSON.stringify(extra)).toBe(true);
      expect(r.text).toMatch(refusal('The signals', field));
      // "ana" starting a word (her name, email, participant id): a random id can hold it inside (era_…qana0…).
      expect(r.text).not.toMatch(/\bana/i);
    }
    expect(await signalCount()).toBe(0);
    const ok = await call(client, 'add_signals', { source_id: sourceId, signals: [signal({ who_said_it: 'Bob <bob@globex.test>', participant_id: 'p-bob' })] });
    expect(ok.isError, ok.text).toBe(false);
    expect(await signalCount()).toBe(1);
  });

  it('update_signals refuses an update that would name them, and leaves the signal as it was', async () => {
    const added = await call(client, 'add_signals', { source_id: sourceId, signals: [signal({ title: 'To edit', content: 'Someone says exports are slow.' })] });
    const id = (added.data!.signals as Array<{ id: string }>)[0]!.id;
    for (const [update, field] of [
      [{ participant_id: 'P-SIG-ANA' }, 'updates[0].participant_id'],
      [{ who_said_it: 'sig.ana@globex.test' }, 'updates[0].who_said_it'],
      [{ content: 'Said by sig.ana@globex.test' }, 'updates[0].content'],
      [{ quote: 'Said by sig.ana@globex.test' }, 'updates[0].quote'],
    ] as const) {
      const r = await call(client, 'update_signals', { updates: [{ id, ...update }] });
      expect(r.isError, JSON.stringify(update)).toBe(true);
      expect(r.text).toMatch(refusal('The updates', field));
    }
    const { rows } = await h.pool.query('SELECT content, who_said_it, participant_id FROM signals WHERE id = $1', [id]);
    expect(rows[0]).toEqual({ content: 'Someone says exports are slow.', who_said_it: null, participant_id: null });
    expect((await call(client, 'update_signals', { updates: [{ id, content: 'Bob says exports are slow.' }] })).isError).toBe(false);
  });
});
