import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { addSignals, deleteSignals } from '@loupe/evidence';
import { refreshSearchDocuments, searchSources } from '@loupe/sources';
import { createLocalStorage, type Storage } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { applyRetentionSlice, deleteEvidence, getRetention, pruneSourceDeletions, RetentionError, setRetention, sweepStorageDeletions, workspacesWithRetention, type LifecycleDeps } from './index';

let t: TestDatabase;
let dir: string;
let storage: Storage;
const now = Date.UTC(2026, 10, 25);
const clock = { now: () => now };
let deps: LifecycleDeps;

beforeAll(async () => {
  t = await createTestDatabase();
  dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-lifecycle-'));
  storage = createLocalStorage(dir);
  deps = { pool: t.pool, storage, clock };
});
afterAll(async () => {
  await t.close();
  await rm(dir, { recursive: true, force: true });
});

async function workspace() {
  const ws = newId('ws');
  const prod = newId('prod');
  const batch = newId('bat');
  await t.pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'W')", [ws]);
  await t.pool.query("INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, 'P')", [prod, ws]);
  await t.pool.query(
    `INSERT INTO batches (id, workspace_id, product_id, source, type, status, accepted_count, rejected_count, total_error_count, processed_count,
                          attachment_download_total, attachment_download_complete, attachment_download_status)
     VALUES ($1, $2, $3, 'api', 'call', 'COMPLETE', 3, 0, 0, 3, 3, 1, 'IN_PROGRESS')`,
    [batch, ws, prod],
  );
  return { ws, prod, batch };
}

/** A record and the source built from it, with segments and a search document; occurred `daysAgo` days ago. */
async function evidence(w: { ws: string; prod: string; batch: string }, position: number, text: string, daysAgo = 1, withSource = true) {
  const rec = newId('rec');
  const at = new Date(now - daysAgo * 86_400_000);
  await t.pool.query(
    `INSERT INTO records (id, workspace_id, batch_id, position, dedup_key, type, nature, product_id, project_ids, event_at, vendor_ids, data, processed_at)
     VALUES ($1, $2, $3, $4, $1, 'call', 'evidence', $5, '{}', $6, '{}', '{}', now())`,
    [rec, w.ws, w.batch, position, w.prod, at],
  );
  if (!withSource) return { rec, src: null };
  const src = newId('src');
  await t.pool.query(
    `INSERT INTO sources (id, workspace_id, product_id, project_ids, record_id, type, nature, title, occurred_at, status, segment_count)
     VALUES ($1, $2, $3, '{}', $4, 'call', 'evidence', $5, $6, 'ready', 1)`,
    [src, w.ws, w.prod, rec, `Call ${position}`, at],
  );
  await t.pool.query(`UPDATE source_semantics SET seq = nextval('source_semantic_seq') WHERE source_id = $1`, [src]);
  await t.pool.query("INSERT INTO source_segments (source_id, position, kind, text) VALUES ($1, 0, 'turn', $2)", [src, text]);
  await refreshSearchDocuments(t.pool, [src]);
  return { rec, src };
}

