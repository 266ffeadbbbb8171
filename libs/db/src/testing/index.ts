import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { inject } from 'vitest';
import './provided';
import { withDatabase } from '../database-url';
import { createPool } from '../pool';
import { createPrismaClient, type Db } from '../prisma';

export interface TestDatabase {
  url: string;
  name: string;
  pool: pg.Pool;
  db: Db;
  close(): Promise<void>;
}

/**
 * A fresh, migrated database for one test file, cloned from the run's template
 * (see global-setup.ts), so files run in parallel without sharing rows.
 */
export async function createTestDatabase(): Promise<TestDatabase> {
  const serverUrl = inject('loupeTestServerUrl');
  const template = inject('loupeTemplateDatabase');
  if (!serverUrl || !template) {
    throw new Error('createTestDatabase needs the global setup: add @loupe/db/testing/global-setup to this project\'s vitest.config.ts');
  }
  const name = `${template}_f${randomBytes(5).toString('hex')}`;
  const admin = new pg.Client({ connectionString: serverUrl });
  await admin.connect();
  try {
    // CREATE DATABASE … TEMPLATE refuses while another session is copying the same template.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`CREATE DATABASE ${admin.escapeIdentifier(name)} TEMPLATE ${admin.escapeIdentifier(template)}`);
        break;
      } catch (error) {
        if ((error as { code?: string }).code !== '55006' || attempt > 100) throw error;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
      }
    }
  } finally {
    await admin.end();
  }
  const url = withDatabase(serverUrl, name);
  const pool = createPool(url, 10);
  const db = createPrismaClient(pool);
  return {
    url,
    name,
    pool,
    db,
    async close() {
      await db.$disconnect().catch(() => {});
      await pool.end().catch(() => {});
    },
  };
}

export { statementsOf } from './statements';
