import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createSourceFromRecord } from '@loupe/sources';
import { createLocalStorage } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erasureCommand, ErasureUsageError } from './admin-erasure';
import { runAdmin } from './admin';

describe('admin erasure commands', () => {
  let t: TestDatabase;
  let dir: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-admin-erasure-'));
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  it('erases a person here and now, lists the audit without them, and lifts their suppression', async () => {
    const ws = newId('ws');
    await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $1)', [ws]);
    await t.pool.query("INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, 'P')", [`prod_${ws}`, ws]);
    await t.pool.query(
      `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status, participants)
       VALUES ($1, $2, $3, '{}', 'call', 'evidence', 'Call with Ana Planted', now(), 'ready', '[{"id":"p-ana","name":"Ana Planted","email":"ana@globex.test"}]')`,
      [newId('src'), ws, `prod_${ws}`],
    );
    const deps = { pool: t.pool, databaseUrl: t.url, storage: createLocalStorage(dir) };
    // a dry run offers her name (in the title); confirmed, it goes too
    const dry = await erasureCommand('person erase', { workspace: ws, email: 'ana@globex.test', 'dry-run': true, run: true }, deps);
    expect(dry).toContain('  "Ana Planted"  confirming it adds no more items'); // the title it is in is a source erased anyway
    const erased = await erasureCommand('person confirm', { workspace: ws, id: dry[0]!.split(' ')[0]!, 'use-name': ['Ana Planted'], run: true }, deps);
    expect(erased[0]).toMatch(/^era_\w+ {2}\S+ {2}by admin CLI {2}\(email\) {2}complete {2}.*sources 1/);
    // "ana" starting a word (her name, email, participant id): a random id can hold it inside (era_…qana0…).
    expect(erased.join('\n')).not.toMatch(/\bana/i);
    const { rows } = await t.pool.query('SELECT title, participants::text AS p FROM sources WHERE workspace_id = $1', [ws]);
    expect(JSON.stringify(rows)).not.toMatch(/\bana/i);
    expect(await erasureCommand('person erasures', { workspace: ws }, deps)).toHaveLength(1);
    const sups = await erasureCommand('suppression list', { workspace: ws }, deps);
    expect(sups).toHaveLength(2); // the email given and the participant id found with it
    const id = sups[0]!.split('  ')[0]!;
    expect(await erasureCommand('suppression lift', { workspace: ws, id }, deps)).toEqual([`Lifted ${id}: records naming that person are accepted again`]);
    await expect(erasureCommand('suppression lift', { workspace: ws, id }, deps)).rejects.toThrow(/already lifted/);
    expect(await erasureCommand('suppression list', { workspace: ws }, deps)).toHaveLength(1);
    expect((await erasureCommand('suppression list', { workspace: ws, lifted: true }, deps))[0]).toContain('lifted');
    const queued = await erasureCommand('person erase', { workspace: ws, participant: 'p-other' }, deps);
    expect(queued[0]).toContain('queued');
    const { rows: jobs } = await t.pool.query("SELECT data FROM pgboss.job WHERE name = 'person.erase' AND data->>'erasureId' = $1", [queued[0]!.split(' ')[0]]);
    expect(jobs.length).toBe(1);
  });

  it('--dry-run shows what would be erased and the names found (a shared one never offered); person confirm erases cust-1 and leaves cust-2\'s call as it was', async () => {
    const ws = newId('ws');
    const prod = `prod_${ws}`;
    const batch = newId('bat');
    await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $1)', [ws]);
    await t.pool.query("INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, 'P')", [prod, ws]);
    await t.pool.query(`INSERT INTO batches (id, workspace_id, product_id, source, type, status, accepted_count, rejected_count, total_error_count) VALUES ($1, $2, $3, 'api', 'call', 'COMPLETE', 2, 0, 0)`, [batch, ws, prod]);
    const calls: Array<{ record: string; source: string }> = [];
    for (const [i, id, words] of [[0, 'cust-1', 'The walrus export is broken.'], [1, 'cust-2', 'Please keep my heron dashboard.']] as const) {
      const rec = newId('rec');
      const participants = [{ id, name: 'Customer' }];
      const data = { title: 'Support call', transcript: [{ speaker: 'Customer', text: words }] };
      await t.pool.query(
        `INSERT INTO records (id, workspace_id, batch_id, position, dedup_key, type, nature, product_id, project_ids, event_at, vendor_ids, participants, data)
         VALUES ($1, $2, $3, $4, $1, 'call', 'evidence', $5, '{}', now(), '{}', $6, $7::json)`,
        [rec, ws, batch, i, prod, JSON.stringify(participants), JSON.stringify(data)],
      );
      const { sourceId } = await createSourceFromRecord(t.pool, { id: rec, workspaceId: ws, productId: prod, projectIds: [], type: 'call', nature: 'evidence', eventAt: new Date(), data, participants, tags: [], threadId: null });
      calls.push({ record: rec, source: sourceId });
    }
    const snapshot = async () => JSON.stringify((await t.pool.query(
      `SELECT (SELECT json_agg(row_to_json(r) ORDER BY r.id) FROM records r WHERE r.workspace_id = $1) AS records,
              (SELECT json_agg(row_to_json(g) ORDER BY g.source_id, g.position) FROM source_segments g JOIN sources s ON s.id = g.source_id WHERE s.workspace_id = $1) AS segments`, [ws])).rows[0]);
    const before = await snapshot();
    const deps = { pool: t.pool, databaseUrl: t.url, storage: createLocalStorage(dir) };

    const dry = await erasureCommand('person erase', { workspace: ws, participant: 'cust-1', 'dry-run': true, run: true }, deps);
    expect(dry[0]).toMatch(/^era_\w+ {2}\S+ {2}by admin CLI {2}\(participant id\) {2}previewed \(dry run\) {2}would erase: records 1, sources 1, segments 1$/);
    expect(dry).toContain('  "Customer"  shared with 1 other participant: never looked for');
    expect(dry.join('\n')).toContain('before: Customer: The walrus export is broken.');
    const id = dry[0]!.split(' ')[0]!;
    expect(dry.at(-1)).toMatch(new RegExp(`^Confirm by \\S+: npm run admin -- person confirm --workspace ${ws} --id ${id} \\[--run\\]$`));
    expect(await snapshot()).toBe(before);
    expect(await erasureCommand('person erasures', { workspace: ws, id }, deps)).toEqual(dry);

    await expect(erasureCommand('person confirm', { workspace: ws, id, 'use-name': ['Customer'] }, deps)).rejects.toThrow('--use-name: "Customer" is shared with 1 other participant and is never looked for');
    const done = await erasureCommand('person confirm', { workspace: ws, id, run: true }, deps);
    expect(done[0]).toMatch(/ {2}complete {2}records 1, sources 1, segments 1$/);
    const { rows } = await t.pool.query('SELECT id, participants, data FROM records WHERE workspace_id = $1', [ws]);
    expect(rows.find((r) => r.id === calls[0]!.record)!.data.transcript).toEqual([{ speaker: '[erased]', text: '[erased]' }]);
    const recordOf = (snap: string, id: string) => JSON.stringify(JSON.parse(snap).records.find((r: { id: string }) => r.id === id));
    expect(recordOf(await snapshot(), calls[1]!.record)).toBe(recordOf(before, calls[1]!.record));
    const { rows: segs } = await t.pool.query('SELECT speaker, text FROM source_segments WHERE source_id = $1', [calls[1]!.source]);
    expect(segs).toEqual([{ speaker: 'Customer', text: 'Please keep my heron dashboard.' }]);
    await expect(erasureCommand('person confirm', { workspace: ws, id }, deps)).rejects.toThrow(/is complete: only a preview \(status "previewed"\) can be confirmed/);
  });

  it('shows the erasure\'s phase and counts on the progress line while --run erases, then clears it', async () => {
    const ws = newId('ws');
    await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $1)', [ws]);
    await t.pool.query("INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, 'P')", [`prod_${ws}`, ws]);
    await t.pool.query(
      `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status, participants)
       VALUES ($1, $2, $3, '{}', 'call', 'evidence', 'Call', now(), 'ready', '[{"id":"p-bo","name":"Bo","email":"bo@globex.test"}]')`,
      [newId('src'), ws, `prod_${ws}`],
    );
    const shown: string[] = [];
    const progress = { update: (text: string) => shown.push(text), done: () => shown.push('(done)') };
    const erased = await erasureCommand('person erase', { workspace: ws, email: 'bo@globex.test', run: true }, { pool: t.pool, databaseUrl: t.url, storage: createLocalStorage(dir), progress });
    expect(erased[0]).toMatch(/ {2}complete {2}.*sources 1/);
    const id = erased[0]!.split(' ')[0]!;
    expect(shown.length).toBeGreaterThan(2);
    expect(shown[0]).toMatch(new RegExp(`^Erasing ${id}: discover \\w+ · `));
    expect(shown).toContainEqual(expect.stringMatching(new RegExp(`^Erasing ${id}: \\w[\\w ]* · .*sources 1`)));
    expect(shown.at(-1)).toBe('(done)');
  });

  it('refuses a participant id shorter than 3 characters, naming the flag and the minimum; takes --dry-run and --use-name from the command line', async () => {
    const deps = { pool: t.pool, databaseUrl: t.url, storage: createLocalStorage(dir) };
    await expect(erasureCommand('person erase', { workspace: 'ws_x', participant: '42' }, deps)).rejects.toThrow(/^--participant: must be at least 3 characters \(this one has 2\)/);
    await expect(erasureCommand('person confirm', { workspace: 'ws_x' }, deps)).rejects.toThrow('Missing --id');
    const database = { pool: t.pool, url: t.url } as never;
    await expect(runAdmin(['person', 'confirm', '--workspace', 'ws_x', '--id', 'era_missing', '--use-name', 'A', '--use-name', 'B'], database, 'loupe_')).rejects.toThrow('Erasure era_missing not found in workspace ws_x');
    await expect(runAdmin(['person', 'erase', '--workspace', 'ws_x', '--participant', '4', '--dry-run'], database, 'loupe_')).rejects.toThrow(/^--participant: must be at least 3/);
  });

  it('says what is missing or wrong', async () => {
    const deps = { pool: t.pool, databaseUrl: t.url, storage: createLocalStorage(dir) };
    await expect(erasureCommand('person erase', {}, deps)).rejects.toThrow(ErasureUsageError);
    await expect(erasureCommand('person erase', { workspace: 'ws_x' }, deps)).rejects.toThrow(/Give the person to erase: --email or --participant/);
    await expect(erasureCommand('person erase', { workspace: 'ws_x', email: 'nope' }, deps)).rejects.toThrow(/--email: must be an email/);
    await expect(erasureCommand('person erase', { workspace: 'ws_missing', email: 'a@b.test' }, deps)).rejects.toThrow(/Workspace ws_missing not found/);
  });
});
