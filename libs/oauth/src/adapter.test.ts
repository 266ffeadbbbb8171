import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { systemClock } from '@loupe/http';
import { createAdapterClass } from './adapter';
import { sha256 } from './hash';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

describe('PostgreSQL adapter', () => {
  const Adapter = () => createAdapterClass({ pool: t.pool, clock: systemClock });

  it('stores a token under the SHA-256 of its value, never the value', async () => {
    const adapter = new (Adapter())('AccessToken');
    await adapter.upsert('loupe_at_secretvalue', { jti: 'loupe_at_secretvalue', kind: 'AccessToken', grantId: 'g1', exp: 1 }, 3600);
    const { rows } = await t.pool.query("SELECT id_hash, payload::text AS p FROM oauth_models WHERE model = 'AccessToken'");
    expect(rows).toEqual([{ id_hash: sha256('loupe_at_secretvalue'), p: expect.not.stringContaining('secretvalue') }]);
    expect(await adapter.find('loupe_at_secretvalue')).toMatchObject({ jti: 'loupe_at_secretvalue', grantId: 'g1' });
    expect(await adapter.find('loupe_at_other')).toBeUndefined();
  });

  it('of 20 concurrent consumes exactly one wins; the others fail with invalid_grant', async () => {
    const adapter = new (Adapter())('AuthorizationCode');
    await adapter.upsert('code-1', { jti: 'code-1', kind: 'AuthorizationCode', grantId: 'g2' }, 600);
    const results = await Promise.allSettled(Array.from({ length: 20 }, () => adapter.consume('code-1')));
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const failures = results.filter((r): r is PromiseRejectedResult => r.status === 'rejected');
    expect(failures).toHaveLength(19);
    expect(failures.every((f) => (f.reason as { error?: string }).error === 'invalid_grant')).toBe(true);
    expect(await adapter.find('code-1')).toMatchObject({ consumed: expect.any(Number) });
  });

  it('revokeByGrantId removes that model\'s rows of the grant only', async () => {
    const A = Adapter();
    const at = new A('AccessToken');
    const rt = new A('RefreshToken');
    await at.upsert('at-g3', { jti: 'at-g3', kind: 'AccessToken', grantId: 'g3' }, 60);
    await rt.upsert('rt-g3', { jti: 'rt-g3', kind: 'RefreshToken', grantId: 'g3' }, 60);
    await at.upsert('at-g4', { jti: 'at-g4', kind: 'AccessToken', grantId: 'g4' }, 60);
    await at.revokeByGrantId('g3');
    expect(await at.find('at-g3')).toBeUndefined();
    expect(await rt.find('rt-g3')).toBeDefined();
    expect(await at.find('at-g4')).toBeDefined();
  });
});
