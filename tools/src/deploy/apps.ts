import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import type { HttpApp } from './routes';

const root = path.resolve(import.meta.dirname, '../../..');

export interface RunningApp {
  app: HttpApp | 'worker';
  child: ChildProcess;
  /** Stops it with SIGTERM; resolves with its exit code. */
  stop(): Promise<number | null>;
}

/**
 * Starts one app from its own main.ts (what `npm run start:<app>` runs) as a process of this Node, and,
 * for an HTTP app, waits until its `/readyz` answers 200 on `env.PORT`. Its output goes to `onOutput`.
 */
export async function startApp(app: HttpApp | 'worker', env: Record<string, string>, onOutput: (text: string) => void, timeoutMs = 60_000): Promise<RunningApp> {
  const child = spawn(process.execPath, ['--import', 'tsx', path.join(root, `apps/${app}/src/main.ts`)], {
    cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'],
  });
  child.stdout!.on('data', (d: Buffer) => onOutput(d.toString()));
  child.stderr!.on('data', (d: Buffer) => onOutput(d.toString()));
  const running: RunningApp = {
    app,
    child,
    stop: () => new Promise((resolve) => {
      if (child.exitCode !== null || child.signalCode !== null) return resolve(child.exitCode);
      child.once('exit', (code) => resolve(code));
      child.kill('SIGTERM');
    }),
  };
  if (app === 'worker') return running;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`${app} exited with ${child.exitCode}`);
    if (await fetch(`http://127.0.0.1:${env.PORT}/readyz`).then((r) => r.status === 200, () => false)) return running;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`${app} was not ready within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
}
