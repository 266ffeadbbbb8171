import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto';

/**
 * Envelope encryption of a connection's credentials: each connection's credentials are sealed (AES-256-GCM)
 * under a data key of their own, and that data key is stored wrapped (AES-256-GCM) by a key-encryption key
 * of the keyring. Rotating the keyring re-wraps data keys only; the credentials themselves are not touched.
 */
export interface Keyring {
  /** The key new data keys are wrapped with. */
  current: { id: string; key: Buffer };
  /** Every key a stored data key may name, the current one included. */
  byId: ReadonlyMap<string, Buffer>;
}

export interface Sealed {
  /** `v1.<iv>.<tag>.<ciphertext>` under the data key. */
  ciphertext: string;
  /** `v1.<key id>.<iv>.<tag>.<wrapped data key>` under a keyring key. */
  dataKey: string;
}

export class KeyringError extends Error {
  override name = 'KeyringError';
}

const KEY_ID = /^[A-Za-z0-9_-]{1,32}$/;

/**
 * `CONNECTIONS_KEY`: `<id>:<32 bytes, base64 or base64url>`, several separated by commas; the first wraps
 * new data keys, the others are still read (rotation: put the new key first, run the re-wrap, then drop the old).
 */
export function parseKeyring(value: string): Keyring {
  const entries = value.split(',').map((s) => s.trim()).filter(Boolean);
  if (!entries.length) throw new KeyringError('CONNECTIONS_KEY: no key given');
  const byId = new Map<string, Buffer>();
  for (const [i, entry] of entries.entries()) {
    const colon = entry.indexOf(':');
    const id = colon > 0 ? entry.slice(0, colon) : '';
    if (!KEY_ID.test(id)) throw new KeyringError(`CONNECTIONS_KEY: key ${i + 1} must be written <id>:<base64 key>, the id 1 to 32 letters, digits, - or _`);
    const key = Buffer.from(entry.slice(colon + 1), 'base64');
    if (key.length !== 32) throw new KeyringError(`CONNECTIONS_KEY: key "${id}" must be 32 bytes in base64 (got ${key.length})`);
    if (byId.has(id)) throw new KeyringError(`CONNECTIONS_KEY: key id "${id}" is given twice`);
    byId.set(id, key);
  }
  const [id, key] = [...byId][0]!;
  return { current: { id, key }, byId };
}

function seal(key: Buffer, plaintext: Buffer): string[] {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key, iv);
  const ciphertext = Buffer.concat([cipher.update(plaintext), cipher.final()]);
  return [iv, cipher.getAuthTag(), ciphertext].map((b) => b.toString('base64url'));
}

function open(key: Buffer, [iv, tag, ciphertext]: string[]): Buffer {
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, Buffer.from(iv!, 'base64url'));
    decipher.setAuthTag(Buffer.from(tag!, 'base64url'));
    return Buffer.concat([decipher.update(Buffer.from(ciphertext!, 'base64url')), decipher.final()]);
  } catch {
    throw new KeyringError('the stored value does not open with its key (another key under the same id, or altered)');
  }
}

function wrap(keyring: Keyring, dataKey: Buffer): string {
  return ['v1', keyring.current.id, ...seal(keyring.current.key, dataKey)].join('.');
}

function unwrap(keyring: Keyring, wrapped: string): Buffer {
  const parts = wrapped.split('.');
  if (parts.length !== 5 || parts[0] !== 'v1') throw new KeyringError('the stored data key is not in the v1 format');
  const key = keyring.byId.get(parts[1]!);
  if (!key) throw new KeyringError(`the data key is wrapped by key "${parts[1]}", which CONNECTIONS_KEY no longer holds`);
  return open(key, parts.slice(2));
}

export function sealCredentials(keyring: Keyring, credentials: unknown): Sealed {
  const dataKey = randomBytes(32);
  const ciphertext = ['v1', ...seal(dataKey, Buffer.from(JSON.stringify(credentials), 'utf8'))].join('.');
  return { ciphertext, dataKey: wrap(keyring, dataKey) };
}

export function openCredentials(keyring: Keyring, sealed: Sealed): unknown {
  const parts = sealed.ciphertext.split('.');
  if (parts.length !== 4 || parts[0] !== 'v1') throw new KeyringError('the stored credentials are not in the v1 format');
  return JSON.parse(open(unwrap(keyring, sealed.dataKey), parts.slice(1)).toString('utf8'));
}

/** The data key wrapped again by the current key; undefined when it already is. */
export function rewrapDataKey(keyring: Keyring, wrapped: string): string | undefined {
  if (wrapped.split('.')[1] === keyring.current.id) return undefined;
  return wrap(keyring, unwrap(keyring, wrapped));
}
