import path from 'node:path';
import type pg from 'pg';
import { ensureDatabase, withDatabase } from './database-url';
import { startEmbeddedPostgres, type RunningPostgres } from './embedded';
import { migrate } from './migrate';
import { migrationsDir } from './paths';
import { createPool } from './pool';
import { createPrismaClient, type Db } from './prisma';

export interface DatabaseSettings {
  databaseUrl: string | undefined;
  dataDir: string;
  /** Unset: the port the cluster used last, or a free one (see startEmbeddedPostgres). */
  embeddedPgPort: number | undefined;
  poolSize: number;
  /** See EmbeddedPostgresOptions.whenRunning. */
  whenRunning?: 'adopt' | 'share';
  log?: (line: string) => void;
}

export interface Database {
  url: string;
  pool: pg.Pool;
  db: Db;
  /** Present when this process started the embedded server. */
  embedded: RunningPostgres | undefined;
  migrationsApplied: string[];
  close(): Promise<void>;
}

export const EMBEDDED_DATABASE = 'loupe';

/**
 * The database of `settings.databaseUrl`, or an embedded PostgreSQL under
 * `dataDir/postgres` when none is given; migrated before it is returned.
 */
export async function openDatabase(settings: DatabaseSettings): Promise<Database> {
  let embedded: RunningPostgres | undefined;
  let url = settings.databaseUrl;
  if (!url) {
    embedded = await startEmbeddedPostgres({
      dataDir: path.join(settings.dataDir, 'postgres'),
      port: settings.embeddedPgPort,
      whenRunning: settings.whenRunning,
      log: settings.log,
    });
    await ensureDatabase(embedded.adminUrl, EMBEDDED_DATABASE);
    url = withDatabase(embedded.adminUrl, EMBEDDED_DATABASE);
  }
  const pool = createPool(url, settings.poolSize);
  try {
    const applied = await migrate(pool, migrationsDir);
    const db = createPrismaClient(pool);
    return {
      url,
      pool,
      db,
      embedded,
      migrationsApplied: applied,
      async close() {
        await db.$disconnect().catch(() => {});
        await pool.end().catch(() => {});
        await embedded?.stop();
      },
    };
  } catch (error) {
    await pool.end().catch(() => {});
    await embedded?.stop();
    throw error;
  }
}
