import { execFileSync } from 'node:child_process';
import path from 'node:path';
import { ESLint } from 'eslint';
import { beforeAll, describe, expect, it } from 'vitest';

const root = path.resolve(import.meta.dirname, '../..');

/** Lints `code` as if it were the file at `file` (relative to the repository root). */
async function lintAs(file: string, code: string) {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(code, { filePath: path.join(root, file) });
  return result!.messages.filter((m) => m.ruleId === '@nx/enforce-module-boundaries').map((m) => m.message);
}

describe('module boundaries (the lint rule)', () => {
  beforeAll(() => {
    // The rule reads Nx's project graph; make sure it is computed.
    execFileSync(path.join(root, 'node_modules/.bin/nx'), ['show', 'projects'], { cwd: root, env: { ...process.env, NX_DAEMON: 'false' }, stdio: 'ignore' });
  }, 120_000);

  it('refuses an app importing another app', async () => {
    const errors = await lintAs('apps/ingest-api/src/probe.ts', "import { createMcpApp } from '@loupe/mcp-server';\nexport const x = createMcpApp;\n");
    expect(errors.join('\n')).toMatch(/type:app.*type:lib|tags/);
  });

  it('refuses a lib importing an app', async () => {
    const errors = await lintAs('libs/records/src/probe.ts', "import { createIngestApp } from '@loupe/ingest-api';\nexport const x = createIngestApp;\n");
    expect(errors.length).toBeGreaterThan(0);
  });

  it('allows an app importing a lib', async () => {
    expect(await lintAs('apps/ingest-api/src/probe.ts', "import { LIMITS } from '@loupe/records';\nexport const x = LIMITS;\n")).toEqual([]);
  });
});
