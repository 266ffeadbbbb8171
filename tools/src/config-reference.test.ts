import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { documentedVariables, envSchema, otherVariables } from '@loupe/config';
import { configurationReference, envExample, envExamplePath, referencePath, repoRoot } from './config-reference';

/**
 * Variables the code reads that are not configuration of the service: benchmarks, tests and CI. Everything else the
 * code reads from the environment must be in the configuration reference.
 */
const NOT_CONFIGURATION: Array<{ name: string | RegExp; why: string }> = [
  { name: /^BENCH_/, why: 'benchmark settings (tools/bench), documented in docs/benchmarks' },
  { name: /^SOAK_/, why: 'the soak benchmark (tools/bench/soak.ts)' },
  { name: /^HOSTILE_/, why: 'thresholds of the hostile-input test suites' },
  { name: 'FUZZ_RUNS', why: 'property-test iterations' },
  { name: 'TEST_LOG_LEVEL', why: 'log level of the test harnesses' },
  { name: 'CHROMIUM_PATH', why: 'the Chromium that the browser tests drive (libs/browser-testing)' },
  { name: 'CI', why: 'set by CI runners; changes test behaviour only' },
];
const excluded = (name: string) => NOT_CONFIGURATION.some((e) => (typeof e.name === 'string' ? e.name === name : e.name.test(name)));

/** The non-test TypeScript under apps/*\/src, libs/*\/src and tools/src. */
async function sourceFiles(): Promise<string[]> {
  const roots = [
    ...(await readdir(path.join(repoRoot, 'apps'))).map((a) => path.join('apps', a, 'src')),
    ...(await readdir(path.join(repoRoot, 'libs'))).map((l) => path.join('libs', l, 'src')),
    'tools/src',
  ];
  const files: string[] = [];
  for (const root of roots) {
    const entries = await readdir(path.join(repoRoot, root), { recursive: true, withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      const file = path.relative(repoRoot, path.join(entry.parentPath, entry.name));
      if (!entry.isFile() || !/\.(ts|mts|cts|mjs|js)$/.test(entry.name) || /\.(test|spec)\.[mc]?[tj]s$/.test(entry.name)) continue;
      if (/(^|\/)(node_modules|generated|test|testing|__tests__)\//.test(file)) continue;
      files.push(file);
    }
  }
  return files.sort();
}

const NAME = '[A-Z][A-Z0-9_]*';

/** Every variable name read in `source`, with the form it was read in (for the failure message). */
function variablesRead(source: string, file: string): Array<{ name: string; how: string }> {
  const found: Array<{ name: string; how: string }> = [];
  const add = (re: RegExp, how: string, name = (m: RegExpMatchArray) => m[1]!) => {
    for (const m of source.matchAll(re)) found.push({ name: name(m), how: `${file}: ${how}` });
  };
  // process.env.X, process.env['X'], and env.X / env['X'] on an env object passed in (loadConfig's `env`).
  add(new RegExp(`\\b(?:process\\.)?env\\.(${NAME})\\b`, 'g'), 'env.X');
  add(new RegExp(`\\b(?:process\\.)?env\\[\\s*['"\`](${NAME})['"\`]\\s*\\]`, 'g'), "env['X']");
  // const { X, Y: y } = process.env
  for (const m of source.matchAll(/\{([^{}]*)\}\s*=\s*process\.env\b/g)) {
    for (const part of m[1]!.split(',')) {
      const key = part.trim().split(/[:=\s]/)[0];
      if (key && new RegExp(`^${NAME}$`).test(key)) found.push({ name: key, how: `${file}: destructured from process.env` });
    }
  }
  if (file === 'libs/config/src/index.ts') {
    // The parsed environment in loadConfig (`e.X`), the identity providers' `value('X')`, and their per-provider
    // variables: `required('ISSUER')` and `value(prefix + 'NAME')` read OIDC_<ID>_ISSUER and OIDC_<ID>_NAME.
    add(new RegExp(`\\be\\.(${NAME})\\b`, 'g'), 'parsed env e.X');
    add(new RegExp(`\\bvalue\\('(${NAME})'\\)`, 'g'), "value('X')");
    add(new RegExp(`\\brequired\\('(${NAME})'\\)`, 'g'), "required('X')", (m) => `OIDC_<ID>_${m[1]}`);
    add(new RegExp(`\\bprefix \\+ '(${NAME})'`, 'g'), "prefix + 'X'", (m) => `OIDC_<ID>_${m[1]}`);
  }
  return found;
}

async function variablesTheCodeReads() {
  const reads = [...Object.keys(envSchema.shape).map((name) => ({ name, how: 'libs/config/src/index.ts: a key of envSchema' }))];
  for (const file of await sourceFiles()) reads.push(...variablesRead(await readFile(path.join(repoRoot, file), 'utf8'), file));
  return reads.filter((r) => !excluded(r.name));
}

describe('the configuration reference', () => {
  it('is what `npm run docs:config` writes now (docs/self-hosting/configuration.md and .env.example)', async () => {
    const variables = documentedVariables();
    const stale = 'is out of date with libs/config/src/index.ts: run `npm run docs:config` and commit the result';
    expect(await readFile(path.join(repoRoot, referencePath), 'utf8'), `${referencePath} ${stale}`).toBe(configurationReference(variables));
    expect(await readFile(path.join(repoRoot, envExamplePath), 'utf8'), `${envExamplePath} ${stale}`).toBe(envExample(variables));
  });

  it('names every environment variable the code reads', async () => {
    const documented = new Set(documentedVariables().map((v) => v.name));
    const reads = await variablesTheCodeReads();
    // The scan itself works: it sees the schema's keys, reads outside the schema and the per-provider pattern.
    for (const name of ['PORT', 'OIDC_PROVIDERS', 'OIDC_<ID>_ISSUER', 'OIDC_<ID>_SCOPES', 'LOUPE_API_KEY']) expect(reads.map((r) => r.name)).toContain(name);
    const missing = reads.filter((r) => !documented.has(r.name)).map((r) => `  ${r.name} (${r.how})`);
    expect(
      [...new Set(missing)],
      'variables read by the code but missing from the configuration reference: describe them in envSchema (doc(…)) or otherVariables in ' +
        'libs/config/src/index.ts (or, for tests and benchmarks only, NOT_CONFIGURATION in this file), then run `npm run docs:config`',
    ).toEqual([]);
  });

  it('lists no variable the code does not read, except those Node.js reads itself', async () => {
    const read = new Set((await variablesTheCodeReads()).map((r) => r.name));
    expect(otherVariables.filter((v) => v.group !== 'node' && !read.has(v.name)).map((v) => v.name)).toEqual([]);
  });

  it('describes every variable: what it does, its default or when it is required, its values', () => {
    for (const v of documentedVariables()) {
      expect(v.description.length, v.name).toBeGreaterThan(10);
      expect(v.values, v.name).not.toBe('');
    }
  });

  it('leaves every variable commented out in .env.example: the embedded setup needs none', () => {
    const active = envExample().split('\n').filter((line) => line.trim() && !line.startsWith('#'));
    expect(active).toEqual([]);
  });
});
