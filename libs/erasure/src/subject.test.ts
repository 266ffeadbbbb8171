import { Readable } from 'node:stream';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useErasureEnvironment } from './test/environment';
import { newId } from '@loupe/db';
import type { TestDatabase } from '@loupe/db/testing';
import { addSignals } from '@loupe/evidence';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { sweepStorageDeletions } from '@loupe/lifecycle';
import { createShapingNote } from '@loupe/shaping';
import type { Storage } from '@loupe/storage';
import { ERASED, failErasure, getErasure, listSuppressions, parseErasureInput, requestErasure, runErasure } from './index';
import { plantPerson, twoPeople } from './test/people';
import { addRecord, snapshot, workspace } from './test/plant';

// Issue 41, finding 3: an erasure takes out the person it is asked for and no one else.
let t: TestDatabase;
let boss: Boss;
let storage: Storage;
let now = Date.UTC(2026, 10, 1);
const clock = { now: () => now++ };

useErasureEnvironment('loupe-erasure-subject-', (env) => ({ t, boss, storage } = env));

const deps = (s: Storage = storage) => ({ pool: t.pool, boss, storage: s, clock });
const by = { label: 'owner@loupe.test' };

async function erase(ws: string, asked: { participantId?: string; email?: string }) {
  const erasure = await requestErasure(t.pool, boss, { workspaceId: ws, ...asked, by, now: new Date(clock.now()) });
  expect((await runErasure(deps(), ws, erasure.id)).status).toBe('complete');
  return erasure;
}

const segments = async (source: string) =>
  (await t.pool.query<{ speaker: string; text: string }>('SELECT speaker, text FROM source_segments WHERE source_id = $1 ORDER BY position', [source])).rows;

describe('who the person is', () => {
  it('erasing cust-1 leaves cust-2\'s call (record, source, segments, speakers) exactly as it was; cust-1\'s own turn goes', async () => {
    const w = await workspace(t.pool);
    const call = (id: string, words: string) => ({ participants: [{ id, name: 'Customer' }], data: { title: 'Support call', transcript: [{ speaker: 'Customer', text: words }] } });
    const one = await addRecord(t.pool, w, call('cust-1', 'The walrus export is broken.'));
    const two = await addRecord(t.pool, w, call('cust-2', 'Please keep my heron dashboard.'));
    const theirs = await addSignals(t.pool, { workspaceId: w.ws, sourceId: two.source, items: [
      { type: 'pain_point', title: 'Heron dashboard', content: 'Please keep my heron dashboard.', whoSaidIt: 'Customer', participantId: 'cust-2' },
      { type: 'quote', title: 'Heron', content: 'Keep the heron.', whoSaidIt: 'Customer' },
    ] }, clock);
    const before = await snapshot(t.pool, { records: [two.record], sources: [two.source], signals: theirs.results.map((r) => r.id) });
    expect((await segments(two.source))).toEqual([{ speaker: 'Customer', text: 'Please keep my heron dashboard.' }]);

    await erase(w.ws, { participantId: 'cust-1' });

    expect(await snapshot(t.pool, { records: [two.record], sources: [two.source], signals: theirs.results.map((r) => r.id) })).toBe(before);
    // in cust-1's own call "Customer" is cust-1 (their entry says so, and no one else there is "Customer")
    expect(await segments(one.source)).toEqual([{ speaker: ERASED, text: ERASED }]);
    const { rows: [rec] } = await t.pool.query('SELECT participants, data FROM records WHERE id = $1', [one.record]);
    expect(rec).toEqual({ participants: [], data: { title: 'Support call', transcript: [{ speaker: ERASED, text: ERASED }] } });
  });

  it('refuses a participant id shorter than 3 characters, naming the field and the minimum', () => {
    for (const id of ['4', '42', ' 42 ', 'é1']) {
      expect(() => parseErasureInput({ participant_id: id }), id).toThrow(/^participant_id: must be at least 3 characters \(this one has \d\)/);
    }
    expect(parseErasureInput({ participant_id: '423' })).toMatchObject({ participantId: '423' });
  });

  it('a speaker, a sender or who said a signal is the person only when equal to what identifies them, never by containment', async () => {
    const w = await workspace(t.pool);
    const ana = await addRecord(t.pool, w, {
      participants: [{ id: 'cust-1', name: 'Ana Planted', email: 'ana@globex.test' }],
      data: { transcript: [{ speaker: 'Ana Planted', text: 'The walrus export is broken.' }] },
    });
    // Someone else whose id, address and name hold Ana's
    const other = await addRecord(t.pool, w, {
      type: 'email',
      participants: [{ id: 'cust-10', name: 'Ana Planted-Smith', email: 'mary.ana@globex.test' }, { id: 'x-cust-1', name: 'Ana Planted 2', email: 'x-ana@globex.test' }],
      data: {
        from: 'Ana Planted-Smith <mary.ana@globex.test>', subject: 'cust-10 and cust-1-b',
        transcript: [
          { speaker: 'Ana Planted-Smith', text: 'Write to mary.ana@globex.test, x-ana@globex.test or ana@globex.test.uk about cust-10 and cust-1-b.' },
          { speaker: 'Ana Planted 2', text: 'And x-cust-1 too.' },
        ],
      },
    });
    const said = await addSignals(t.pool, { workspaceId: w.ws, sourceId: other.source, items: [
      { type: 'pain_point', title: 'Heron', content: 'The heron report is late.', whoSaidIt: 'Ana Planted-Smith', participantId: 'cust-10' },
      { type: 'quote', title: 'Heron 2', content: 'Heron again.', whoSaidIt: 'Ana Planted 2' },
    ] }, clock);
    const before = await snapshot(t.pool, { records: [other.record], sources: [other.source], signals: said.results.map((r) => r.id) });

    await erase(w.ws, { email: 'ANA@globex.test' });

    expect(await snapshot(t.pool, { records: [other.record], sources: [other.source], signals: said.results.map((r) => r.id) })).toBe(before);
    expect(await segments(ana.source)).toEqual([{ speaker: ERASED, text: ERASED }]);
  });
});

