import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../../..');

// Resolve hooks that name every module resolved under node_modules/oidc-provider, and who asked for it.
const detector = `
import { writeSync } from 'node:fs';
export async function resolve(specifier, context, next) {
  const found = await next(specifier, context);
  if (found.url.includes('/node_modules/oidc-provider/')) writeSync(2, 'oidc-provider loaded by ' + context.parentURL + '\\n');
  return found;
}`;
const register = `import { register } from 'node:module'; register(${JSON.stringify(`data:text/javascript,${encodeURIComponent(detector)}`)});`;

/** Loads an app's entry point in a fresh Node process: what it printed about oidc-provider. */
function load(entry: string): string {
  const child = spawnSync(process.execPath, [
    '--import', 'tsx', '--import', `data:text/javascript,${encodeURIComponent(register)}`,
    '--input-type=module', '-e', `await import(${JSON.stringify(path.join(root, entry))});`,
  ], { cwd: root, encoding: 'utf8', timeout: 60_000 });
  if (child.status !== 0) throw new Error(`loading ${entry} failed: ${child.stderr}`);
  return child.stderr;
}

describe('the web app runs no authorization server', () => {
  it('the console loads no oidc-provider, not even through a lib; the root of @loupe/oauth does (the check works)', () => {
    expect(load('apps/web/src/index.ts')).not.toContain('oidc-provider loaded');
    expect(load('libs/oauth/src/index.ts')).toContain('oidc-provider loaded');
  });
});
