import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';

export const root = path.resolve(import.meta.dirname, '../..');
// Node with tsx's loader, not the tsx CLI: the CLI runs the script in a child process, so a
// SIGKILL sent to it would leave the real service running.
export const node = (script: string, args: string[] = []) => [process.execPath, ['--import', 'tsx', path.join(root, script), ...args]] as const;

export interface Started {
  child: ChildProcess;
  output: () => string;
  url: string;
  /** SIGTERM, then the exit code. */
  stop(): Promise<number | null>;
}

/** Runs `npm start`'s entry point (tools/src/start.ts) as its own process, like a user would. */
export async function startProcess(env: Record<string, string>, timeoutMs = 90_000): Promise<Started> {
  const child = spawn(...node('tools/src/start.ts'), {
    cwd: root,
    env: { ...process.env, LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
  const url = `http://localhost:${env.PORT}`;
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (child.exitCode !== null) throw new Error(`start exited with ${child.exitCode}:\n${out}`);
    const ready = await fetch(`${url}/readyz`).then((r) => r.status === 200, () => false);
    if (ready && out.includes('Loupe is ready')) break;
    if (Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`not ready after ${timeoutMs} ms:\n${out}`);
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  return {
    child,
    output: () => out,
    url,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve(child.exitCode);
        child.once('exit', (code) => resolve(code));
        child.kill('SIGTERM');
      }),
  };
}

export async function runTool(script: string, args: string[], env: Record<string, string>) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    const child = spawn(...node(script, args), { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('exit', (code) => resolve({ code, stdout, stderr }));
  });
}
