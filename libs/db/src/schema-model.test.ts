import { readFile, readdir } from 'node:fs/promises';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { migrate } from './migrate';
import { migrationsDir, prismaSchemaPath } from './paths';
import { schemaFromDatabase, schemaFromPrisma } from './schema-model';
import { createTestDatabase, type TestDatabase } from './testing';

describe('the migrated database matches prisma/schema.prisma', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  it('has the same tables, columns, types, nullability and indexes', async () => {
    const expected = await schemaFromPrisma(prismaSchemaPath);
    const actual = await schemaFromDatabase(t.pool);
    expect(actual).toEqual(expected);
  });

  it('fails when a migration drops a column the model has', async () => {
    // Apply the real migrations, minus one column, to an empty database and compare again.
    const sql = await readFile(path.join(migrationsDir, '20261121000000_init', 'migration.sql'), 'utf8');
    const withoutColumn = sql.replace(/\s*"display_prefix" TEXT NOT NULL,/, '');
    expect(withoutColumn).not.toBe(sql);
    const scratch = await createTestDatabase();
    try {
      await scratch.pool.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
      await scratch.pool.query(withoutColumn);
      const expected = await schemaFromPrisma(prismaSchemaPath);
      const actual = await schemaFromDatabase(scratch.pool);
      expect(actual).not.toEqual(expected);
      expect(Object.keys(actual.api_keys!.columns)).not.toContain('display_prefix');
    } finally {
      await scratch.close();
    }
  });

  it('is idempotent and safe when instances migrate at the same time', async () => {
    const scratch = await createTestDatabase();
    try {
      await scratch.pool.query('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
      const pools = [0, 1, 2].map(() => new pg.Pool({ connectionString: scratch.url, max: 1 }));
      const all = (await readdir(migrationsDir, { withFileTypes: true })).filter((e) => e.isDirectory()).map((e) => e.name).sort();
      const results = await Promise.all(pools.map((p) => migrate(p, migrationsDir)));
      expect(results.flat().sort()).toEqual(all);
      expect(await migrate(pools[0]!, migrationsDir)).toEqual([]);
      const { rows } = await scratch.pool.query('SELECT migration_name FROM "_prisma_migrations"');
      expect(rows).toHaveLength(all.length);
      await Promise.all(pools.map((p) => p.end()));
    } finally {
      await scratch.close();
    }
  });
});
