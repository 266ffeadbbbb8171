import { newId, type Db } from '@loupe/db';

export interface NewWorkspace {
  name: string;
  ownerEmail?: string;
}

export async function createWorkspace(db: Db, input: NewWorkspace) {
  const workspaceId = newId('ws');
  return db.$transaction(async (tx) => {
    const workspace = await tx.workspace.create({ data: { id: workspaceId, name: input.name } });
    if (input.ownerEmail) {
      const user = await tx.user.upsert({
        where: { email: input.ownerEmail.toLowerCase() },
        create: { id: newId('usr'), email: input.ownerEmail.toLowerCase() },
        update: {},
      });
      await tx.membership.create({ data: { workspaceId, userId: user.id, role: 'owner' } });
    }
    return workspace;
  });
}

export class NotFoundError extends Error {
  override name = 'NotFoundError';
}

export async function createProduct(db: Db, workspaceId: string, input: { name: string; description?: string }) {
  const workspace = await db.workspace.findUnique({ where: { id: workspaceId } });
  if (!workspace) throw new NotFoundError(`Workspace ${workspaceId} not found`);
  return db.product.create({
    data: { id: newId('prod'), workspaceId, name: input.name, description: input.description ?? null },
  });
}

export async function createProject(db: Db, workspaceId: string, productId: string, input: { name: string }) {
  const product = await db.product.findFirst({ where: { id: productId, workspaceId } });
  if (!product) throw new NotFoundError(`Product ${productId} not found in workspace ${workspaceId}`);
  return db.project.create({ data: { id: newId('proj'), workspaceId, productId, name: input.name } });
}

export async function listWorkspaces(db: Db) {
  return db.workspace.findMany({ orderBy: { createdAt: 'asc' }, include: { products: { include: { projects: true } } } });
}

/** Renames a product of the workspace (1 to 120 characters); NotFoundError for another workspace's. */
export async function renameProduct(db: Db, workspaceId: string, productId: string, name: string) {
  const { count } = await db.product.updateMany({ where: { id: productId, workspaceId }, data: { name } });
  if (!count) throw new NotFoundError(`Product ${productId} not found in workspace ${workspaceId}`);
}

export async function renameProject(db: Db, workspaceId: string, projectId: string, name: string) {
  const { count } = await db.project.updateMany({ where: { id: projectId, workspaceId }, data: { name } });
  if (!count) throw new NotFoundError(`Project ${projectId} not found in workspace ${workspaceId}`);
}

/** A workspace's products with their projects, by name. */
export async function listProducts(db: Db, workspaceId: string) {
  return db.product.findMany({
    where: { workspaceId },
    orderBy: [{ name: 'asc' }, { id: 'asc' }],
    include: { projects: { orderBy: [{ name: 'asc' }, { id: 'asc' }] } },
  });
}
