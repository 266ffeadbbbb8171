import { generateKeyPairSync, randomBytes } from 'node:crypto';
import type pg from 'pg';

/**
 * A value the service makes once and every instance on the database then shares (signing keys,
 * cookie keys, HMAC secrets): the first instance to ask stores it, the others read it.
 */
export async function sharedSecret<T>(pool: pg.Pool, name: string, make: () => T): Promise<T> {
  await pool.query('INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [name, JSON.stringify(make())]);
  const { rows } = await pool.query<{ value: T }>('SELECT value FROM service_secrets WHERE name = $1', [name]);
  return rows[0]!.value;
}

export const randomSecret = () => randomBytes(32).toString('base64url');

export function newSigningKey(): Record<string, unknown> {
  const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
  return { ...privateKey.export({ format: 'jwk' }), kid: randomBytes(8).toString('hex'), alg: 'RS256', use: 'sig' };
}
