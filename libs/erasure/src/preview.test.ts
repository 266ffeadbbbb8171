import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useErasureEnvironment } from './test/environment';
import type { TestDatabase } from '@loupe/db/testing';
import { addSignals } from '@loupe/evidence';
import { type Boss } from '@loupe/jobs';
import { createShapingNote } from '@loupe/shaping';
import type { Storage } from '@loupe/storage';
import {
  confirmErasure, ERASED, ErasureInputError, ErasureStateError, failErasure, getErasure, listSuppressions, parseConfirmInput, parseErasureInput, PREVIEW_TTL_MS,
  requestErasure, runErasure,
} from './index';
import { plantPerson, twoPeople, type Asked } from './test/people';
import { addRecord, snapshot, workspace } from './test/plant';

// Issue 41, finding 3: names found beside the person's address or id are offered by a dry run, never
// assumed; a name another participant carries too is never used.
let t: TestDatabase;
let boss: Boss;
let storage: Storage;
let now = Date.UTC(2026, 10, 1);
const clock = { now: () => now++ };

useErasureEnvironment('loupe-erasure-preview-', (env) => ({ t, boss, storage } = env));

const deps = () => ({ pool: t.pool, boss, storage, clock });
const by = { userId: 'usr_1', label: 'owner@loupe.test' };

async function preview(ws: string, asked: Asked) {
  const dry = await requestErasure(t.pool, boss, { workspaceId: ws, ...asked, dryRun: true, by, now: new Date(clock.now()) });
  expect(dry).toMatchObject({ status: 'queued', dryRun: true });
  expect((await runErasure(deps(), ws, dry.id)).status).toBe('previewed');
  return (await getErasure(t.pool, ws, dry.id))!;
}

/** Everything a workspace holds but the erasure requests and jobs (which a dry run adds). */
async function everything(ws: string): Promise<string> {
  const parts: string[] = [];
  for (const table of ['records', 'sources', 'signals', 'signal_changes', 'shaping_notes', 'opportunities', 'suppressions', 'attachments', 'batches']) {
    const { rows } = await t.pool.query(`SELECT row_to_json(x)::text AS j FROM ${table} x WHERE workspace_id = $1 ORDER BY 1`, [ws]);
    parts.push(...rows.map((r) => r.j));
  }
  const { rows } = await t.pool.query('SELECT row_to_json(g)::text AS j FROM source_segments g JOIN sources s ON s.id = g.source_id WHERE s.workspace_id = $1 ORDER BY 1', [ws]);
  return [...parts, ...rows.map((r) => r.j)].join('\n');
}

