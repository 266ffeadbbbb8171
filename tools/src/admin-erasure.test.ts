import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createLocalStorage } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { erasureCommand, ErasureUsageError } from './admin-erasure';

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
    const erased = await erasureCommand('person erase', { workspace: ws, email: 'ana@globex.test', run: true }, deps);
    expect(erased[0]).toMatch(/^era_\w+ {2}\S+ {2}by admin CLI {2}\(email\) {2}complete {2}.*sources 1/);
    expect(erased.join('\n')).not.toMatch(/ana/i);
    const { rows } = await t.pool.query('SELECT title, participants::text AS p FROM sources WHERE workspace_id = $1', [ws]);
    expect(JSON.stringify(rows)).not.toMatch(/ana/i);
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
    const { rows: jobs } = await t.pool.query("SELECT data FROM pgboss.job WHERE name = 'person.erase'");
    expect(jobs.length).toBe(2);
  });

  it('says what is missing or wrong', async () => {
    const deps = { pool: t.pool, databaseUrl: t.url, storage: createLocalStorage(dir) };
    await expect(erasureCommand('person erase', {}, deps)).rejects.toThrow(ErasureUsageError);
    await expect(erasureCommand('person erase', { workspace: 'ws_x' }, deps)).rejects.toThrow(/Give the person to erase: --email or --participant/);
    await expect(erasureCommand('person erase', { workspace: 'ws_x', email: 'nope' }, deps)).rejects.toThrow(/--email: must be an email/);
    await expect(erasureCommand('person erase', { workspace: 'ws_missing', email: 'a@b.test' }, deps)).rejects.toThrow(/Workspace ws_missing not found/);
  });
});
