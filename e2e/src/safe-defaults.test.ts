import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ensureDatabase, freePort, withDatabase } from '@loupe/db';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledPostgres, type ControlledPostgres } from './cluster';
import { admin, startProcess } from './process';

// Issue 47: `npm start` against a database of one's own creates no demo workspace and no all-powerful
// key unless asked, says how to create the first owner, and warns of development defaults left on.
describe('npm start on a database of your own (DATABASE_URL)', () => {
  let server: ControlledPostgres;
  let dataDir: string;
  beforeAll(async () => {
    server = await controlledPostgres();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-safe-defaults-'));
  });
  afterAll(async () => {
    await server?.destroy();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function emptyDatabase(name: string): Promise<string> {
    const admin = new URL(server.url);
    admin.pathname = '/postgres';
    await ensureDatabase(admin.toString(), name);
    return withDatabase(admin.toString(), name);
  }

  async function workspaces(url: string): Promise<string[]> {
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      return (await client.query<{ name: string }>('SELECT name FROM workspaces ORDER BY name')).rows.map((r) => r.name);
    } finally {
      await client.end();
    }
  }

  it('creates no demo workspace, prints how to create the first owner, and the command it prints works', async () => {
    const url = await emptyDatabase('own');
    const service = await startProcess({ DATABASE_URL: url, DATA_DIR: path.join(dataDir, 'own'), PORT: String(await freePort()) });
    try {
      const out = service.output();
      expect(out).toContain('No workspace yet.');
      expect(out).toContain('npm run admin -- workspace create --name "Your company" --owner you@example.com');
      expect(out).not.toMatch(/API key:|Demo workspace created/);
      expect(await workspaces(url)).toEqual([]);
      // Loopback only: no production warning.
      expect(out).not.toMatch(/METRICS_TOKEN is not set/);
    } finally {
      await service.stop();
    }
    // The printed command, run as printed (with a name of our own).
    await admin(url, 'workspace', 'create', '--name', 'Acme', '--owner', 'owner@acme.test');
    expect(await workspaces(url)).toEqual(['Acme']);
    // A second start finds the workspace: no help printed again.
    const again = await startProcess({ DATABASE_URL: url, DATA_DIR: path.join(dataDir, 'own'), PORT: String(await freePort()) });
    try {
      expect(again.output()).not.toContain('No workspace yet.');
    } finally {
      await again.stop();
    }
  });

  it('creates the demo workspace as before with LOUPE_DEMO=1', async () => {
    const url = await emptyDatabase('asked');
    const service = await startProcess({ DATABASE_URL: url, LOUPE_DEMO: '1', DATA_DIR: path.join(dataDir, 'asked'), PORT: String(await freePort()) });
    try {
      expect(service.output()).toMatch(/Demo workspace created[\s\S]*API key:\s+loupe_sk_/);
      expect(await workspaces(url)).toEqual(['Demo workspace']);
    } finally {
      await service.stop();
    }
  });

  it('warns, one line per setting, of each development default left on when it listens beyond loopback', async () => {
    const url = await emptyDatabase('exposed');
    const service = await startProcess({
      DATABASE_URL: url, DATA_DIR: path.join(dataDir, 'exposed'), PORT: String(await freePort()), HOST: '0.0.0.0', FETCH_ALLOW_LOOPBACK: 'true', LOG_LEVEL: 'warn',
    });
    try {
      const warned = service.output().split('\n').filter((l) => l.startsWith('{') && l.includes('"setting"')).map((l) => JSON.parse(l) as { setting: string; level: number; msg: string });
      expect(warned.map((w) => w.setting)).toEqual(['SMTP_URL', 'METRICS_TOKEN', 'FETCH_ALLOW_LOOPBACK', 'CONNECTIONS_KEY']);
      expect(warned.every((w) => w.level === 40)).toBe(true);
      expect(warned.find((w) => w.setting === 'SMTP_URL')!.msg).toMatch(/sign-in codes are written to the log/);
    } finally {
      await service.stop();
    }
  });

  it('on SIGTERM turns readiness off first, keeps answering while a load balancer notices, then stops cleanly', async () => {
    const url = await emptyDatabase('drained');
    const service = await startProcess({ DATABASE_URL: url, DATA_DIR: path.join(dataDir, 'drained'), PORT: String(await freePort()), SHUTDOWN_DRAIN_MS: '3000' });
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    const stopped = service.stop();
    let draining: Response | undefined;
    for (let i = 0; i < 40 && !draining; i++) {
      const r = await fetch(`${service.url}/readyz`);
      if (r.status === 503) draining = r;
      else await new Promise((res) => setTimeout(res, 25));
    }
    expect(draining).toBeDefined();
    expect(await draining!.json()).toMatchObject({ status: 'draining' });
    // Still serving meanwhile: requests a balancer sent before it noticed are answered.
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    expect(await stopped).toBe(0);
    await expect(fetch(`${service.url}/healthz`)).rejects.toThrow();
  });
});