describe('job payloads', () => {
  it('are redacted as parsed JSON: numbers, keys and other ids stay, the JSON stays valid, and the erasure completes', async () => {
    const w = await workspace(t.pool);
    await addRecord(t.pool, w, { participants: [{ id: '123', name: 'Dee Vale', email: 'dee@vale.test' }], data: { transcript: [{ speaker: 'Dee Vale', text: 'Exports are slow.' }] } });
    const job = await enqueue(boss, QUEUES.downloadAttachment, { workspaceId: w.ws, batchId: w.batch, attachmentId: 'att_01J123X' }, { startAfter: 3600 });
    const output = { count: 123, batchId: 'bat_01J123X', ids: ['123', 'p-123'], note: 'Read "dee@vale.test" (123 rows) from bat_01J123X\\n', 'dee@vale.test': 'key stays' };
    await t.pool.query('UPDATE pgboss.job SET output = $2 WHERE id = $1', [job, JSON.stringify(output)]);

    await erase(w.ws, { participantId: '123', email: 'dee@vale.test' });

    const { rows: [j] } = await t.pool.query('SELECT data, output FROM pgboss.job WHERE id = $1', [job]);
    expect(j.data).toEqual({ workspaceId: w.ws, batchId: w.batch, attachmentId: 'att_01J123X' });
    // a 3-character id is matched where an id is expected, not in text; the address is, as a whole token
    expect(j.output).toEqual({ ...output, note: `Read "${ERASED}" (123 rows) from bat_01J123X\\n` });
  });
});

