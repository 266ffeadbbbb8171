import { randomBytes } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { KeyringError, openCredentials, parseKeyring, rewrapDataKey, sealCredentials } from './envelope';

const key = () => randomBytes(32).toString('base64');

describe('envelope encryption of credentials', () => {
  it('seals under a data key of its own, wrapped by the current key; the sealed form holds no clear text', () => {
    const keyring = parseKeyring(`k1:${key()}`);
    const a = sealCredentials(keyring, { email: 'ops@acme.example', api_token: 'secret-token-1' });
    const b = sealCredentials(keyring, { email: 'ops@acme.example', api_token: 'secret-token-1' });
    expect(a.ciphertext).not.toBe(b.ciphertext);
    expect(a.dataKey).not.toBe(b.dataKey);
    expect(a.dataKey.split('.')[1]).toBe('k1');
    expect(JSON.stringify(a)).not.toMatch(/secret-token-1|ops@acme/);
    expect(openCredentials(keyring, a)).toEqual({ email: 'ops@acme.example', api_token: 'secret-token-1' });
  });

  it('rotates: a new key first still opens what the old one wrapped, re-wraps it, and then the old key can go', () => {
    const oldKey = key();
    const sealed = sealCredentials(parseKeyring(`old:${oldKey}`), { access_token: 't' });
    const rotating = parseKeyring(`new:${key()},old:${oldKey}`);
    expect(openCredentials(rotating, sealed)).toEqual({ access_token: 't' });
    const dataKey = rewrapDataKey(rotating, sealed.dataKey)!;
    expect(dataKey.split('.')[1]).toBe('new');
    expect(rewrapDataKey(rotating, dataKey)).toBeUndefined();
    const rotated = { current: rotating.current, byId: new Map([[rotating.current.id, rotating.current.key]]) };
    expect(openCredentials(rotated, { ciphertext: sealed.ciphertext, dataKey })).toEqual({ access_token: 't' });
    expect(() => openCredentials(rotated, sealed)).toThrow(/wrapped by key "old", which CONNECTIONS_KEY no longer holds/);
  });

  it('refuses a tampered ciphertext and a keyring written wrong', () => {
    const keyring = parseKeyring(`k1:${key()}`);
    const sealed = sealCredentials(keyring, { access_token: 't' });
    const parts = sealed.ciphertext.split('.');
    parts[3] = Buffer.from('x' + Buffer.from(parts[3]!, 'base64url').toString('latin1')).toString('base64url');
    expect(() => openCredentials(keyring, { ...sealed, ciphertext: parts.join('.') })).toThrow(KeyringError);
    expect(() => openCredentials(parseKeyring(`k1:${key()}`), sealed)).toThrow(/does not open with its key/);
    expect(() => parseKeyring('nokey')).toThrow(KeyringError);
    expect(() => parseKeyring(`k1:${Buffer.alloc(16).toString('base64')}`)).toThrow(/32 bytes/);
    expect(() => parseKeyring(`k1:${key()},k1:${key()}`)).toThrow(/twice/);
  });
});
