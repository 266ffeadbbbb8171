// Runs after `npm install`: generates the Prisma client offline.
// Prisma's CLI insists on a native schema engine that cannot be downloaded here;
// `generate` itself runs on WebAssembly, so any executable satisfies the check.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const prisma = path.join(root, 'node_modules/.bin/prisma');
if (!existsSync(prisma)) {
  console.error('postinstall: prisma CLI not installed; skipping client generation');
  process.exit(0);
}
const result = spawnSync(prisma, ['generate'], {
  cwd: root,
  stdio: 'inherit',
  env: {
    ...process.env,
    PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? '/bin/true',
    PRISMA_HIDE_UPDATE_MESSAGE: '1',
    CHECKPOINT_DISABLE: '1',
  },
});
process.exit(result.status ?? 1);
