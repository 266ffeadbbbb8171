import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, createProduct, createProject, createWorkspace } from './index';

describe('workspaces', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  it('creates a workspace with its owner, a product and a project', async () => {
    const ws = await createWorkspace(t.db, { name: 'Acme', ownerEmail: 'Ada@Example.com' });
    const product = await createProduct(t.db, ws.id, { name: 'App' });
    const project = await createProject(t.db, ws.id, product.id, { name: 'Onboarding' });
    expect(project).toMatchObject({ workspaceId: ws.id, productId: product.id });
    const members = await t.db.membership.findMany({ where: { workspaceId: ws.id }, include: { user: true } });
    expect(members.map((m) => [m.user.email, m.role])).toEqual([['ada@example.com', 'owner']]);
  });

  it('refuses a project under a product of another workspace', async () => {
    const a = await createWorkspace(t.db, { name: 'A' });
    const b = await createWorkspace(t.db, { name: 'B' });
    const product = await createProduct(t.db, a.id, { name: 'P' });
    await expect(createProject(t.db, b.id, product.id, { name: 'x' })).rejects.toThrow(NotFoundError);
    await expect(createProduct(t.db, 'ws_missing', { name: 'x' })).rejects.toThrow(/not found/);
  });
});
