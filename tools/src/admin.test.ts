import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runAdmin, UsageError } from './admin';

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

  it('returns a command\'s help, and throws the parser\'s short message for a command line given wrongly', async () => {
    const help = await runAdmin(['key', 'revoke', '--help'], database, 'loupe_');
    expect(help[0]).toBe('Usage: npm run admin -- key revoke --workspace <id> --id <id>');
    const wrong = runAdmin(['plan', 'set', '--name', 'X', '--included', '1', '--overage', 'yes'], database, 'loupe_');
    await expect(wrong).rejects.toThrow(UsageError);
    await expect(wrong).rejects.toThrow(/^error: option '--overage <on\|off>' argument 'yes' is invalid\. Allowed choices are on, off\.\nRun "npm run admin -- plan set --help" to see its options\.$/);
    await expect(runAdmin(['credits', 'grant', '--workspace', 'ws_x'], database, 'loupe_')).rejects.toThrow(/^error: required option '--amount <n>' not specified/);
  });
});
