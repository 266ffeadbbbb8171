import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { checkMigrations, describeFinding, removalsOf } from './migration-check';

const root = path.resolve(import.meta.dirname, '../..');

describe('what a migration takes away', () => {
  it('finds dropped and renamed columns and tables, and nothing in constraints, defaults or comments', () => {
    const sql = `
      -- ALTER TABLE "ignored" DROP COLUMN "in_a_comment";
      ALTER TABLE "sources" DROP COLUMN "search_title", DROP COLUMN IF EXISTS legacy, DROP CONSTRAINT "sources_fk", ALTER COLUMN "x" DROP DEFAULT, ALTER COLUMN "y" DROP NOT NULL;
      ALTER TABLE public.widgets RENAME COLUMN colour TO color;
      ALTER TABLE "old_name" RENAME TO "new_name";
      DROP TABLE IF EXISTS "web_sessions", "other" CASCADE;
      CREATE INDEX "i" ON "sources" ("id");`;
    expect(removalsOf('m1', sql).map((r) => `${r.how} ${r.kind} ${r.table}.${r.name}`)).toEqual([
      'drop column sources.search_title', 'drop column sources.legacy', 'rename column widgets.colour',
      'rename table old_name.old_name', 'drop table web_sessions.web_sessions', 'drop table other.other',
    ]);
  });
});

describe('the migration check', () => {
  let repo: string;
  const run = (...args: string[]) => execFileSync('git', args, { cwd: repo, encoding: 'utf8' });
  const write = async (file: string, text: string) => {
    await mkdir(path.dirname(path.join(repo, file)), { recursive: true });
    await writeFile(path.join(repo, file), text);
  };
  const commit = (message: string) => {
    run('add', '-A');
    run('-c', 'user.name=t', '-c', 'user.email=t@t', 'commit', '-q', '-m', message);
  };
  beforeAll(async () => {
    repo = await mkdtemp(path.join(os.tmpdir(), 'loupe-migration-check-'));
    run('init', '-q');
    await write('prisma/schema.prisma', 'model Widget {\n  id String @id\n  colour String @map("colour")\n  @@map("widgets")\n}\n');
    await write('libs/w/src/read.ts', "export const READ = 'SELECT id, size, legacy FROM widgets';\n");
    await write('prisma/migrations/20261128000001_widgets/migration.sql', 'CREATE TABLE widgets (id text, colour text, size int, legacy text);\n');
    commit('widgets');
  });
  afterAll(() => rm(repo, { recursive: true, force: true }));

  it('flags a column dropped in the same release that stops reading it, by raw SQL or by the Prisma model', async () => {
    await write('prisma/schema.prisma', 'model Widget {\n  id String @id\n  @@map("widgets")\n}\n');
    await write('libs/w/src/read.ts', "export const READ = 'SELECT id, legacy FROM widgets';\n");
    await write('prisma/migrations/20261128000002_one_step/migration.sql', 'ALTER TABLE "widgets" DROP COLUMN "size", DROP COLUMN "colour";\n');
    // Not committed yet: checked against HEAD, the release running now.
    const { findings } = checkMigrations(repo);
    expect(findings.map((f) => `${f.table}.${f.name} ${f.readBy.join(',')}`)).toEqual(['widgets.size libs/w/src/read.ts', 'widgets.colour prisma/schema.prisma']);
    expect(describeFinding(findings[0]!)).toMatch(/^20261128000002_one_step: drops column widgets\.size, which the previous release \([0-9a-f]{12}\) still reads in libs\/w\/src\/read\.ts\. Stop reading it/);
    commit('one step');
    // Committed: checked against the commit before it, the same answer.
    expect(checkMigrations(repo).findings).toHaveLength(2);
  });

  it('passes a column dropped a release after the code stopped reading it (expand, then contract)', async () => {
    await write('libs/w/src/read.ts', "export const READ = 'SELECT id FROM widgets';\n");
    commit('stop reading legacy');
    await write('prisma/migrations/20261128000003_contract/migration.sql', 'ALTER TABLE widgets DROP COLUMN legacy;\n');
    commit('drop legacy');
    const { checked, findings } = checkMigrations(repo);
    expect(checked.map((r) => r.name)).toContain('legacy');
    expect(findings.map((f) => f.migration)).not.toContain('20261128000003_contract');
  });

  it('lets an author acknowledge a removal checked by hand, with the reason in the migration', async () => {
    await write('libs/w/src/other.ts', "export const OTHER = 'SELECT id FROM widgets WHERE id = $1'; // id of gadgets too\n");
    commit('more readers');
    await write('prisma/migrations/20261128000004_gadgets/migration.sql', '-- contract-ok: gadgets.id the gadgets table was never read\nALTER TABLE gadgets DROP COLUMN id;\n');
    expect(checkMigrations(repo).findings.map((f) => f.migration)).not.toContain('20261128000004_gadgets');
  });

  it('passes this repository\'s migrations, and would have caught the one-step drops made before the rule', () => {
    expect(checkMigrations(root).findings.map(describeFinding)).toEqual([]);
    const shallow = execFileSync('git', ['rev-parse', '--is-shallow-repository'], { cwd: root, encoding: 'utf8' }).trim() === 'true';
    if (shallow) return; // a shallow clone has no earlier release to compare with
    const before = checkMigrations(root, { from: '20261124230000' }).findings.map((f) => `${f.migration} ${f.table}.${f.name}`);
    expect(before).toContain('20261124230000_search_vectors_on_read source_segments.search_text');
  });
});