describe('a failure part-way', () => {
  it('is finished by the retry, even once marked failed, and the addresses and ids found are suppressed before anything changes', async () => {
    const w = await workspace(t.pool);
    const call = await addRecord(t.pool, w, { participants: [{ id: 'p-dee-42', name: 'Dee Vale', email: 'dee@vale.test' }], data: { transcript: [{ speaker: 'Dee Vale', text: 'Exports are slow.' }] } });
    const note = await createShapingNote(t.pool, { workspaceId: w.ws, productId: w.prod, title: 'Exports', content: 'Ask dee@vale.test about exports.' }, clock);
    // the shaping notes phase fails, after the irreversible ones
    await t.pool.query(`CREATE OR REPLACE FUNCTION fail_note_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'disk full'; END $$`);
    await t.pool.query(`CREATE TRIGGER fail_note_update BEFORE UPDATE ON shaping_notes FOR EACH ROW WHEN (NEW.workspace_id = '${w.ws}') EXECUTE FUNCTION fail_note_update()`);
    const erasure = await requestErasure(t.pool, boss, { workspaceId: w.ws, email: 'dee@vale.test', by, now: new Date(clock.now()) });
    try {
      await expect(runErasure(deps(), w.ws, erasure.id)).rejects.toThrow(/disk full/);
      expect(await segments(call.source)).toEqual([{ speaker: ERASED, text: ERASED }]);
      // the participant id found beside the address is refused already
      expect((await listSuppressions(t.pool, w.ws)).map((s) => s.kind).sort()).toEqual(['email', 'participant_id']);
      await failErasure(t.pool, w.ws, erasure.id, 'gave up after 11 attempts: disk full', new Date(clock.now()));
      expect((await getErasure(t.pool, w.ws, erasure.id))!.status).toBe('failed');
    } finally {
      await t.pool.query('DROP TRIGGER fail_note_update ON shaping_notes');
    }
    // a redrive of its job carries on where it stopped
    expect((await runErasure(deps(), w.ws, erasure.id)).status).toBe('complete');
    const done = (await getErasure(t.pool, w.ws, erasure.id))!;
    expect(done).toMatchObject({ status: 'complete', phase: 'done', error: null, counts: { records: 1, sources: 1, shapingNotes: 1 } });
    expect((await t.pool.query('SELECT content FROM shaping_notes WHERE id = $1', [note.id])).rows[0].content).toBe(`Ask ${ERASED} about exports.`);
    expect((await t.pool.query('SELECT subject FROM erasure_requests WHERE id = $1', [erasure.id])).rows[0].subject).toBeNull();
  });

  it('asked again, a failed request of the same person carries on too (and drops what it holds of them)', async () => {
    const w = await workspace(t.pool);
    await addRecord(t.pool, w, { participants: [{ id: 'p-eve-1', name: 'Eve Gray', email: 'eve@gray.test' }], data: { transcript: [{ speaker: 'Eve Gray', text: 'Hello.' }] } });
    const first = await requestErasure(t.pool, boss, { workspaceId: w.ws, email: 'eve@gray.test', by, now: new Date(clock.now()) });
    await runErasure(deps(), w.ws, first.id, { maxSlices: 3 });
    await failErasure(t.pool, w.ws, first.id, 'gave up', new Date(clock.now()));
    await requestErasure(t.pool, boss, { workspaceId: w.ws, email: 'Eve@Gray.test', by, now: new Date(clock.now()) });
    expect((await getErasure(t.pool, w.ws, first.id))!).toMatchObject({ status: 'queued', error: null });
    expect((await runErasure(deps(), w.ws, first.id)).status).toBe('complete');
  });
});

