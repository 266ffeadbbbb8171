import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import type { TestProject } from 'vitest/node';
import { PgBoss } from 'pg-boss';
import { ensureDatabase, withDatabase } from '../database-url';
import { startEmbeddedPostgres, type RunningPostgres } from '../embedded';
import { freePort } from '../free-port';
import { migrate } from '../migrate';
import { migrationsDir } from '../paths';

import './provided';

/**
 * Vitest global setup: one PostgreSQL server per test run (the one of
 * DATABASE_URL, else a throw-away embedded cluster) and a template database
 * migrated once, with pg-boss's schema installed. Each test file then clones it.
 */
export default async function setup(project: TestProject) {
  let embedded: RunningPostgres | undefined;
  let dir: string | undefined;
  let serverUrl = process.env.DATABASE_URL;
  if (!serverUrl) {
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-test-pg-'));
    await chmod(dir, 0o755); // the cluster may run as the postgres user
    embedded = await startEmbeddedPostgres({ dataDir: path.join(dir, 'cluster'), port: await freePort(), ephemeral: true });
    serverUrl = embedded.adminUrl;
  }
  const template = `loupe_tpl_${process.pid}_${Date.now().toString(36)}`;
  await ensureDatabase(serverUrl, template);
  const templateUrl = withDatabase(serverUrl, template);
  const pool = new pg.Pool({ connectionString: templateUrl, max: 2 });
  await migrate(pool, migrationsDir);
  await pool.end();
  const boss = new PgBoss({ connectionString: templateUrl, schedule: false, supervise: false });
  boss.on('error', () => {});
  await boss.start();
  await boss.stop({ graceful: false, close: true });
  project.provide('loupeTestServerUrl', serverUrl);
  project.provide('loupeTemplateDatabase', template);

  return async () => {
    const admin = new pg.Client({ connectionString: serverUrl });
    await admin.connect();
    const { rows } = await admin.query<{ datname: string }>(
      "SELECT datname FROM pg_database WHERE datname = $1 OR datname LIKE $2",
      [template, `${template}_f%`],
    );
    for (const { datname } of rows) {
      await admin.query(`DROP DATABASE IF EXISTS ${admin.escapeIdentifier(datname)} WITH (FORCE)`).catch(() => {});
    }
    await admin.end();
    await embedded?.stop();
    if (dir) await rm(dir, { recursive: true, force: true });
  };
}
