import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';

/**
 * Upgrades roll: while a new version migrates and its instances replace the old ones, the previous
 * release still runs against the migrated schema. So a migration may add, never take away what that
 * release reads: columns and tables are dropped or renamed only in a later release than the one that
 * stopped reading them (expand, then contract). This check finds each column or table a migration drops
 * or renames, and flags it when the code of the previous release still names it.
 *
 * The previous release of a migration is the commit before the one that added it (the working tree's
 * HEAD for a migration not committed yet). Migrations before CHECKED_FROM predate the rule.
 */
export const CHECKED_FROM = '20261128000000';

export interface Removal {
  migration: string;
  /** What goes: a table, or a table's column. */
  kind: 'table' | 'column';
  table: string;
  name: string;
  how: 'drop' | 'rename';
}

export interface Finding extends Removal {
  /** The commit whose code still names it, and the first places it does. */
  release: string;
  readBy: string[];
}

const IDENT = String.raw`"?([A-Za-z_][A-Za-z0-9_]*)"?`;

/** The tables and columns a migration's SQL drops or renames (ALTER TABLE … DROP/RENAME COLUMN, RENAME TO, DROP TABLE). */
export function removalsOf(migration: string, sql: string): Removal[] {
  const text = sql.replace(/--[^\n]*/g, '');
  const out: Removal[] = [];
  for (const statement of text.split(';')) {
    const alter = new RegExp(String.raw`^\s*ALTER\s+TABLE\s+(?:IF\s+EXISTS\s+)?(?:ONLY\s+)?(?:"?public"?\.)?${IDENT}([\s\S]*)$`, 'i').exec(statement);
    if (alter) {
      const table = alter[1]!;
      const actions = alter[2]!;
      for (const m of actions.matchAll(new RegExp(String.raw`DROP\s+(?:COLUMN\s+)?(?:IF\s+EXISTS\s+)?${IDENT}`, 'gi'))) {
        if (!/^(constraint|default|not)$/i.test(m[1]!)) out.push({ migration, kind: 'column', table, name: m[1]!, how: 'drop' });
      }
      for (const m of actions.matchAll(new RegExp(String.raw`RENAME\s+(?:COLUMN\s+)?${IDENT}\s+TO\s+${IDENT}`, 'gi'))) {
        if (!/^(constraint)$/i.test(m[1]!)) out.push({ migration, kind: 'column', table, name: m[1]!, how: 'rename' });
      }
      if (new RegExp(String.raw`^\s*RENAME\s+TO\s+${IDENT}\s*$`, 'i').test(actions)) out.push({ migration, kind: 'table', table, name: table, how: 'rename' });
      continue;
    }
    const drop = new RegExp(String.raw`^\s*DROP\s+TABLE\s+(?:IF\s+EXISTS\s+)?((?:(?:"?public"?\.)?"?[A-Za-z_][A-Za-z0-9_]*"?\s*,?\s*)+)`, 'i').exec(statement);
    if (drop) {
      for (const t of drop[1]!.split(',')) {
        const table = t.trim().replace(/^"?public"?\./i, '').replace(/"/g, '').split(/\s+/)[0]!;
        if (table && !/^(cascade|restrict)$/i.test(table)) out.push({ migration, kind: 'table', table, name: table, how: 'drop' });
      }
    }
  }
  return out;
}

const git = (root: string, args: string[]) => execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] }).trim();

/** The commit whose code ran before `file` existed: the parent of the commit that added it, or HEAD for a file not committed yet. */
function previousRelease(root: string, file: string): string | undefined {
  const added = git(root, ['log', '--diff-filter=A', '--format=%H', '-1', '--', file]);
  if (!added) return git(root, ['rev-parse', 'HEAD']);
  try {
    return git(root, ['rev-parse', `${added}^`]);
  } catch {
    return undefined; // the first commit: no earlier release
  }
}