async function count(sql: string, params: unknown[]): Promise<number> {
  const { rows } = await t.pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM (${sql}) x`, params);
  return rows[0]!.n;
}

describe('deleting a source or a record', () => {
  it('removes the source, its record, segments, search document, attachments and their files, signals and their history, and its share of opportunities', async () => {
    const w = await workspace();
    const gone = await evidence(w, 0, 'Okta login loops for Zebulon every morning');
    const kept = await evidence(w, 1, 'Exports to Excel take twenty minutes');
    // Attachments of the deleted record: one downloaded (a file), one still downloading (never finished).
    const done = newId('att');
    const downloading = newId('att');
    const keptAtt = newId('att');
    await t.pool.query(
      `INSERT INTO attachments (id, workspace_id, batch_id, record_id, position, type, status, storage_key) VALUES
         ($1, $4, $5, $6, 0, 'file', 'COMPLETE', $4 || '/' || $5 || '/' || $1), ($2, $4, $5, $6, 1, 'file', 'DOWNLOADING', NULL), ($3, $4, $5, $7, 0, 'file', 'PENDING', NULL)`,
      [done, downloading, keptAtt, w.ws, w.batch, gone.rec, kept.rec],
    );
    await storage.put(`${w.ws}/${w.batch}/${done}`, Readable.from([Buffer.from('recording of Zebulon')]), { maxBytes: 1000 });

    // Signals: two from the deleted source, one from the kept one. Opportunity A: one of each (named after
    // the deleted one); B: only the deleted source's. A person deleted one more signal of the source earlier.
    const s1 = await addSignals(t.pool, { workspaceId: w.ws, sourceId: gone.src!, items: [
      { type: 'problem', title: 'Zebulon cannot sign in', content: 'Okta loops' },
      { type: 'need', title: 'Zebulon wants SSO fixed', content: 'fix it' },
      { type: 'quote', title: 'Zebulon said this', content: '"it loops"' },
    ] }, clock);
    const s2 = await addSignals(t.pool, { workspaceId: w.ws, sourceId: kept.src!, items: [{ type: 'problem', title: 'Slow exports', content: 'twenty minutes' }] }, clock);
    const [goneA, goneB, goneEarlier] = s1.results.map((r) => r.id);
    const keptA = s2.results[0]!.id;
    await deleteSignals(t.pool, w.ws, [goneEarlier!], { userId: 'usr_1', email: 'pm@acme.test' }, clock);
    await t.pool.query("UPDATE signals SET keywords = '{okta,login}' WHERE id = $1", [goneA]);
    await t.pool.query("UPDATE signals SET keywords = '{exports,excel}' WHERE id = $1", [keptA]);
    const oppA = newId('opp');
    const oppB = newId('opp');
    await t.pool.query(
      `INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, created_at, updated_at, keywords, central_signal_id) VALUES
         ($1, $3, $4, 'Zebulon cannot sign in', '', 'problem', 2, 0, now(), now(), '{okta,exports}', $5),
         ($2, $3, $4, 'Zebulon wants SSO fixed', '', 'need', 1, 0, now(), now(), '{sso}', $6)`,
      [oppA, oppB, w.ws, w.prod, goneA, goneB],
    );
    await t.pool.query('INSERT INTO opportunity_signals (opportunity_id, signal_id) VALUES ($1, $3), ($1, $4), ($2, $5)', [oppA, oppB, goneA, keptA, goneB]);
    await t.pool.query("INSERT INTO signal_changes (id, workspace_id, signal_id, action, by_email, detail, created_at) VALUES ($1, $2, $3, 'edit', 'pm@acme.test', '{}', now())", [newId('sch'), w.ws, goneA]);
    expect(await count('SELECT 1 FROM signal_changes WHERE workspace_id = $1', [w.ws])).toBe(2);

    // The workspace's vocabulary for search (libs/sources/src/vocabulary.ts), learned with the deleted source's words.
    await t.pool.query("INSERT INTO search_vocabularies (workspace_id, sources, sampled, built_at, model) VALUES ($1, 60, 60, now(), convert_to('zebulon', 'UTF8'))", [w.ws]);
    const out = await deleteEvidence(deps, w.ws, { sourceIds: [gone.src!] });
    expect(out).toMatchObject({ sources: [{ id: gone.src, recordId: gone.rec }], records: [{ id: gone.rec, sourceId: gone.src }], missingSourceIds: [], signals: 2, files: 1, productIds: [w.prod] });
    // Emptied, to be learned again from what is left.
    const { rows: vocabulary } = await t.pool.query('SELECT model, generation FROM search_vocabularies WHERE workspace_id = $1', [w.ws]);
    expect(vocabulary).toEqual([{ model: null, generation: 1 }]);

    expect(await count('SELECT 1 FROM sources WHERE id = $1', [gone.src])).toBe(0);
    expect(await count('SELECT 1 FROM records WHERE id = $1', [gone.rec])).toBe(0);
    expect(await count('SELECT 1 FROM source_segments WHERE source_id = $1', [gone.src])).toBe(0);
    expect(await count('SELECT 1 FROM attachments WHERE record_id = $1', [gone.rec])).toBe(0);
    expect(await storage.exists(`${w.ws}/${w.batch}/${done}`)).toBe(false);
    expect(await count('SELECT 1 FROM signals WHERE source_id = $1', [gone.src])).toBe(0);
    expect(await count('SELECT 1 FROM signal_changes WHERE workspace_id = $1', [w.ws])).toBe(0);
    expect((await searchSources(t.pool, w.ws, { query: 'Zebulon' })).items).toEqual([]);
    expect((await searchSources(t.pool, w.ws, { query: 'Excel' })).items.map((i) => i.id)).toEqual([kept.src]);
    // Opportunities: B (only the deleted source's) is gone; A counts its one remaining signal and is named after it.
    const { rows: opps } = await t.pool.query('SELECT id, title, evidence_count, keywords, central_signal_id, subtitle FROM opportunities WHERE workspace_id = $1', [w.ws]);
    expect(opps).toEqual([{ id: oppA, title: 'Slow exports', evidence_count: 1, keywords: ['exports'], central_signal_id: keptA, subtitle: '1 signal · exports' }]);
    expect(JSON.stringify(opps)).not.toMatch(/Zebulon|okta/i);
    // The batch: history kept, the deletion counted; the download that will never finish leaves the total, which settles it.
    const { rows: batch } = await t.pool.query('SELECT accepted_count, processed_count, deleted_count, attachment_download_total, attachment_download_status FROM batches WHERE id = $1', [w.batch]);
    expect(batch[0]).toEqual({ accepted_count: 3, processed_count: 3, deleted_count: 1, attachment_download_total: 2, attachment_download_status: 'IN_PROGRESS' });
    // No file left to delete.
    expect(await count('SELECT 1 FROM storage_deletions WHERE workspace_id = $1', [w.ws])).toBe(0);
    // The MCP indexes' log.
    expect(await count('SELECT 1 FROM source_deletions WHERE workspace_id = $1 AND source_id = $2', [w.ws, gone.src])).toBe(1);

    // Idempotent: the second time it is not found, and nothing changes.
    const again = await deleteEvidence(deps, w.ws, { sourceIds: [gone.src!] });
    expect(again).toMatchObject({ sources: [], records: [], missingSourceIds: [gone.src], files: 0 });
    expect(await count('SELECT 1 FROM source_deletions WHERE workspace_id = $1', [w.ws])).toBe(1);
  });

  it('deleting a record deletes its source; a record that never became a source goes alone; another workspace never finds them', async () => {
    const w = await workspace();
    const other = await workspace();
    const a = await evidence(w, 0, 'first');
    const b = await evidence(w, 1, 'never a source', 1, false);
    const c = await evidence(w, 2, 'third');
    expect(await deleteEvidence(deps, other.ws, { recordIds: [a.rec, b.rec], sourceIds: [c.src!] })).toMatchObject({
      sources: [], records: [], missingRecordIds: [a.rec, b.rec], missingSourceIds: [c.src],
    });
    expect(await count('SELECT 1 FROM records WHERE workspace_id = $1', [w.ws])).toBe(3);
    const out = await deleteEvidence(deps, w.ws, { recordIds: [a.rec, b.rec] });
    expect(out.sources).toEqual([{ id: a.src, recordId: a.rec }]);
    expect(out.records.sort((x, y) => x.id.localeCompare(y.id))).toEqual([{ id: a.rec, sourceId: a.src }, { id: b.rec, sourceId: null }].sort((x, y) => x.id.localeCompare(y.id)));
    expect(await count('SELECT 1 FROM sources WHERE workspace_id = $1', [w.ws])).toBe(1);
    const { rows } = await t.pool.query('SELECT deleted_count FROM batches WHERE id = $1', [w.batch]);
    expect(rows[0].deleted_count).toBe(2);
  });

  it('two deletes of one source at once: one deletes it, the other finds nothing, the batch counts it once', async () => {
    const w = await workspace();
    const a = await evidence(w, 0, 'raced');
    const outs = await Promise.all([deleteEvidence(deps, w.ws, { sourceIds: [a.src!] }), deleteEvidence(deps, w.ws, { recordIds: [a.rec] })]);
    expect(outs.map((o) => o.records.length).sort()).toEqual([0, 1]);
    const { rows } = await t.pool.query('SELECT deleted_count FROM batches WHERE id = $1', [w.batch]);
    expect(rows[0].deleted_count).toBe(1);
    expect(await count('SELECT 1 FROM source_deletions WHERE source_id = $1', [a.src])).toBe(1);
  });

  it('a batch whose last unfinished download is deleted settles its download status', async () => {
    const w = await workspace();
    const a = await evidence(w, 0, 'with a pending download');
    await t.pool.query('UPDATE batches SET attachment_download_total = 2, attachment_download_complete = 1 WHERE id = $1', [w.batch]);
    await t.pool.query(`INSERT INTO attachments (id, workspace_id, batch_id, record_id, position, type, status) VALUES ($1, $2, $3, $4, 0, 'file', 'PENDING')`, [newId('att'), w.ws, w.batch, a.rec]);
    await deleteEvidence(deps, w.ws, { sourceIds: [a.src!] });
    const { rows } = await t.pool.query('SELECT attachment_download_total, attachment_download_status FROM batches WHERE id = $1', [w.batch]);
    expect(rows[0]).toEqual({ attachment_download_total: 1, attachment_download_status: 'COMPLETE' });
  });
});

describe('retention', () => {
  it('is off by default; set and cleared within bounds', async () => {
    const w = await workspace();
    expect(await getRetention(t.pool, w.ws)).toBeNull();
    expect(await workspacesWithRetention(t.pool)).not.toContain(w.ws);
    await setRetention(t.pool, w.ws, 30);
    expect(await getRetention(t.pool, w.ws)).toBe(30);
    expect(await workspacesWithRetention(t.pool)).toContain(w.ws);
    await expect(setRetention(t.pool, w.ws, 0)).rejects.toBeInstanceOf(RetentionError);
    await expect(setRetention(t.pool, w.ws, 1.5)).rejects.toThrow(/whole number of days/);
    await expect(setRetention(t.pool, 'ws_nope', 3)).rejects.toThrow(/does not exist/);
    await setRetention(t.pool, w.ws, null);
    expect(await getRetention(t.pool, w.ws)).toBeNull();
  });

  it('deletes, a slice at a time, the sources that occurred more than N days ago and the old records that never became one', async () => {
    const w = await workspace();
    const old = [];
    for (let i = 0; i < 5; i++) old.push(await evidence(w, i, `old ${i}`, 40 + i));
    const young = await evidence(w, 10, 'young', 10);
    const oldFailed = await evidence(w, 11, 'old failed', 50, false);
    // Off: nothing happens.
    expect(await applyRetentionSlice(deps, w.ws, 2)).toEqual({ sources: 0, records: 0, more: false });
    await setRetention(t.pool, w.ws, 30);
    expect(await applyRetentionSlice(deps, w.ws, 2)).toEqual({ sources: 2, records: 0, more: true });
    // The oldest first.
    expect(await count('SELECT 1 FROM sources WHERE id = ANY($1)', [[old[4]!.src, old[3]!.src]])).toBe(0);
    expect(await applyRetentionSlice(deps, w.ws, 2)).toEqual({ sources: 2, records: 0, more: true });
    expect(await applyRetentionSlice(deps, w.ws, 2)).toEqual({ sources: 1, records: 1, more: true });
    expect(await applyRetentionSlice(deps, w.ws, 2)).toEqual({ sources: 0, records: 0, more: false });
    const { rows } = await t.pool.query<{ id: string }>('SELECT id FROM sources WHERE workspace_id = $1', [w.ws]);
    expect(rows.map((r) => r.id)).toEqual([young.src]);
    expect(await count('SELECT 1 FROM records WHERE id = $1', [oldFailed.rec])).toBe(0);
    expect(await count('SELECT 1 FROM records WHERE workspace_id = $1', [w.ws])).toBe(1);
  });

  it('leaves companies and people alone; the revenue of an opportunity follows the signals it keeps', async () => {
    const w = await workspace();
    const [globex, initech] = [newId('cmp'), newId('cmp')];
    await t.pool.query(
      `INSERT INTO companies (id, workspace_id, external_id, name, domains, arr, segment, created_at, updated_at)
       VALUES ($1, $3, 'globex', 'Globex', '{globex.com}', 120000, 'Enterprise', now(), now()), ($2, $3, 'initech', 'Initech', '{initech.com}', 18000, 'Mid-market', now(), now())`,
      [globex, initech, w.ws],
    );
    await t.pool.query("INSERT INTO company_domains (workspace_id, domain, company_id) VALUES ($1, 'globex.com', $2), ($1, 'initech.com', $3)", [w.ws, globex, initech]);
    await t.pool.query("INSERT INTO people (id, workspace_id, external_id, email, company_id, created_at, updated_at) VALUES ($1, $2, 'ana', 'ana@globex.com', $3, now(), now())", [newId('per'), w.ws, globex]);
    const old = await evidence(w, 0, 'Exports are slow for Globex', 40);
    const young = await evidence(w, 1, 'Exports are slow for Initech', 5);
    const [fromGlobex] = (await addSignals(t.pool, { workspaceId: w.ws, sourceId: old.src!, items: [{ type: 'problem', title: 'Slow exports', content: 'Exports take an hour', whoSaidIt: 'ana@globex.com' }] }, clock)).results.map((r) => r.id);
    const [fromInitech] = (await addSignals(t.pool, { workspaceId: w.ws, sourceId: young.src!, items: [{ type: 'problem', title: 'Exports time out', content: 'Exports time out', whoSaidIt: 'bill@initech.com' }] }, clock)).results.map((r) => r.id);
    const opp = newId('opp');
    await t.pool.query(
      `INSERT INTO opportunities (id, workspace_id, product_id, title, subtitle, type, evidence_count, unique_company_count, created_at, updated_at, central_signal_id)
       VALUES ($1, $2, $3, 'Slow exports', '', 'problem', 2, 2, now(), now(), $4)`,
      [opp, w.ws, w.prod, fromInitech],
    );
    await t.pool.query('INSERT INTO opportunity_signals (opportunity_id, signal_id) VALUES ($1, $2), ($1, $3)', [opp, fromGlobex, fromInitech]);

    await setRetention(t.pool, w.ws, 30);
    expect(await applyRetentionSlice(deps, w.ws, 10)).toMatchObject({ sources: 1 });
    expect(await count('SELECT 1 FROM companies WHERE workspace_id = $1', [w.ws])).toBe(2);
    expect(await count('SELECT 1 FROM people WHERE workspace_id = $1', [w.ws])).toBe(1);
    const { rows } = await t.pool.query('SELECT evidence_count, unique_company_count, revenue::float AS revenue, segments FROM opportunities WHERE id = $1', [opp]);
    expect(rows).toEqual([{ evidence_count: 1, unique_company_count: 1, revenue: 18000, segments: ['Mid-market'] }]);
  });

  it('prunes the deletion log after a day', async () => {
    const w = await workspace();
    const a = await evidence(w, 0, 'x');
    await deleteEvidence(deps, w.ws, { sourceIds: [a.src!] });
    expect(await pruneSourceDeletions(t.pool, new Date(now + 3600_000))).toBe(0);
    expect(await pruneSourceDeletions(t.pool, new Date(now + 25 * 3600_000))).toBeGreaterThanOrEqual(1);
    expect(await count('SELECT 1 FROM source_deletions WHERE workspace_id = $1', [w.ws])).toBe(0);
  });
});

describe('files left by a crash', () => {
  it('a file the deletion could not delete stays written down, and the sweep deletes it later', async () => {
    const w = await workspace();
    const a = await evidence(w, 0, 'with a file');
    const att = newId('att');
    const key = `${w.ws}/${w.batch}/${att}`;
    await t.pool.query(`INSERT INTO attachments (id, workspace_id, batch_id, record_id, position, type, status, storage_key) VALUES ($1, $2, $3, $4, 0, 'file', 'COMPLETE', $5)`, [att, w.ws, w.batch, a.rec, key]);
    await storage.put(key, Readable.from([Buffer.from('bytes')]), { maxBytes: 100 });
    // Storage fails after the commit (as a crash there would leave it).
    const failing: Storage = { ...storage, delete: async () => { throw new Error('disk unavailable'); } };
    const out = await deleteEvidence({ ...deps, storage: failing }, w.ws, { sourceIds: [a.src!] });
    expect(out.files).toBe(0);
    expect(await storage.exists(key)).toBe(true);
    expect(await count('SELECT 1 FROM storage_deletions WHERE key = $1', [key])).toBe(1);
    // Too recent for the sweep (a deletion may still be at work), then swept.
    expect(await sweepStorageDeletions(deps)).toBe(0);
    expect(await sweepStorageDeletions({ ...deps, clock: { now: () => now + 11 * 60_000 } })).toBe(1);
    expect(await storage.exists(key)).toBe(false);
    expect(await count('SELECT 1 FROM storage_deletions WHERE key = $1', [key])).toBe(0);
  });
});
