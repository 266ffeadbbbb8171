import { randomBytes } from 'node:crypto';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createProduct, createProject, createWorkspace } from '@loupe/workspaces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openCredentials, parseKeyring } from './envelope';
import { loadKeyring, rewrapConnectionKeys } from './keyring-source';
import { insertConnection, sealedCredentials } from './store';

let t: TestDatabase;
beforeAll(async () => {
  t = await createTestDatabase();
});
afterAll(() => t.close());

describe('the keyring of the connections', () => {
  it('without CONNECTIONS_KEY, is one development key made once and shared by every instance', async () => {
    const [a, b] = await Promise.all([loadKeyring(t.pool, undefined), loadKeyring(t.pool, undefined)]);
    expect(a.current.id).toBe('dev');
    expect(a.current.key.equals(b.current.key)).toBe(true);
    expect((await loadKeyring(t.pool, undefined)).current.key.equals(a.current.key)).toBe(true);
  });

  it('rotates: every data key is re-wrapped by the new key first in CONNECTIONS_KEY, the credentials untouched, and then the old key can go', async () => {
    const ws = (await createWorkspace(t.db, { name: 'Rotate' })).id;
    const product = (await createProduct(t.db, ws, { name: 'P' })).id;
    const project = (await createProject(t.db, ws, product, { name: 'J' })).id;
    const dev = await loadKeyring(t.pool, undefined);
    const conns = await Promise.all([1, 2].map((i) => insertConnection(t.pool, dev, ws, {
      kind: 'zendesk', productId: product, projectId: project, baseUrl: `https://acme${i}.zendesk.com`, settings: {}, credentials: { access_token: `token-${i}` }, syncIntervalSeconds: 900,
    }, new Date())));
    const before = await sealedCredentials(t.pool, conns[0]!.id);
    const newKey = randomBytes(32).toString('base64');
    const devValue = dev.current.key.toString('base64');
    const rotating = parseKeyring(`k2:${newKey},dev:${devValue}`);
    expect(await rewrapConnectionKeys(t.pool, rotating)).toBe(2);
    expect(await rewrapConnectionKeys(t.pool, rotating)).toBe(0);
    const after = await sealedCredentials(t.pool, conns[0]!.id);
    expect(after!.ciphertext).toBe(before!.ciphertext);
    expect(after!.dataKey.split('.')[1]).toBe('k2');
    const onlyNew = parseKeyring(`k2:${newKey}`);
    for (const [i, c] of conns.entries()) {
      const sealed = (await sealedCredentials(t.pool, c.id))!;
      expect(openCredentials(onlyNew, sealed)).toEqual({ access_token: `token-${i + 1}` });
    }
  });
});
