import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTestDatabase, statementsOf, type TestDatabase } from '@loupe/db/testing';
import { systemClock } from '@loupe/http';
import { createAdapterClass, inTokenTransaction, modelRow, rotateRefreshToken } from './adapter';
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

  describe('a token request in one transaction (inTokenTransaction)', () => {
    const rotation = async (name: string) => {
      const A = Adapter();
      const rt = new A('RefreshToken');
      await rt.upsert(`${name}-0`, { jti: `${name}-0`, kind: 'RefreshToken', grantId: name }, 600);
      /** Consumes the first token and saves its successor, as a refresh does. */
      const rotate = async () => {
        await rt.consume(`${name}-0`);
        await rt.upsert(`${name}-1`, { jti: `${name}-1`, kind: 'RefreshToken', grantId: name }, 600);
      };
      return { rt, rotate };
    };

    it('commits the consume and the successor together', async () => {
      const { rt, rotate } = await rotation('tx-commit');
      await inTokenTransaction(async () => {
        await rotate();
        return true;
      });
      expect(await rt.find('tx-commit-0')).toMatchObject({ consumed: expect.any(Number) });
      expect(await rt.find('tx-commit-1')).toMatchObject({ grantId: 'tx-commit' });
    });

    it('keeps the refresh token usable when the request fails after the consume (the database lost mid-rotation)', async () => {
      const { rt, rotate } = await rotation('tx-fail');
      const lost = Object.assign(new Error('terminating connection due to administrator command'), { code: '57P01' });
      await expect(inTokenTransaction(async () => {
        await rotate();
        throw lost;
      })).rejects.toBe(lost);
      await inTokenTransaction(async () => {
        await rotate();
        return false; // a 5xx answer: rolled back
      });
      expect(await rt.find('tx-fail-0')).not.toHaveProperty('consumed');
      expect(await rt.find('tx-fail-1')).toBeUndefined();
    });

    it('of 20 concurrent rotations exactly one wins, the others wait for it and get invalid_grant', async () => {
      const { rt, rotate } = await rotation('tx-race');
      const results = await Promise.allSettled(Array.from({ length: 20 }, () => inTokenTransaction(async () => {
        await rotate();
        return true;
      })));
      expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
      expect(results.every((r) => r.status === 'fulfilled' || (r.reason as { error?: string }).error === 'invalid_grant')).toBe(true);
      expect(await rt.find('tx-race-1')).toBeDefined();
    });
  });

  it('concurrent rotations share one statement, and of two with one token in it exactly one wins and writes', async () => {
    const A = Adapter();
    const rt = new A('RefreshToken');
    for (const name of ['batch-a', 'batch-b']) await rt.upsert(`${name}-0`, { jti: `${name}-0`, kind: 'RefreshToken', grantId: name }, 600);
    const rows = (name: string, n: number) => {
      const row = (model: string, id: string) => modelRow(model, id, { jti: id, kind: model, grantId: name }, 600, systemClock).values;
      return [row('RefreshToken', `${name}-${n}`), row('AccessToken', `${name}-at-${n}`)] as const;
    };
    const consume = (name: string) => ({ model: 'RefreshToken', idHash: sha256(`${name}-0`), at: new Date() });
    let results: boolean[] = [];
    // Started together: the first goes out alone, the three that arrive while it is out go in one statement.
    const seen = await statementsOf(async () => {
      results = await Promise.all([
        rotateRefreshToken(t.pool, consume('batch-a'), ...rows('batch-a', 1)),
        rotateRefreshToken(t.pool, consume('batch-b'), ...rows('batch-b', 1)),
        rotateRefreshToken(t.pool, consume('batch-b'), ...rows('batch-b', 2)),
        rotateRefreshToken(t.pool, { ...consume('batch-nothing'), idHash: sha256('batch-nothing') }, ...rows('batch-nothing', 1)),
      ]);
    });
    expect(seen).toEqual(['oauth-rotate-refresh-token', 'oauth-rotate-refresh-token']);
    expect(results[0]).toBe(true);
    expect(results.slice(1, 3).sort()).toEqual([false, true]);
    expect(results[3]).toBe(false);
    const winner = results[1] ? 1 : 2;
    const loser = 3 - winner;
    const at = new A('AccessToken');
    expect(await rt.find('batch-a-1')).toBeDefined();
    expect(await at.find('batch-a-at-1')).toBeDefined();
    expect(await rt.find(`batch-b-${winner}`)).toBeDefined();
    expect(await at.find(`batch-b-at-${winner}`)).toBeDefined();
    expect(await rt.find(`batch-b-${loser}`)).toBeUndefined(); // the loser wrote nothing
    expect(await at.find(`batch-b-at-${loser}`)).toBeUndefined();
    expect(await rt.find('batch-nothing-1')).toBeUndefined();
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
