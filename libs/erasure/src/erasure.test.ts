import { Readable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { useErasureEnvironment } from './test/environment';
import { newId } from '@loupe/db';
import type { TestDatabase } from '@loupe/db/testing';
import { addSignals, deleteSignals, editSignal, ensureSignalTypes } from '@loupe/evidence';
import { type Boss } from '@loupe/jobs';
import { createShapingNote, updateShapingNote } from '@loupe/shaping';
import { createSourceFromRecord, searchSources } from '@loupe/sources';
import type { Storage } from '@loupe/storage';
import {
  attachmentWasErased, confirmErasure, ERASED, findSuppressed, getErasure, liftSuppression, listErasures, listSuppressions, Matcher, requestErasure, runErasure,
  subjectHash, type Requester,
} from './index';

let t: TestDatabase;
let boss: Boss;
let storage: Storage;
let now = Date.UTC(2026, 10, 1);
const clock = { now: () => now++ };

useErasureEnvironment('loupe-erasure-', (env) => ({ t, boss, storage } = env));

const deps = () => ({ pool: t.pool, boss, storage, clock });

/** A dry run, then its confirmation with every name it offers that is not shared (as an owner ticking them all). */
async function eraseConfirmingNames(ws: string, who: { email?: string; participantId?: string }, by: Requester = { label: 'x' }) {
  const preview = await requestErasure(t.pool, boss, { workspaceId: ws, ...who, dryRun: true, by, now: new Date(clock.now()) });
  expect((await runErasure(deps(), ws, preview.id)).status).toBe('previewed');
  const names = (await getErasure(t.pool, ws, preview.id))!.preview!.names.filter((n) => !n.shared).map((n) => n.name);
  return (await confirmErasure(t.pool, boss, { workspaceId: ws, erasureId: preview.id, names, by, now: new Date(clock.now()) }))!;
}

/** Every row of every table of the database, pg-boss's included: what a dump would hold. */
async function dump(): Promise<string> {
  const { rows: tables } = await t.pool.query<{ s: string; n: string }>(
    "SELECT table_schema AS s, table_name AS n FROM information_schema.tables WHERE table_schema IN ('public', 'pgboss') AND table_type = 'BASE TABLE'",
  );
  let out = '';
  for (const { s, n } of tables) {
    const { rows } = await t.pool.query(`SELECT row_to_json(x)::text AS j FROM "${s}"."${n}" x`);
    out += `${rows.map((r) => r.j).join('\n')}\n`;
  }
  return out.toLowerCase();
}

/** A workspace where Ana Planted (ana.planted@globex.test, participant p-ana-7) took part in a call, sent an email, was quoted and noted. */
async function plant() {
  const ws = newId('ws');
  const prod = newId('prod');
  await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, 'W']);
  await t.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [prod, ws, 'P']);
  await ensureSignalTypes(t.pool, ws);
  const batch = newId('bat');
  await t.pool.query(
    `INSERT INTO batches (id, workspace_id, product_id, source, type, status, accepted_count, rejected_count, total_error_count, errors)
     VALUES ($1, $2, $3, 'api', 'call', 'COMPLETE', 2, 1, 1, $4)`,
    [batch, ws, prod, JSON.stringify([{ index: 2, code: 'VALIDATION_ERROR', message: '_participants[0].email: ana.planted@globex.test is not allowed' }])],
  );
  const participants = [
    { id: 'p-ana-7', role: 'external', name: 'Ana Planted', email: 'ana.planted@globex.test' },
    { id: 'p-bob-1', role: 'internal', name: 'Bob Keeper', email: 'bob@loupe.test' },
  ];
  const call = { title: 'Call with Globex', transcript: [
    { speaker: 'Ana Planted', text: 'Exporting to Excel takes forever, the zebra report is unusable.' },
    { speaker: 'Bob Keeper', text: 'Thanks Ana Planted, I will write to ana.planted@globex.test about the export.' },
  ] };
  const email = { subject: 'Quarterly export', from: { name: 'Ana Planted', email: 'ana.planted@globex.test' }, body: 'Our quokka dashboards never load.' };
  const other = { title: 'Unrelated', content: 'Carla says onboarding is fine.' };
  const records: Array<{ id: string; data: unknown; participants: unknown; type: string }> = [
    { id: newId('rec'), data: call, participants, type: 'call_transcription' },
    { id: newId('rec'), data: email, participants: null, type: 'email' },
    { id: newId('rec'), data: other, participants: null, type: 'meeting_notes' },
  ];
  const sources: string[] = [];
  for (const [i, r] of records.entries()) {
    await t.pool.query(
      `INSERT INTO records (id, workspace_id, batch_id, position, dedup_key, type, nature, product_id, project_ids, event_at, vendor_ids, participants, tags, data)
       VALUES ($1, $2, $3, $4, $5, $6, 'evidence', $7, '{}', now(), $8, $9, '{}', $10::json)`,
      [r.id, ws, batch, i, `k${i}-${r.id}`, r.type, prod, JSON.stringify({ gong: i === 0 ? 'call/ana.planted@globex.test' : `v${i}` }),
        r.participants === null ? null : JSON.stringify(r.participants), JSON.stringify(r.data)],
    );
    const created = await createSourceFromRecord(t.pool, {
      id: r.id, workspaceId: ws, productId: prod, projectIds: [], type: r.type, nature: 'evidence', eventAt: new Date(), data: r.data,
      participants: (r.participants as never) ?? null, tags: [], threadId: null,
    } as never);
    sources.push(created.sourceId);
  }
  // the call's recording, and the email's attachment
  const keys: string[] = [];
  for (const [i, rec] of [records[0]!, records[1]!].entries()) {
    const key = `${ws}/${batch}/att_${i}`;
    await storage.put(key, Readable.from([Buffer.from(`voice of Ana Planted ${i}`)]), { maxBytes: 1000 });
    keys.push(key);
    await t.pool.query(
      `INSERT INTO attachments (id, workspace_id, batch_id, record_id, position, type, filename, status, storage_key)
       VALUES ($1, $2, $3, $4, 0, 'audio', $5, 'COMPLETE', $6)`,
      [newId('att'), ws, batch, rec.id, `ana-planted-${i}.mp3`, key],
    );
  }
  const theirs = await addSignals(t.pool, { workspaceId: ws, sourceId: sources[0]!, items: [
    { type: 'pain_point', title: 'Zebra report unusable', content: 'Exporting to Excel takes forever, the zebra report is unusable.', whoSaidIt: 'Ana Planted', participantId: 'p-ana-7' },
    { type: 'quote', title: 'Quokka dashboards', content: '"Our quokka dashboards never load" - Ana Planted', whoSaidIt: 'Ana Planted' },
  ] }, clock);
  const mention = await addSignals(t.pool, { workspaceId: ws, sourceId: sources[0]!, items: [
    // Its quote (checked against the call, issue 48) names her too: the quote and its check are redacted with it.
    { type: 'need', title: 'Follow up with Ana Planted', content: 'Bob promised Ana Planted a faster export.', whoSaidIt: 'Bob Keeper', participantId: 'p-bob-1',
      quote: 'Thanks Ana Planted, I will write to ana.planted@globex.test about the export' },
  ] }, clock);
  const kept = await addSignals(t.pool, { workspaceId: ws, sourceId: sources[2]!, items: [
    { type: 'feedback', title: 'Onboarding fine', content: 'Carla says onboarding is fine.', whoSaidIt: 'Carla' },
  ] }, clock);
  const reviewer = { userId: 'usr_1', email: 'owner@loupe.test' };
  await editSignal(t.pool, ws, { id: theirs.results[0]!.id, content: 'Exporting to Excel takes forever (Ana Planted), the zebra report is unusable.' }, reviewer, clock);
  const extra = await addSignals(t.pool, { workspaceId: ws, sourceId: sources[1]!, items: [
    { type: 'quote', title: 'Walrus', content: 'The walrus chart from ana.planted@globex.test', whoSaidIt: 'Someone' },
  ] }, clock);
  await deleteSignals(t.pool, ws, [extra.results[0]!.id], reviewer, clock);
  const note = await createShapingNote(t.pool, { workspaceId: ws, productId: prod, title: 'Export PRD', content: '# Export\n\n> "Exporting takes forever, pelican"\n— Ana Planted, Globex\n\nBob owns it.' }, clock);
  await updateShapingNote(t.pool, { workspaceId: ws, noteId: note.id, content: '# Export v2\n\n> "The narwhal report is unusable" (ana.planted@globex.test)\n\nBob owns it.' }, clock);
  await t.pool.query(
    `INSERT INTO workspace_skills (id, workspace_id, name, title, description, body) VALUES ($1, $2, 'interviews', 'Interviews', 'How we interview',
     '# Interviews\n\n> "I hate the heron export" — Ana Planted\n\nAsk open questions.')`, [newId('skl'), ws],
  );
  const opp = newId('opp');
  await t.pool.query(
    `INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, created_at, updated_at, keywords)
     VALUES ($1, $2, $3, 'Ana Planted wants faster exports', 'From Ana Planted', 'problem', 2, 1, now(), now(), '{ana planted,export}')`,
    [opp, ws, prod],
  );
  await t.pool.query(
    `INSERT INTO idempotency_keys (workspace_id, key, request_hash, state, response_status, response_body, expires_at)
     VALUES ($1, 'k1', 'h', 'complete', 400, $2::json, now() + interval '1 day')`,
    [ws, JSON.stringify({ error: 'VALIDATION_ERROR', message: 'p-ana-7 is wrong' })],
  );
  return { ws, prod, batch, sources, keys, kept: kept.results[0]!.id, mention: mention.results[0]!.id, theirs: theirs.results.map((r) => r.id), note: note.id, opp };
}

