import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { demoFrom } from './cluster';
import { bash, root, startProcess, type Started } from './process';

/**
 * The quickstart's shell commands, run as written against a started service, so the page stays true.
 * Each ```sh block of docs/quickstart.md carries a marker on the line before it:
 * `<!-- quickstart-test: run, expects TEXT -->` (run with bash; its output must hold TEXT),
 * `<!-- quickstart-test: env (…) -->` (the variables it exports are set from the service's output) or
 * `<!-- quickstart-test: skip (why) -->`. A block without one fails the test.
 */
interface Block {
  line: number;
  kind: 'run' | 'env' | 'skip';
  expects?: string;
  code: string;
}

function blocksOf(markdown: string): Block[] {
  const lines = markdown.split('\n');
  const blocks: Block[] = [];
  for (let i = 0; i < lines.length; i++) {
    if (lines[i] !== '```sh') continue;
    const end = lines.indexOf('```', i + 1);
    const marker = /^<!-- quickstart-test: (run|env|skip)(?:, expects (.+?))?(?: \(.*\))? -->$/.exec(lines[i - 1] ?? '');
    if (!marker) throw new Error(`docs/quickstart.md:${i + 1}: a sh block without a quickstart-test marker on the line before it`);
    blocks.push({ line: i + 1, kind: marker[1] as Block['kind'], expects: marker[2], code: lines.slice(i + 1, end).join('\n') });
    i = end;
  }
  return blocks;
}

describe('docs/quickstart.md', () => {
  let dataDir: string;
  let service: Started;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-quickstart-'));
    delete process.env.DATABASE_URL;
    service = await startProcess({ DATA_DIR: path.join(dataDir, 'data'), PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) });
  }, 180_000);
  afterAll(async () => {
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('runs every command of the quickstart as written, each answering what the page says', async () => {
    const blocks = blocksOf(await readFile(path.join(root, 'docs/quickstart.md'), 'utf8'));
    const demo = demoFrom(service.output());
    const values: Record<string, string> = { LOUPE_API_KEY: demo.key, PRODUCT: demo.productId, PROJECT: demo.projectId };
    const env: Record<string, string> = { HOME: path.join(dataDir, 'home'), npm_config_yes: 'true' };
    let batchId = '';
    expect(blocks.filter((b) => b.kind === 'run').length).toBeGreaterThanOrEqual(3);
    for (const block of blocks) {
      if (block.kind === 'skip') continue;
      if (block.kind === 'env') {
        for (const [, name] of block.code.matchAll(/^export (\w+)=/gm)) {
          expect(values[name!], `docs/quickstart.md:${block.line}: the test does not know ${name}`).toBeDefined();
          env[name!] = values[name!]!;
        }
        continue;
      }
      const code = block.code.replaceAll('http://localhost:8080', service.url).replaceAll('bat_…', batchId);
      // Each command may rely on what came before it having been processed (a search finds a record only once its batch is COMPLETE).
      for (let i = 0; batchId && i < 240; i++) {
        const res = await fetch(`${service.url}/api/v1/ingest/batches/${batchId}`, { headers: { 'x-api-key': demo.key } });
        if (((await res.json()) as { status: string }).status === 'COMPLETE') break;
        await new Promise((r) => setTimeout(r, 250));
      }
      const { code: exit, out } = await bash(code, { env });
      expect([`docs/quickstart.md:${block.line}`, exit], out).toEqual([`docs/quickstart.md:${block.line}`, 0]);
      if (block.expects) expect(out, `docs/quickstart.md:${block.line}`).toContain(block.expects);
      batchId ||= /"batchId":"(bat_[0-9a-z]+)"/.exec(out)?.[1] ?? '';
    }
    expect(batchId).toMatch(/^bat_/);
  });
});
