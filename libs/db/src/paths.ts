import path from 'node:path';
import { fileURLToPath } from 'node:url';

/** The repository root, found from this file's place in libs/db/src. */
export const repoRoot = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const migrationsDir = path.join(repoRoot, 'prisma', 'migrations');
export const prismaSchemaPath = path.join(repoRoot, 'prisma', 'schema.prisma');