/** Fails with the row around the first trace of a word, not the whole dump. */
function expectNoTrace(text: string, words: string[]) {
  for (const word of words) {
    const at = text.indexOf(word);
    expect(at < 0 ? '' : text.slice(Math.max(0, at - 300), at + 100), word).toBe('');
  }
}

/** The distinctive words of what Ana said: erased with her turns, signals and quotes. */
const HER_WORDS = ['zebra', 'quokka', 'pelican', 'narwhal', 'heron'];

describe('matching', () => {
  it('finds whole words only, redacts JSON objects that are the person, and quotations naming them', () => {
    const m = new Matcher({ emails: ['ana@x.test'], ids: ['p-1', 'p-ana-7'], names: ['Ana Planted', 'Al'] });
    // an id shorter than 6 characters (p-1) is matched only where an id is expected, not in text
    expect(m.redact('Banana Planted, Ana Planted and ana@x.test; p-10 p-1 p-ana-7 p-ana-70')).toBe(`Banana Planted, ${ERASED} and ${ERASED}; p-10 p-1 ${ERASED} p-ana-70`);
    expect(m.mentions('Al said')).toBe(false);
    expect(m.redactJson({ transcript: [{ speaker: 'Ana Planted', text: 'secret words' }, { speaker: 'Bob', text: 'hi Ana Planted' }] }, true)).toEqual({
      transcript: [{ speaker: ERASED, text: ERASED }, { speaker: 'Bob', text: `hi ${ERASED}` }],
    });
    expect(m.withoutPerson([{ id: 'p-1' }, { id: 'p-2', name: 'Bob' }])).toEqual([{ id: 'p-2', name: 'Bob' }]);
    expect(m.redactMarkdown('> "quote"\n— Ana Planted\n\ntext by Ana Planted')).toBe(`> ${ERASED}\n\ntext by ${ERASED}`);
  });
});