describe('a dry run', () => {
  it('changes nothing and suppresses no one; it counts and samples what would go, and offers the names found, saying which are shared', async () => {
    const w = await workspace(t.pool);
    const call = await addRecord(t.pool, w, {
      participants: [{ id: 'p-ana-7', name: 'Ana Planted', email: 'ana@globex.test' }, { id: 'p-bob', name: 'Bob Keeper' }],
      data: { title: 'Call', transcript: [{ speaker: 'Ana Planted', text: 'The zebra report is unusable.' }, { speaker: 'Bob Keeper', text: 'Thanks Ana Planted.' }] },
    });
    // a role label Ana and Carla both carry: shared
    await addRecord(t.pool, w, { participants: [{ id: 'p-ana-7', name: 'Customer' }], data: { transcript: [{ speaker: 'Customer', text: 'Hi.' }] } });
    await addRecord(t.pool, w, { participants: [{ id: 'p-carla', name: 'Customer' }], data: { transcript: [{ speaker: 'Customer', text: 'Carla here.' }] } });
    await addSignals(t.pool, { workspaceId: w.ws, sourceId: call.source, items: [
      { type: 'pain_point', title: 'Zebra', content: 'The zebra report is unusable.', whoSaidIt: 'Ana Planted', participantId: 'p-ana-7' },
      { type: 'need', title: 'Follow up', content: 'Bob promised Ana Planted a fix.', whoSaidIt: 'Bob Keeper', participantId: 'p-bob' },
    ] }, clock);
    await createShapingNote(t.pool, { workspaceId: w.ws, productId: w.prod, title: 'PRD', content: '> "Unusable"\n— Ana Planted\n\nBob owns it.' }, clock);
    const before = await everything(w.ws);

    const view = await preview(w.ws, { participantId: 'P-ANA-7' });

    expect(await everything(w.ws)).toBe(before);
    expect(await listSuppressions(t.pool, w.ws)).toEqual([]);
    expect(view).toMatchObject({ status: 'previewed', dryRun: true, counts: { records: 2, sources: 2, segments: 2, signalsDeleted: 1 } });
    const p = view.preview!;
    expect(p.expiresAt.getTime() - view.updatedAt.getTime()).toBeGreaterThan(PREVIEW_TTL_MS - 60_000);
    expect(p.identifiers).toEqual([{ kind: 'email', value: 'ana@globex.test', shared: false, sharedWith: 0 }]);
    // Bob's signal and the note's quotation: what confirming her name adds (Bob's turn is in a record erased anyway)
    expect(p.names).toEqual([
      { name: 'Ana Planted', shared: false, sharedWith: 0, mentions: 2 },
      { name: 'Customer', shared: true, sharedWith: 1, mentions: null },
    ]);
    expect(p.samples.map((s) => s.kind).sort()).toEqual(['record', 'record', 'signal', 'source', 'source']);
    expect(p.samples.find((s) => s.kind === 'source')).toMatchObject({ before: 'Ana Planted: The zebra report is unusable.', after: `${ERASED}: ${ERASED}` });
    expect(p.samples.find((s) => s.kind === 'signal')).toMatchObject({ before: 'The zebra report is unusable.', after: null });

    // a shared name, or one not offered, is refused by name; the preview stays as it was
    await expect(confirmErasure(t.pool, boss, { workspaceId: w.ws, erasureId: view.id, names: ['Ana Planted', 'customer'], by, now: new Date(clock.now()) }))
      .rejects.toThrow(new ErasureInputError('names[1]: "customer" is shared with 1 other participant and is never looked for'));
    await expect(confirmErasure(t.pool, boss, { workspaceId: w.ws, erasureId: view.id, names: ['Bob Keeper'], by, now: new Date(clock.now()) }))
      .rejects.toThrow(/^names\[0\]: "Bob Keeper" was not offered by this preview/);
    expect((await getErasure(t.pool, w.ws, view.id))!.status).toBe('previewed');

    // confirmed with her name: the erasure runs, with it
    const confirmed = await confirmErasure(t.pool, boss, { workspaceId: w.ws, erasureId: view.id, names: ['ana planted'], by: { keyId: 'key_1', label: 'API key key_1' }, now: new Date(clock.now()) });
    expect(confirmed).toMatchObject({ id: view.id, status: 'queued', dryRun: false, counts: {}, requestedBy: 'API key key_1' });
    await expect(confirmErasure(t.pool, boss, { workspaceId: w.ws, erasureId: view.id, names: [], by, now: new Date(clock.now()) })).rejects.toThrow(ErasureStateError);
    expect((await runErasure(deps(), w.ws, view.id)).status).toBe('complete');
    const done = (await getErasure(t.pool, w.ws, view.id))!;
    expect(done).toMatchObject({ status: 'complete', counts: { records: 2, signalsDeleted: 1, signalsRedacted: 1, shapingNotes: 1 } });
    expect(done.preview).toBeUndefined();
    const { rows: [rec] } = await t.pool.query('SELECT data FROM records WHERE id = $1', [call.record]);
    expect(rec.data.transcript).toEqual([{ speaker: ERASED, text: ERASED }, { speaker: 'Bob Keeper', text: `Thanks ${ERASED}.` }]);
    // Carla's "Customer" call is as it was
    expect(await everything(w.ws)).toContain('Carla here.');
    expect((await listSuppressions(t.pool, w.ws)).map((s) => s.kind).sort()).toEqual(['email', 'participant_id']);
  });

  it('expires: after 24 hours what it found is dropped and it can no longer be confirmed', async () => {
    const w = await workspace(t.pool);
    await addRecord(t.pool, w, { participants: [{ id: 'p-hal-1', name: 'Hal Berg', email: 'hal@berg.test' }], data: { transcript: [{ speaker: 'Hal Berg', text: 'Hi.' }] } });
    const view = await preview(w.ws, { participantId: 'p-hal-1' });
    // its expiry is queued with it
    const { rows: jobs } = await t.pool.query("SELECT 1 FROM pgboss.job WHERE name = 'person.erase' AND data->>'erasureId' = $1 AND start_after > now() + interval '1 hour'", [view.id]);
    expect(jobs.length).toBe(1);
    expect((await runErasure(deps(), w.ws, view.id)).status).toBe('previewed'); // not yet
    now += PREVIEW_TTL_MS;
    await expect(confirmErasure(t.pool, boss, { workspaceId: w.ws, erasureId: view.id, names: [], by, now: new Date(clock.now()) })).rejects.toThrow(/expired/);
    expect((await runErasure(deps(), w.ws, view.id)).status).toBe('expired');
    const { rows: [row] } = await t.pool.query('SELECT status, subject FROM erasure_requests WHERE id = $1', [view.id]);
    expect(row).toEqual({ status: 'expired', subject: null });
    expect((await getErasure(t.pool, w.ws, view.id))!).toMatchObject({ status: 'expired', dryRun: true });
    await expect(confirmErasure(t.pool, boss, { workspaceId: w.ws, erasureId: view.id, names: [], by, now: new Date(clock.now()) })).rejects.toThrow(/expired/);
  });

  it('parses its input', () => {
    expect(parseErasureInput({ email: 'a@b.test', dry_run: true })).toEqual({ email: 'a@b.test', dryRun: true });
    expect(() => parseErasureInput({ email: 'a@b.test', dry_run: 'yes' })).toThrow('dry_run: must be true or false');
    expect(parseConfirmInput({})).toEqual({ names: [] });
    expect(parseConfirmInput({ names: [' Ana '] })).toEqual({ names: ['Ana'] });
    expect(() => parseConfirmInput({ names: 'Ana' })).toThrow(/^names: must be a list/);
    expect(() => parseConfirmInput({ names: ['Ana', 7] })).toThrow(/^names\[1\]: must be a name/);
  });
});

