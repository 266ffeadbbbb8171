import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
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
  return collect(spawn(...node(script, args), { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] }));
}

/** The admin CLI (tools/src/admin.ts) against the database of `databaseUrl`: its standard output, or an error. */
export async function admin(databaseUrl: string, ...args: string[]): Promise<string> {
  const r = await runTool('tools/src/admin.ts', args, { DATABASE_URL: databaseUrl, LOG_LEVEL: 'error' });
  if (r.code !== 0) throw new Error(`admin ${args.join(' ')}: ${r.stderr}`);
  return r.stdout;
}

/** The entry file of an installed package's command (its package.json `bin`), to run with this Node. */
export function packageBin(pkg: string, name: string): string {
  const manifest = createRequire(import.meta.url).resolve(`${pkg}/package.json`);
  const bin = (JSON.parse(readFileSync(manifest, 'utf8')) as { bin?: string | Record<string, string> }).bin;
  const file = typeof bin === 'string' ? bin : bin?.[name];
  if (!file) throw new Error(`${pkg} has no command ${name}`);
  return path.resolve(path.dirname(manifest), file);
}

/**
 * Runs a package's command (see packageBin) with this Node and no standard input, as CI would.
 * Killed after `timeoutMs`, so a client that hangs fails its test instead of the whole run.
 */
export async function runBin(file: string, args: string[], options: { env?: Record<string, string>; cwd?: string; timeoutMs?: number } = {}) {
  const child = spawn(process.execPath, [file, ...args], { cwd: options.cwd ?? root, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
  const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
  try {
    return await collect(child);
  } finally {
    clearTimeout(timer);
  }
}

function collect(child: ChildProcess) {
  return new Promise<{ code: number | null; stdout: string; stderr: string }>((resolve) => {
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (d: Buffer) => (stdout += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Polls `check` every 250 ms until it answers something truthy, which it returns; fails after `ms`. */
export async function until<T>(what: string, check: () => Promise<T | undefined | false>, ms = 60_000): Promise<T> {
  const deadline = Date.now() + ms;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 250));
  }
}

/** Runs shell code from the docs with `bash -euo pipefail`, as a reader would paste it: its exit code and output. */
export function bash(code: string, options: { cwd?: string; env?: Record<string, string>; timeoutMs?: number } = {}): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    const child = spawn('bash', ['-euo', 'pipefail', '-c', code], { cwd: options.cwd ?? root, env: { ...process.env, ...options.env }, stdio: ['ignore', 'pipe', 'pipe'] });
    const timer = setTimeout(() => child.kill('SIGKILL'), options.timeoutMs ?? 120_000);
    let out = '';
    child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
    child.stderr!.on('data', (d: Buffer) => (out += d.toString()));
    child.on('close', (exit) => {
      clearTimeout(timer);
      resolve({ code: exit, out });
    });
  });
}