describe('erasing a person', () => {
  it('leaves nothing of them in any table, the search or storage; the rest stays; the audit row names no one', async () => {
    const p = await plant();
    const before = await dump();
    for (const word of ['ana planted', 'ana.planted@globex.test', 'p-ana-7', 'walrus', ...HER_WORDS]) expect(before).toContain(word);
    expect((await searchSources(t.pool, p.ws, { query: 'zebra' })).items.length).toBe(1);
    // The workspace's vocabulary for search (libs/sources/src/vocabulary.ts) holds words of its sources, hers among them.
    await t.pool.query(
      "INSERT INTO search_vocabularies (workspace_id, sources, sampled, built_at, model) VALUES ($1, 60, 60, now(), convert_to($2, 'UTF8'))", [p.ws, HER_WORDS.join('\n')],
    );

    const erasure = await eraseConfirmingNames(p.ws, { email: 'Ana.Planted@globex.test' }, { userId: 'usr_1', label: 'owner@loupe.test' });
    expect(erasure).toMatchObject({ status: 'queued', subjectKind: 'email', requestedBy: 'owner@loupe.test' });
    // bounded slices: one slice at a time, progress saved between them
    const first = await runErasure(deps(), p.ws, erasure.id, { maxSlices: 2 });
    expect(first).toEqual({ status: 'running', slices: 2 });
    expect((await getErasure(t.pool, p.ws, erasure.id))!.status).toBe('running');
    expect((await runErasure(deps(), p.ws, erasure.id)).status).toBe('complete');
    const done = (await getErasure(t.pool, p.ws, erasure.id))!;
    expect(done).toMatchObject({ status: 'complete', phase: 'done' });
    expect(done.counts).toMatchObject({ records: 2, attachments: 2, sources: 2, signalsDeleted: 2, signalsRedacted: 1, shapingNotes: 1, opportunities: 1 });
    expect(done.completedAt).toBeInstanceOf(Date);

    const after = await dump();
    expectNoTrace(after, ['ana planted', 'ana.planted', 'p-ana-7', ...HER_WORDS]);
    // the others stay, and so does what they said
    for (const word of ['bob keeper', 'bob@loupe.test', 'carla says onboarding is fine', 'bob promised', 'ask open questions']) expect(after).toContain(word);
    for (const key of p.keys) expect(await storage.exists(key)).toBe(false);
    for (const word of ['zebra', 'Ana', 'quokka']) expect((await searchSources(t.pool, p.ws, { query: word })).items).toEqual([]);
    expect((await searchSources(t.pool, p.ws, { query: 'onboarding' })).items.length).toBe(1);
    // the vocabulary is emptied, to be learned again from the redacted sources once they are embedded
    const { rows: vocabulary } = await t.pool.query('SELECT model, generation FROM search_vocabularies WHERE workspace_id = $1', [p.ws]);
    expect(vocabulary).toEqual([{ model: null, generation: 1 }]);
    // redacted sources lose their vector and wait to be embedded again, under a new sequence number
    const { rows: vectors } = await t.pool.query('SELECT source_id AS id, pending, vector, seq FROM source_semantics WHERE workspace_id = $1 ORDER BY source_id', [p.ws]);
    expect(vectors.filter((v) => v.pending && v.vector === null && v.seq !== null).map((v) => v.id).sort()).toEqual([p.sources[0], p.sources[1]].sort());
    const { rows: signals } = await t.pool.query('SELECT id, content, embedding, cluster_pending FROM signals WHERE workspace_id = $1 ORDER BY id', [p.ws]);
    expect(signals.map((s) => s.id).sort()).toEqual([p.mention, p.kept].sort());
    expect(signals.find((s) => s.id === p.mention)).toMatchObject({ content: `Bob promised ${ERASED} a faster export.`, embedding: null, cluster_pending: true });
    const { rows: segs } = await t.pool.query('SELECT speaker, text FROM source_segments WHERE source_id = $1 ORDER BY position', [p.sources[0]]);
    expect(segs.some((s) => s.speaker === ERASED && s.text === ERASED)).toBe(true);
    expect(segs.some((s) => s.speaker === 'Bob Keeper')).toBe(true);
    // the audit row: who and when; the person only as a salted hash
    const { rows: [audit] } = await t.pool.query('SELECT * FROM erasure_requests WHERE id = $1', [erasure.id]);
    expect(audit.subject).toBeNull();
    expect(audit.subject_hash).toBe(subjectHash(p.ws, 'email', 'ana.planted@globex.test'));
    expect(audit.requested_by).toBe('owner@loupe.test');
  });

  it('two erasures of the same person at once both complete and leave the same result', async () => {
    const p = await plant();
    const by = { keyId: 'key_1', label: 'API key "ops"' };
    const a = await eraseConfirmingNames(p.ws, { email: 'ana.planted@globex.test' }, by);
    const b = await eraseConfirmingNames(p.ws, { participantId: 'p-ana-7' }, by);
    const c = await eraseConfirmingNames(p.ws, { email: 'ana.planted@globex.test' }, by);
    const results = await Promise.all([runErasure(deps(), p.ws, a.id), runErasure(deps(), p.ws, b.id), runErasure(deps(), p.ws, c.id), runErasure(deps(), p.ws, a.id)]);
    expect(results.map((r) => r.status)).toEqual(['complete', 'complete', 'complete', 'complete']);
    const after = await dump();
    expectNoTrace(after, ['ana planted', 'ana.planted', 'p-ana-7', ...HER_WORDS]);
    expect(after).toContain('bob keeper');
    const { rows } = await t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM signals WHERE workspace_id = $1', [p.ws]);
    expect(rows[0]!.n).toBe(2);
    // one suppression per identifier, however many requests named it
    expect((await listSuppressions(t.pool, p.ws)).map((s) => s.kind).sort()).toEqual(['email', 'participant_id']);
    expect((await listErasures(t.pool, p.ws)).map((e) => e.status)).toEqual(['complete', 'complete', 'complete']);
  });
});

