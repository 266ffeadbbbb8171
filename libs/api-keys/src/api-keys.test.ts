import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createProduct, createWorkspace } from '@loupe/workspaces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { authenticateApiKey, createApiKey, hashApiKey, listApiKeys, parsePermissions, revokeApiKey } from './index';

describe('API keys', () => {
  let t: TestDatabase;
  let workspaceId: string;
  let productId: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    workspaceId = (await createWorkspace(t.db, { name: 'Acme' })).id;
    productId = (await createProduct(t.db, workspaceId, { name: 'App' })).id;
  });
  afterAll(() => t.close());

  it('shows the key once and stores only its hash and display prefix', async () => {
    const { key, apiKey } = await createApiKey(t.db, {
      workspaceId, name: 'ci', permissions: ['api:write'], servicePrefix: 'loupe_',
    });
    expect(key).toMatch(/^loupe_sk_[A-Za-z0-9_-]{43}$/);
    expect(apiKey.secretHash).toBe(hashApiKey(key));
    const { rows } = await t.pool.query('SELECT * FROM api_keys WHERE id = $1', [apiKey.id]);
    expect(JSON.stringify(rows)).not.toContain(key.slice(16));
    const listed = await listApiKeys(t.db, workspaceId);
    expect(listed.find((k) => k.id === apiKey.id)).toMatchObject({ displayPrefix: key.slice(0, 15) });
    expect(JSON.stringify(listed)).not.toContain(key);
  });

  it('authenticates a live key and refuses unknown and revoked ones', async () => {
    const { key, apiKey } = await createApiKey(t.db, {
      workspaceId, name: 'mcp', permissions: ['mcp:read', 'api:read'], defaultProductId: productId, servicePrefix: 'loupe_',
    });
    expect(await authenticateApiKey(t.pool, key, 'loupe_')).toMatchObject({ workspaceId, permissions: ['mcp:read', 'api:read'] });
    expect(await authenticateApiKey(t.pool, `${key.slice(0, -1)}x`, 'loupe_')).toBeNull();
    expect(await authenticateApiKey(t.pool, undefined, 'loupe_')).toBeNull();
    await revokeApiKey(t.db, workspaceId, apiKey.id);
    expect(await authenticateApiKey(t.pool, key, 'loupe_')).toBeNull();
  });

  it('refuses unknown permissions and MCP permissions without a default product', async () => {
    expect(() => parsePermissions('api:read,api:delete')).toThrow(/"api:delete"/);
    await expect(
      createApiKey(t.db, { workspaceId, name: 'x', permissions: ['mcp:read'], servicePrefix: 'loupe_' }),
    ).rejects.toThrow(/default product/);
  });

  it('does not revoke a key of another workspace', async () => {
    const other = await createWorkspace(t.db, { name: 'Other' });
    const { apiKey } = await createApiKey(t.db, { workspaceId, name: 'y', permissions: ['api:read'], servicePrefix: 'loupe_' });
    await expect(revokeApiKey(t.db, other.id, apiKey.id)).rejects.toThrow(/not found/);
  });
});
