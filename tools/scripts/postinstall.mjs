// Runs after `npm install`: builds the word-vector model of libs/semantics and generates the Prisma client offline.
// Prisma's CLI insists on a native schema engine that cannot be downloaded here;
// `generate` itself runs on WebAssembly, so any executable satisfies the check.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import path from 'node:path';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
// The 307 MB JSON of word vectors becomes a 22 MB binary once, here, never at run time (its parse needs a large heap).
const model = spawnSync(process.execPath, ['--max-old-space-size=6144', path.join(root, 'libs/semantics/scripts/build-model.mjs')], { cwd: root, stdio: 'inherit' });
if (model.status !== 0) {
  console.error('postinstall: could not build the word-vector model of libs/semantics');
  process.exit(model.status ?? 1);
}

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
