// ESLint over the repository with Nx's project graph computed first. @nx/enforce-module-boundaries only
// reads a cached graph; without one (a fresh clone, CI, a cleared .nx) it skips every file and says so
// only in a warning, so the boundary rules would check nothing. A skip is therefore a failure here.
import { spawnSync } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const bin = (name) => path.join(root, 'node_modules', '.bin', name);
const SKIPPED = 'No cached ProjectGraph is available';

const graph = spawnSync(bin('nx'), ['show', 'projects'], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
if (graph.status !== 0) {
  console.error('lint: Nx could not compute the project graph, so the module-boundary rule cannot run');
  process.exit(graph.status ?? 1);
}

const eslint = spawnSync(bin('eslint'), process.argv.slice(2), { cwd: root, stdio: ['inherit', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 256 * 1024 * 1024 });
process.stdout.write(eslint.stdout ?? '');
if (eslint.stdout?.includes(SKIPPED)) {
  console.error(`lint: ESLint printed "${SKIPPED}": the module-boundary rule was skipped`);
  process.exit(1);
}
process.exit(eslint.status ?? 1);
