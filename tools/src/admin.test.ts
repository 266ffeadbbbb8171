import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin, UsageError } from './admin';
import type { Progress } from './cli/progress';

/** A progress line that keeps what it was asked to show. */
function recordedProgress() {
  const shown: string[] = [];
  const progress: Progress = { update: (text) => shown.push(text), done: () => shown.push('(done)') };
  return { shown, progress };
}

describe('runAdmin', () => {
  let t: TestDatabase;
  let database: never;
  beforeAll(async () => {
    t = await createTestDatabase();
    database = { pool: t.pool, url: t.url, db: t.db } as never;
  });
  afterAll(() => t.close());

  it('revokes the key given with --id', async () => {
    const ws = /Created workspace (\S+)/.exec((await runAdmin(['workspace', 'create', '--name', 'Acme'], database, 'loupe_'))[0]!)![1]!;
    const created = await runAdmin(['key', 'create', '--workspace', ws, '--name', 'ci', '--permissions', 'api:read'], database, 'loupe_');
    const keyId = /Created API key (\S+)/.exec(created[0]!)![1]!;
    expect(await runAdmin(['key', 'revoke', '--workspace', ws, '--id', keyId], database, 'loupe_')).toEqual([`Revoked API key ${keyId}`]);
    expect((await runAdmin(['key', 'list', '--workspace', ws], database, 'loupe_'))[0]).toContain('REVOKED');
  });

  it('saves a plan with --overage on or off', async () => {
    expect(await runAdmin(['plan', 'set', '--name', 'Billed', '--included', '1000', '--overage', 'on'], database, 'loupe_')).toEqual(['Plan Billed saved']);
    expect(await runAdmin(['plan', 'set', '--name', 'Paused', '--included', '10', '--overage', 'off'], database, 'loupe_')).toEqual(['Plan Paused saved']);
    const { rows } = await t.pool.query("SELECT name, overage_allowed FROM plans WHERE name IN ('Billed', 'Paused') ORDER BY name");
    expect(rows).toEqual([{ name: 'Billed', overage_allowed: true }, { name: 'Paused', overage_allowed: false }]);
  });

  it('shows the lines written so far while exporting, then clears the line before the result', async () => {
    const ws = newId('ws');
    await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $1)', [ws]);
    await t.pool.query("INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, 'P')", [`prod_${ws}`, ws]);
    for (let i = 0; i < 2; i++) {
      await t.pool.query(
        `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status) VALUES ($1, $2, $3, '{}', 'call', 'evidence', 'Call', now(), 'ready')`,
        [newId('src'), ws, `prod_${ws}`],
      );
    }
    const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-admin-export-'));
    try {
      const file = path.join(dir, 'export.ndjson');
      const { shown, progress } = recordedProgress();
      const out = await runAdmin(['workspace', 'export', '--workspace', ws, '--out', file], database, 'loupe_', { progress });
      expect(out).toEqual([`Wrote 2 sources, 0 signals, 0 opportunities, 0 shaping notes, 0 companies and 0 people to ${file}`]);
      expect(shown).toEqual([`${file}: 1 line written (source 1)`, `${file}: 2 lines written (source 2)`, `${file}: 2 lines written (source 2)`, '(done)']);
      expect((await readFile(file, 'utf8')).trimEnd().split('\n')).toHaveLength(3);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it('returns a command\'s help, and throws the parser\'s short message for a command line given wrongly', async () => {
    const help = await runAdmin(['key', 'revoke', '--help'], database, 'loupe_');
    expect(help[0]).toBe('Usage: npm run admin -- key revoke --workspace <id> --id <id>');
    const wrong = runAdmin(['plan', 'set', '--name', 'X', '--included', '1', '--overage', 'yes'], database, 'loupe_');
    await expect(wrong).rejects.toThrow(UsageError);
    await expect(wrong).rejects.toThrow(/^error: option '--overage <on\|off>' argument 'yes' is invalid\. Allowed choices are on, off\.\nRun "npm run admin -- plan set --help" to see its options\.$/);
    await expect(runAdmin(['credits', 'grant', '--workspace', 'ws_x'], database, 'loupe_')).rejects.toThrow(/^error: required option '--amount <n>' not specified/);
  });
});