describe('property: erasing A, with every name the preview offers confirmed, never changes what names only B', () => {
  it('records, sources, segments, signals, notes and job results of B stay byte-identical', { timeout: 120_000 }, async () => {
    await fc.assert(fc.asyncProperty(twoPeople, async ({ a, b, asked }) => {
      const w = await workspace(t.pool);
      await plantPerson(t.pool, boss, w, a);
      const theirs = await plantPerson(t.pool, boss, w, b);
      const before = await snapshot(t.pool, theirs);
      const view = await preview(w.ws, asked);
      expect(await snapshot(t.pool, theirs)).toBe(before);
      const names = view.preview!.names.filter((n) => !n.shared).map((n) => n.name);
      // a name B carries too is shared, never offered for use
      if (a.name.toLowerCase() === b.name.toLowerCase()) expect(names).toEqual([]);
      await confirmErasure(t.pool, boss, { workspaceId: w.ws, erasureId: view.id, names, by, now: new Date(clock.now()) });
      expect((await runErasure(deps(), w.ws, view.id)).status).toBe('complete');
      expect(await snapshot(t.pool, theirs)).toBe(before);
    }), { numRuns: 30 });
  });
});

describe('a dry run that fails', () => {
  it('drops what it found (it changed nothing) and stays failed: asking again starts a new one', async () => {
    const w = await workspace(t.pool);
    await addRecord(t.pool, w, { participants: [{ id: 'p-ivy-1', name: 'Ivy Lee', email: 'ivy@lee.test' }], data: { transcript: [{ speaker: 'Ivy Lee', text: 'Hi.' }] } });
    const dry = await requestErasure(t.pool, boss, { workspaceId: w.ws, email: 'ivy@lee.test', dryRun: true, by, now: new Date(clock.now()) });
    await runErasure(deps(), w.ws, dry.id, { maxSlices: 2 });
    await failErasure(t.pool, w.ws, dry.id, 'gave up after 11 attempts', new Date(clock.now()));
    const { rows: [row] } = await t.pool.query('SELECT status, subject FROM erasure_requests WHERE id = $1', [dry.id]);
    expect(row).toEqual({ status: 'failed', subject: null });
    expect((await getErasure(t.pool, w.ws, dry.id))!).toMatchObject({ status: 'failed', dryRun: true, error: 'gave up after 11 attempts' });
    expect((await runErasure(deps(), w.ws, dry.id)).status).toBe('failed');
    expect(await listSuppressions(t.pool, w.ws)).toEqual([]);
  });
});
