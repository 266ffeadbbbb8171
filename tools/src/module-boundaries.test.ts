import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/** Lints `code` as if it were the file at `file` (relative to the repository root): the messages of `rule`. */
async function lintAs(file: string, code: string, rule = '@nx/enforce-module-boundaries') {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId === rule).map((m) => m.message);
}

const importing = (pkg: string, name: string) => `import { ${name} } from '${pkg}';\nexport const x = ${name};\n`;

describe('module boundaries (the lint rule)', () => {
  beforeAll(() => {
    // The rule reads Nx's project graph; make sure it is computed.
    execFileSync(path.join(root, 'node_modules/.bin/nx'), ['show', 'projects'], { cwd: root, env: { ...process.env, NX_DAEMON: 'false' }, stdio: 'ignore' });
  }, 120_000);

  it('refuses an app importing another app', async () => {
    const errors = await lintAs('apps/ingest-api/src/probe.ts', "import { createMcpApp } from '@loupe/mcp-server';\nexport const x = createMcpApp;\n");
    expect(errors.join('\n')).toMatch(/type:app.*type:lib|tags/);
  });

  it.each([
    ['apps/web/src/probe.ts', '@loupe/auth-server', 'createAuthApp'],
    ['apps/auth-server/src/probe.ts', '@loupe/web', 'createWebApp'],
    ['apps/web/src/probe.ts', '@loupe/mcp-server', 'createMcpApp'],
    ['apps/mcp-server/src/probe.ts', '@loupe/web', 'createWebApp'],
  ])('refuses %s importing %s: the console and the authorization server share libs, never each other', async (file, pkg, name) => {
    expect((await lintAs(file, importing(pkg, name))).join('\n')).toMatch(/type:app.*type:lib/);
  });

  it('refuses a lib importing an app', async () => {
    const errors = await lintAs('libs/records/src/probe.ts', "import { createIngestApp } from '@loupe/ingest-api';\nexport const x = createIngestApp;\n");
    expect(errors.length).toBeGreaterThan(0);
    expect(await lintAs('libs/web-pages/src/probe.ts', importing('@loupe/web', 'createWebApp'))).not.toEqual([]);
  });

  it('allows an app importing a lib', async () => {
    expect(await lintAs('apps/ingest-api/src/probe.ts', "import { LIMITS } from '@loupe/records';\nexport const x = LIMITS;\n")).toEqual([]);
    expect(await lintAs('apps/web/src/probe.ts', importing('@loupe/web-pages', 'createPageRenderer'))).toEqual([]);
  });

  it('keeps the web app off oidc-provider: not directly, not through the root of @loupe/oauth', async () => {
    expect(await lintAs('apps/web/src/probe.ts', importing('oidc-provider', 'Provider'), 'no-restricted-imports')).toHaveLength(1);
    expect(await lintAs('apps/web/src/probe.ts', importing('@loupe/oauth', 'revokeGrant'), 'no-restricted-imports')).toHaveLength(1);
    expect(await lintAs('apps/web/src/probe.ts', importing('@loupe/oauth/grants', 'revokeGrant'), 'no-restricted-imports')).toEqual([]);
  });
});

describe('npm run lint on a fresh clone (no project graph cached yet)', () => {
  it('reports a cross-app import: the rule runs, it is not skipped', async () => {
    // An empty workspace-data directory is what a fresh clone or CI has: no cached graph.
    const fresh = await mkdtemp(path.join(os.tmpdir(), 'loupe-nx-fresh-'));
    try {
      const lint = spawnSync(process.execPath, [path.join(root, 'tools/scripts/lint.mjs'), '--stdin', '--stdin-filename', 'apps/web/src/probe.ts'], {
        cwd: root,
        input: importing('@loupe/auth-server', 'createAuthApp'),
        encoding: 'utf8',
        env: { ...process.env, NX_WORKSPACE_DATA_DIRECTORY: fresh, NX_DAEMON: 'false' },
      });
      const output = `${lint.stdout}${lint.stderr}`;
      expect(output).not.toContain('No cached ProjectGraph');
      expect(output).toMatch(/type:app.*type:lib.*@nx\/enforce-module-boundaries/);
      expect(lint.status).toBe(1);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
  }, 180_000);
});
