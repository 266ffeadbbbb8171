// The static checks of `npm test`, typecheck and lint, at the same time: each is one single-threaded
// process, so on a machine of two cores or more they take the time of the slower instead of the sum.
// Each one's output is printed whole when it ends, so the two never interleave.
import { spawn } from 'node:child_process';
import path from 'node:path';

const root = path.resolve(import.meta.dirname, '../..');
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

function run(script) {
  return new Promise((resolve) => {
    const started = Date.now();
    const child = spawn(npm, ['run', script], { cwd: root, stdio: ['ignore', 'pipe', 'pipe'] });
    const output = [];
    child.stdout.on('data', (chunk) => output.push(chunk));
    child.stderr.on('data', (chunk) => output.push(chunk));
    child.on('close', (code, signal) => {
      process.stdout.write(Buffer.concat(output));
      const seconds = ((Date.now() - started) / 1000).toFixed(0);
      console.log(`${script}: ${code === 0 ? 'passed' : `failed (${signal ?? `exit ${code}`})`} in ${seconds} s`);
      resolve(code === 0);
    });
  });
}

const results = await Promise.all(['typecheck', 'lint'].map(run));
process.exit(results.every(Boolean) ? 0 : 1);