/** The files of `release` holding every one of `words` as a word (TypeScript outside tests). */
function filesNaming(root: string, release: string, words: string[]): string[] {
  try {
    const patterns = words.flatMap((w) => ['--and', '-e', w]).slice(1);
    const out = git(root, ['grep', '-l', '-w', ...patterns, release, '--', 'apps/*/src/*.ts', 'libs/*/src/*.ts', 'tools/src/*.ts', ':!*.test.ts']);
    return out.split('\n').filter(Boolean).map((line) => line.slice(release.length + 1));
  } catch {
    return []; // git grep exits 1 when nothing matches
  }
}

/**
 * Where the code of `release` still reads what a removal takes away: a table named anywhere; a column
 * in a file that also names its table (raw SQL), or declared by the table's Prisma model (Prisma
 * selects every declared column, so the previous release would fail on the first read).
 */
function readers(root: string, release: string, removal: Removal): string[] {
  const model = prismaModel(root, release, removal.table);
  if (removal.kind === 'table') return [...(model ? ['prisma/schema.prisma'] : []), ...filesNaming(root, release, [removal.table])];
  const declared = model !== undefined && new RegExp(String.raw`^\s*${removal.name}\s|@map\("${removal.name}"\)`, 'm').test(model);
  return [...(declared ? ['prisma/schema.prisma'] : []), ...filesNaming(root, release, [removal.table, removal.name])];
}

/** The Prisma model of `release` stored in `table` (`@@map("table")`, or named so), as text. */
function prismaModel(root: string, release: string, table: string): string | undefined {
  let schema: string;
  try {
    schema = git(root, ['show', `${release}:prisma/schema.prisma`]);
  } catch {
    return undefined;
  }
  for (const block of schema.matchAll(/^model\s+(\w+)\s*\{([\s\S]*?)^\}/gm)) {
    const mapped = /@@map\("([^"]+)"\)/.exec(block[2]!)?.[1] ?? block[1]!;
    if (mapped === table) return block[2]!;
  }
  return undefined;
}

/** `-- contract-ok: table.column because …` in a migration: a removal its author checked by hand (the reason is printed). */
function acknowledged(sql: string): Map<string, string> {
  return new Map([...sql.matchAll(/--\s*contract-ok:\s*([A-Za-z0-9_.]+)\s+(.+)/g)].map((m) => [m[1]!, m[2]!.trim()]));
}

/** Every removal of a checked migration that the previous release still reads. */
export function checkMigrations(root: string, options: { from?: string } = {}): { checked: Removal[]; findings: Finding[] } {
  const dir = path.join(root, 'prisma/migrations');
  const from = options.from ?? CHECKED_FROM;
  const checked: Removal[] = [];
  const findings: Finding[] = [];
  for (const migration of readdirSync(dir).filter((d) => d >= from && existsSync(path.join(dir, d, 'migration.sql'))).sort()) {
    const file = path.join('prisma/migrations', migration, 'migration.sql');
    const sql = readFileSync(path.join(root, file), 'utf8');
    const removals = removalsOf(migration, sql);
    if (!removals.length) continue;
    checked.push(...removals);
    const release = previousRelease(root, file);
    if (!release) continue;
    const ok = acknowledged(sql);
    for (const removal of removals) {
      if (ok.has(removal.kind === 'table' ? removal.table : `${removal.table}.${removal.name}`)) continue;
      const readBy = readers(root, release, removal);
      if (readBy.length) findings.push({ ...removal, release: release.slice(0, 12), readBy: readBy.slice(0, 5) });
    }
  }
  return { checked, findings };
}

/** One line per finding, saying what to do. */
export function describeFinding(f: Finding): string {
  const what = f.kind === 'table' ? `table ${f.table}` : `column ${f.table}.${f.name}`;
  return `${f.migration}: ${f.how === 'drop' ? 'drops' : 'renames'} ${what}, which the previous release (${f.release}) still reads in ${f.readBy.join(', ')}. `
    + 'Stop reading it in one release and drop or rename it in a later one (expand, then contract: docs/self-hosting/upgrading.md).';
}
