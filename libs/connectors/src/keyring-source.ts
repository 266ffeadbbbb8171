import { randomBytes } from 'node:crypto';
import type pg from 'pg';
import { parseKeyring, rewrapDataKey, type Keyring } from './envelope';

/** The service_secrets row of the development key, used only when CONNECTIONS_KEY is not set. */
export const DEVELOPMENT_KEY_NAME = 'connections-development-key';

/**
 * The keyring of CONNECTIONS_KEY, or, on the embedded setup without it, a key made by the first instance that
 * asks and kept in service_secrets (then the database alone opens the credentials: fine for a laptop, not for production).
 */
export async function loadKeyring(pool: Pick<pg.Pool, 'query'>, connectionsKey: string | undefined): Promise<Keyring> {
  if (connectionsKey) return parseKeyring(connectionsKey);
  await pool.query('INSERT INTO service_secrets (name, value) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING', [
    DEVELOPMENT_KEY_NAME, JSON.stringify(randomBytes(32).toString('base64')),
  ]);
  const { rows } = await pool.query<{ value: unknown }>('SELECT value FROM service_secrets WHERE name = $1', [DEVELOPMENT_KEY_NAME]);
  return parseKeyring(`dev:${String(rows[0]!.value)}`);
}

/** Rotation: every data key not wrapped by the keyring's current key is wrapped by it. Returns how many were. */
export async function rewrapConnectionKeys(pool: pg.Pool, keyring: Keyring): Promise<number> {
  const { rows } = await pool.query<{ id: string; credentials_data_key: string }>('SELECT id, credentials_data_key FROM connections');
  let rewrapped = 0;
  for (const row of rows) {
    const next = rewrapDataKey(keyring, row.credentials_data_key);
    if (!next) continue;
    // Conditional: a credentials change meanwhile brought its own data key, already under the current key.
    const { rowCount } = await pool.query('UPDATE connections SET credentials_data_key = $2 WHERE id = $1 AND credentials_data_key = $3', [row.id, next, row.credentials_data_key]);
    rewrapped += rowCount ?? 0;
  }
  return rewrapped;
}
