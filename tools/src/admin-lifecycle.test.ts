import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createLocalStorage, type Storage } from '@loupe/storage';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { lifecycleCommand, LifecycleUsageError } from './admin-lifecycle';

describe('admin source delete, record delete, workspace retention', () => {
  let t: TestDatabase;
  let dir: string;
  let storage: Storage;
  beforeAll(async () => {
    t = await createTestDatabase();
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-admin-lifecycle-'));
    storage = createLocalStorage(dir);
  });
  afterAll(async () => {
    await t.close();
    await rm(dir, { recursive: true, force: true });
  });

  async function source(ws: string): Promise<string> {
    const id = newId('src');
    await t.pool.query(
      `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status) VALUES ($1, $2, 'prod_1', '{}', 'call', 'evidence', 'Call', now(), 'ready')`,
      [id, ws],
    );
    return id;
  }

  it('deletes sources by id, says which were not there, and another workspace cannot reach them', async () => {
    const ws = newId('ws');
    const other = newId('ws');
    await t.pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'A'), ($2, 'B')", [ws, other]);
    const [a, b] = [await source(ws), await source(ws)];
    const deps = { pool: t.pool, storage };
    expect(await lifecycleCommand('source delete', { workspace: other, id: a }, deps)).toEqual([`No source ${a} in workspace ${other} (already deleted, or never there)`]);
    expect(await lifecycleCommand('source delete', { workspace: ws, id: `${a}, ${b}` }, deps)).toEqual([`Deleted source ${a}`, `Deleted source ${b}`]);
    expect(await lifecycleCommand('source delete', { workspace: ws, id: a }, deps)).toEqual([`No source ${a} in workspace ${ws} (already deleted, or never there)`]);
    expect(await lifecycleCommand('record delete', { workspace: ws, id: 'rec_nope' }, deps)).toEqual([`No record rec_nope in workspace ${ws} (already deleted, or never there)`]);
    const { rowCount } = await t.pool.query('SELECT 1 FROM sources WHERE workspace_id = $1', [ws]);
    expect(rowCount).toBe(0);
    await expect(lifecycleCommand('source delete', { workspace: ws }, deps)).rejects.toThrow('Missing --id');
    await expect(lifecycleCommand('source delete', { id: a }, deps)).rejects.toBeInstanceOf(LifecycleUsageError);
  });

  it('shows, sets and turns off retention', async () => {
    const ws = newId('ws');
    await t.pool.query("INSERT INTO workspaces (id, name) VALUES ($1, 'A')", [ws]);
    const deps = { pool: t.pool, storage };
    expect(await lifecycleCommand('workspace retention', { workspace: ws }, deps)).toEqual([`Workspace ${ws} keeps its sources until they are deleted (retention off)`]);
    expect((await lifecycleCommand('workspace retention', { workspace: ws, days: '90' }, deps))[0]).toMatch(/keeps sources for 90 days/);
    expect(await lifecycleCommand('workspace retention', { workspace: ws }, deps)).toEqual([`Workspace ${ws} keeps sources for 90 days`]);
    await expect(lifecycleCommand('workspace retention', { workspace: ws, days: '0' }, deps)).rejects.toThrow(LifecycleUsageError);
    await expect(lifecycleCommand('workspace retention', { workspace: ws, days: 'soon' }, deps)).rejects.toThrow(/--days must be/);
    await expect(lifecycleCommand('workspace retention', { workspace: 'ws_nope', days: '5' }, deps)).rejects.toThrow(/does not exist/);
    expect(await lifecycleCommand('workspace retention', { workspace: ws, days: 'off' }, deps)).toEqual([`Retention of workspace ${ws} is off`]);
    const { rows } = await t.pool.query('SELECT retention_days FROM workspaces WHERE id = $1', [ws]);
    expect(rows[0].retention_days).toBeNull();
  });
});