describe('attachments still downloading', () => {
  it('end as failed downloads counted on the batch, so the batch settles and a late file is known to be erased', async () => {
    const p = await plant();
    const { rows: [rec] } = await t.pool.query<{ id: string }>("SELECT id FROM records WHERE workspace_id = $1 AND type = 'email'", [p.ws]);
    await t.pool.query("UPDATE batches SET attachment_download_total = 1, attachment_download_status = 'IN_PROGRESS' WHERE id = $1", [p.batch]);
    const att = newId('att');
    await t.pool.query(
      `INSERT INTO attachments (id, workspace_id, batch_id, record_id, position, type, filename, status, vendor_url)
       VALUES ($1, $2, $3, $4, 1, 'file', 'ana-planted.pdf', 'DOWNLOADING', 'https://files.globex.test/ana-planted.pdf')`,
      [att, p.ws, p.batch, rec!.id],
    );
    expect(await attachmentWasErased(t.pool, att)).toBe(false);
    const erasure = await requestErasure(t.pool, boss, { workspaceId: p.ws, email: 'ana.planted@globex.test', by: { label: 'x' }, now: new Date(clock.now()) });
    expect((await runErasure(deps(), p.ws, erasure.id)).status).toBe('complete');
    const { rows: [a] } = await t.pool.query('SELECT status, vendor_url, filename, error FROM attachments WHERE id = $1', [att]);
    expect(a).toMatchObject({ status: 'FAILED', vendor_url: null, filename: null, error: expect.stringMatching(/^erased with a person it named/) });
    expect(await attachmentWasErased(t.pool, att)).toBe(true);
    const { rows: [b] } = await t.pool.query('SELECT attachment_download_failed, attachment_download_status FROM batches WHERE id = $1', [p.batch]);
    expect(b).toEqual({ attachment_download_failed: 1, attachment_download_status: 'FAILED' });
  });
});

