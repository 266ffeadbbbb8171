import { spawn } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { node, root, runTool, startProcess, type Started } from './process';

// `npm run loupe -- upload FILE` against npm start: streamed, interrupted with Ctrl-C, resumed, nothing twice.
describe('the bulk uploader', () => {
  let dataDir: string;
  let service: Started;
  let env: Record<string, string>;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-upload-'));
    delete process.env.DATABASE_URL;
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()), WORKER_ENABLED: 'false' };
    service = await startProcess(env);
  });
  afterAll(async () => {
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('uploads an NDJSON file, resumes after an interrupt, and ends with every record exactly once', async () => {
    const out = service.output();
    const key = /API key:\s+(\S+)/.exec(out)![1]!;
    const productId = /Product id:\s+(\S+)/.exec(out)![1]!;
    const projectId = /Project id:\s+(\S+)/.exec(out)![1]!;
    const total = 20_000;
    const lines = Array.from({ length: total }, (_, i) => JSON.stringify({
      _type: 'message', _schema_version: '1.0.0', _event_at: '2026-02-01T10:00:00Z', _vendor_ids: { slack: `m-${i}` },
      _product_id: productId, _project_ids: [projectId], _nature: 'evidence', data: { text: `Message ${i}: exports are slow` },
    }));
    lines.splice(7_000, 0, '{ not json');
    const file = path.join(dataDir, 'messages.ndjson');
    await writeFile(file, `${lines.join('\n')}\n`);
    const cli = { ...env, LOUPE_URL: service.url, LOUPE_API_KEY: key };

    // First run, interrupted once a few requests were answered.
    const child = spawn(...node('tools/src/loupe.ts', ['upload', file]), { cwd: root, env: { ...process.env, ...cli }, stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
    for (let i = 0; i < 600; i++) {
      const state = await readFile(`${file}.loupe-upload.json`, 'utf8').then((t) => JSON.parse(t) as { done: number }, () => undefined);
      if (state && state.done >= 3000) break;
      await new Promise((r) => setTimeout(r, 50));
    }
    child.kill('SIGINT');
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(code).toBe(130);
    expect(stderr).toMatch(/\[#*\.*\] \d+% [\d,]+ sent · [\d,]+ accepted/);
    const interrupted = JSON.parse(await readFile(`${file}.loupe-upload.json`, 'utf8')) as { done: number };
    expect(interrupted.done).toBeLessThan(total);

    const resumed = await runTool('tools/src/loupe.ts', ['upload', file], cli);
    expect(resumed.code, resumed.stderr).toBe(0);
    expect(resumed.stdout).toContain(`Done: ${(total + 1).toLocaleString('en-US')} records`);
    expect(resumed.stdout).not.toContain(key);
    const rejected = (await readFile(`${file}.rejected.ndjson`, 'utf8')).trim().split('\n').map((l) => JSON.parse(l));
    expect(rejected).toEqual([expect.objectContaining({ index: 7_000 })]);

    const password = (await readFile(path.join(dataDir, 'postgres.password'), 'utf8')).trim();
    const db = new pg.Client({ connectionString: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${env.EMBEDDED_PG_PORT}/loupe` });
    await db.connect();
    const { rows } = await db.query(`SELECT count(*)::int AS n, count(DISTINCT vendor_ids->>'slack')::int AS distinct FROM records WHERE vendor_ids ? 'slack'`);
    await db.end();
    expect(rows[0]).toEqual({ n: total, distinct: total });
  }, 240_000);
});