describe('attachment files (finding 10b)', () => {
  async function withFile(w: { ws: string; prod: string; batch: string }, record: string) {
    const key = `${w.ws}/${w.batch}/${newId('att')}`;
    await storage.put(key, Readable.from([Buffer.from('a recording')]), { maxBytes: 1000 });
    await t.pool.query(
      `INSERT INTO attachments (id, workspace_id, batch_id, record_id, position, type, filename, status, storage_key) VALUES ($1, $2, $3, $4, 0, 'audio', 'call.mp3', 'COMPLETE', $5)`,
      [newId('att'), w.ws, w.batch, record, key],
    );
    return key;
  }

  it('are deleted only once the slice that erases their record commits: a rolled-back slice leaves the file and its row', async () => {
    const w = await workspace(t.pool);
    const person = { participants: [{ id: 'p-fay-1', name: 'Fay Moss', email: 'fay@moss.test' }], data: { transcript: [{ speaker: 'Fay Moss', text: 'Hello.' }] } };
    const first = await addRecord(t.pool, w, person);
    const second = await addRecord(t.pool, w, person);
    const keys = [await withFile(w, first.record), await withFile(w, second.record)];
    // the slice fails at its second record (in id order), after the first record's attachment was handled
    const last = [first.record, second.record].sort()[1]!;
    await t.pool.query(`CREATE OR REPLACE FUNCTION fail_record_update() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN RAISE EXCEPTION 'lost the connection'; END $$`);
    await t.pool.query(`CREATE TRIGGER fail_record_update BEFORE UPDATE ON records FOR EACH ROW WHEN (NEW.id = '${last}') EXECUTE FUNCTION fail_record_update()`);
    const erasure = await requestErasure(t.pool, boss, { workspaceId: w.ws, email: 'fay@moss.test', by, now: new Date(clock.now()) });
    try {
      await expect(runErasure(deps(), w.ws, erasure.id)).rejects.toThrow(/lost the connection/);
      for (const key of keys) expect(await storage.exists(key), key).toBe(true);
      const { rows } = await t.pool.query('SELECT storage_key, status FROM attachments WHERE workspace_id = $1 ORDER BY storage_key', [w.ws]);
      expect(rows).toEqual(keys.sort().map((k) => ({ storage_key: k, status: 'COMPLETE' })));
    } finally {
      await t.pool.query('DROP TRIGGER fail_record_update ON records');
    }
    expect((await runErasure(deps(), w.ws, erasure.id)).status).toBe('complete');
    for (const key of keys) expect(await storage.exists(key), key).toBe(false);
    expect((await t.pool.query('SELECT 1 FROM storage_deletions WHERE key = ANY($1)', [keys])).rowCount).toBe(0);
  });

  it('a file not deleted after the commit (a crash, storage down) is written down, and the sweep deletes it', async () => {
    const w = await workspace(t.pool);
    const rec = await addRecord(t.pool, w, { participants: [{ id: 'p-gus-1', name: 'Gus Lee', email: 'gus@lee.test' }], data: { transcript: [{ speaker: 'Gus Lee', text: 'Hi.' }] } });
    const key = await withFile(w, rec.record);
    const down: Storage = { ...storage, delete: async () => { throw new Error('storage unavailable'); } };
    const erasure = await requestErasure(t.pool, boss, { workspaceId: w.ws, email: 'gus@lee.test', by, now: new Date(clock.now()) });
    expect((await runErasure(deps(down), w.ws, erasure.id)).status).toBe('complete');
    expect(await storage.exists(key)).toBe(true);
    expect((await t.pool.query('SELECT storage_key FROM attachments WHERE record_id = $1', [rec.record])).rows).toEqual([{ storage_key: null }]);
    expect((await t.pool.query('SELECT key FROM storage_deletions WHERE key = $1', [key])).rowCount).toBe(1);
    const later = { now: () => now + 11 * 60_000 };
    expect(await sweepStorageDeletions({ pool: t.pool, storage, clock: later })).toBeGreaterThanOrEqual(1);
    expect(await storage.exists(key)).toBe(false);
  });
});

describe('property: erasing A never changes what names only B', () => {
  it('records, sources, segments, signals, notes and job results of B stay byte-identical', { timeout: 120_000 }, async () => {
    await fc.assert(fc.asyncProperty(twoPeople, async ({ a, b, asked }) => {
      const w = await workspace(t.pool);
      const mine = await plantPerson(t.pool, boss, w, a);
      const theirs = await plantPerson(t.pool, boss, w, b);
      const before = await snapshot(t.pool, theirs);
      const aBefore = await snapshot(t.pool, mine);
      await erase(w.ws, asked);
      expect(await snapshot(t.pool, theirs)).toBe(before);
      // and A was erased: their entry, their turn, the signal with their id
      expect(await snapshot(t.pool, mine)).not.toBe(aBefore);
      const { rows: [rec] } = await t.pool.query<{ participants: Array<{ id: string }> }>('SELECT participants FROM records WHERE id = $1', [mine.records[0]]);
      expect(rec!.participants.map((p) => p.id)).toEqual(['staff-1']);
      expect((await segments(mine.sources[0]!))[0]).toEqual({ speaker: ERASED, text: ERASED });
      expect((await t.pool.query('SELECT 1 FROM signals WHERE id = $1', [mine.signals[0]])).rowCount).toBe(0);
    }), { numRuns: 30 });
  });
});