describe('signals that become one once redacted', () => {
  it('keeps the first, redacted, and deletes the other instead of breaking the unique content', async () => {
    const p = await plant();
    const twins = await addSignals(t.pool, { workspaceId: p.ws, sourceId: p.sources[2]!, items: [
      { type: 'need', title: 'Call back', content: 'Call Ana Planted back about exports.', whoSaidIt: 'Bob Keeper' },
      { type: 'need', title: 'Call back', content: 'Call ana.planted@globex.test back about exports.', whoSaidIt: 'Bob Keeper' },
    ] }, clock);
    const erasure = await eraseConfirmingNames(p.ws, { email: 'ana.planted@globex.test' });
    expect((await runErasure(deps(), p.ws, erasure.id)).status).toBe('complete');
    const { rows } = await t.pool.query('SELECT id, content FROM signals WHERE id = ANY($1)', [twins.results.map((r) => r.id)]);
    expect(rows).toEqual([{ id: twins.results[0]!.id, content: `Call ${ERASED} back about exports.` }]);
  });
});

describe('suppressions', () => {
  it('match participants\' emails and ids and addresses in the text, by hash only, until lifted; never another workspace', async () => {
    const p = await plant();
    const other = await plant();
    await requestErasure(t.pool, boss, { workspaceId: p.ws, email: 'ana.planted@globex.test', participantId: 'p-ana-7', by: { label: 'x' }, now: new Date(clock.now()) });
    const candidates = [
      { participants: [{ id: 'p-x', email: 'ANA.PLANTED@globex.test' }] },
      { participants: [{ id: 'p-ana-7' }] },
      { text: '{"body":"write to ana.planted@globex.test"}' },
      { participants: [{ id: 'p-bob-1', email: 'bob@loupe.test' }], text: 'nothing here' },
    ];
    const hits = await findSuppressed(t.pool, p.ws, candidates);
    expect([...hits.keys()]).toEqual([0, 1, 2]);
    expect(hits.get(0)!.field).toBe('_participants[0].email');
    expect((await findSuppressed(t.pool, other.ws, candidates)).size).toBe(0);
    const [sup] = (await listSuppressions(t.pool, p.ws)).filter((s) => s.kind === 'email');
    expect(await liftSuppression(t.pool, p.ws, sup!.id, 'owner@loupe.test', new Date(clock.now()))).toMatchObject({ liftedBy: 'owner@loupe.test' });
    expect(await liftSuppression(t.pool, other.ws, sup!.id, 'x', new Date())).toBeUndefined();
    expect([...(await findSuppressed(t.pool, p.ws, candidates)).keys()]).toEqual([1]);
  });
});
