import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';
import type pg from 'pg';

/** The service_secrets row holding the AES-256-GCM key of third-party auth header values. */
export const HEADER_KEY_NAME = 'third-party-header-key';

/**
 * The key, made by the first instance that asks (INSERT … ON CONFLICT DO NOTHING, then SELECT,
 * so instances starting together agree on one).
 */
export async function headerKey(pool: pg.Pool): Promise<Buffer> {
  await pool.query('INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    HEADER_KEY_NAME,
    JSON.stringify(randomBytes(32).toString('base64url')),
  ]);
  const { rows } = await pool.query<{ value: unknown }>('SELECT value FROM service_secrets WHERE name = $1', [HEADER_KEY_NAME]);
  const value = rows[0]?.value;
  const key = typeof value === 'string' ? Buffer.from(value, 'base64url') : Buffer.alloc(0);
  if (key.length !== 32) throw new Error(`service_secrets ${HEADER_KEY_NAME} is not a 32-byte base64url key`);
  return key;
}

/** `v1.<iv>.<tag>.<ciphertext>`, each base64url: AES-256-GCM with a fresh 12-byte IV. */
export function encryptHeaderValue(key: Buffer, plaintext: string): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
  return ['v1', iv.toString('base64url'), cipher.getAuthTag().toString('base64url'), ciphertext.toString('base64url')].join('.');
}

export function decryptHeaderValue(key: Buffer, stored: string): string {
  const parts = stored.split('.');
  if (parts.length !== 4 || parts[0] !== 'v1') throw new Error('the stored header value is not in the v1 format');
  const [, iv, tag, ciphertext] = parts.map((p) => Buffer.from(p, 'base64url')) as [Buffer, Buffer, Buffer, Buffer];
  const decipher = createDecipheriv('aes-256-gcm', key, iv);
  decipher.setAuthTag(tag);
  return Buffer.concat([decipher.update(ciphertext), decipher.final()]).toString('utf8');
}
