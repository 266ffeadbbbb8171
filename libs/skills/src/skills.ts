import { newId } from '@loupe/db';
import type { Clock } from '@loupe/http';
import type pg from 'pg';
import { builtInSkills, type SkillReference } from './built-in';
import { SkillError, SkillNameTakenError, SkillNotFoundError, SkillValidationError } from './errors';

export type SkillSource = 'built_in' | 'workspace';

export interface SkillSummary {
  name: string;
  title: string;
  description: string;
  source: SkillSource;
}

export interface Skill extends SkillSummary {
  body: string;
  references: SkillReference[];
}

export interface ReadSkillsResult {
  /** In the order asked for, each name once. */
  skills: Skill[];
  /** Names asked for that are neither built in nor the workspace's. */
  missing: string[];
}

export interface WorkspaceSkill {
  id: string;
  workspaceId: string;
  name: string;
  title: string;
  description: string;
  body: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface CreateWorkspaceSkillInput {
  workspaceId: string;
  /** Lower-case words joined by hyphens; a built-in skill's name overrides it for this workspace. */
  name: string;
  title: string;
  description: string;
  body: string;
}

export interface UpdateWorkspaceSkillInput {
  workspaceId: string;
  name: string;
  title?: string;
  description?: string;
  body?: string;
}

export const SKILL_LIMITS = {
  nameMaxChars: 64,
  titleMaxChars: 120,
  descriptionMaxChars: 500,
  bodyMaxChars: 200_000,
  queryMaxChars: 200,
  maxNamesPerRead: 20,
} as const;

const NAME_PATTERN = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

interface Row {
  id: string;
  workspace_id: string;
  name: string;
  title: string;
  description: string;
  body: string;
  created_at: Date;
  updated_at: Date;
}

const COLUMNS = 'id, workspace_id, name, title, description, body, created_at, updated_at';

function toWorkspaceSkill(row: Row): WorkspaceSkill {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    name: row.name,
    title: row.title,
    description: row.description,
    body: row.body,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
  };
}

function assertWorkspaceId(workspaceId: unknown): asserts workspaceId is string {
  if (typeof workspaceId !== 'string' || workspaceId.length === 0) throw new SkillError('a workspace id is required');
}

function validateName(name: unknown): string {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name) || name.length > SKILL_LIMITS.nameMaxChars) {
    throw new SkillValidationError(
      'name',
      `name must be lower-case letters and digits in words joined by hyphens, at most ${SKILL_LIMITS.nameMaxChars} characters (got ${JSON.stringify(name)})`,
    );
  }
  return name;
}

function validateText(field: string, value: unknown, max: number): string {
  if (typeof value !== 'string' || value.trim() === '') throw new SkillValidationError(field, `${field} must not be empty`);
  const text = field === 'body' ? value : value.trim();
  if (text.length > max) throw new SkillValidationError(field, `${field} must be at most ${max} characters (got ${text.length})`);
  return text;
}

async function workspaceRows(pool: pg.Pool, workspaceId: string, names?: string[]): Promise<Row[]> {
  const { rows } = names
    ? await pool.query<Row>(`SELECT ${COLUMNS} FROM workspace_skills WHERE workspace_id = $1 AND name = ANY($2::text[])`, [workspaceId, names])
    : await pool.query<Row>(`SELECT ${COLUMNS} FROM workspace_skills WHERE workspace_id = $1`, [workspaceId]);
  return rows;
}

/**
 * The skill catalogue of a workspace: the built-in skills and the workspace's own, a workspace
 * skill replacing the built-in one of the same name, sorted by name. `query` keeps the skills
 * whose name, title or description contain every word of it, ignoring case.
 */
export async function findSkills(pool: pg.Pool, workspaceId: string, options: { query?: string } = {}): Promise<SkillSummary[]> {
  assertWorkspaceId(workspaceId);
  const query = (options.query ?? '').trim().toLowerCase();
  if (query.length > SKILL_LIMITS.queryMaxChars) {
    throw new SkillValidationError('query', `query must be at most ${SKILL_LIMITS.queryMaxChars} characters (got ${query.length})`);
  }
  const catalogue = new Map<string, SkillSummary>();
  for (const s of builtInSkills().values()) {
    catalogue.set(s.name, { name: s.name, title: s.title, description: s.description, source: 'built_in' });
  }
  for (const r of await workspaceRows(pool, workspaceId)) {
    catalogue.set(r.name, { name: r.name, title: r.title, description: r.description, source: 'workspace' });
  }
  const terms = query.split(/\s+/).filter(Boolean);
  return [...catalogue.values()]
    .filter((s) => {
      const haystack = `${s.name}\n${s.title}\n${s.description}`.toLowerCase();
      return terms.every((term) => haystack.includes(term));
    })
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The full skills asked for (a workspace skill before a built-in one of the same name), and the names not found. */
export async function readSkills(pool: pg.Pool, workspaceId: string, names: string[]): Promise<ReadSkillsResult> {
  assertWorkspaceId(workspaceId);
  if (!Array.isArray(names) || names.length === 0 || names.some((n) => typeof n !== 'string')) {
    throw new SkillValidationError('names', 'names must be a non-empty list of skill names: call find_skills to see them');
  }
  const wanted = [...new Set(names.map((n) => n.trim()))];
  if (wanted.length > SKILL_LIMITS.maxNamesPerRead) {
    throw new SkillValidationError('names', `at most ${SKILL_LIMITS.maxNamesPerRead} skills can be read at once (got ${wanted.length})`);
  }
  const own = new Map((await workspaceRows(pool, workspaceId, wanted)).map((r) => [r.name, r]));
  const builtIn = builtInSkills();
  const skills: Skill[] = [];
  const missing: string[] = [];
  for (const name of wanted) {
    const row = own.get(name);
    const b = builtIn.get(name);
    if (row) {
      skills.push({ name, title: row.title, description: row.description, source: 'workspace', body: row.body, references: [] });
    } else if (b) {
      skills.push({ name, title: b.title, description: b.description, source: 'built_in', body: b.body, references: b.references });
    } else {
      missing.push(name);
    }
  }
  return { skills, missing };
}

export async function createWorkspaceSkill(pool: pg.Pool, input: CreateWorkspaceSkillInput, clock: Clock): Promise<WorkspaceSkill> {
  assertWorkspaceId(input.workspaceId);
  const name = validateName(input.name);
  const title = validateText('title', input.title, SKILL_LIMITS.titleMaxChars);
  const description = validateText('description', input.description, SKILL_LIMITS.descriptionMaxChars);
  const body = validateText('body', input.body, SKILL_LIMITS.bodyMaxChars);
  const now = new Date(clock.now());
  const { rows } = await pool.query<Row>(
    `INSERT INTO workspace_skills (id, workspace_id, name, title, description, body, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $7)
     ON CONFLICT (workspace_id, name) DO NOTHING
     RETURNING ${COLUMNS}`,
    [newId('skl', clock.now()), input.workspaceId, name, title, description, body, now],
  );
  if (!rows[0]) throw new SkillNameTakenError(name);
  return toWorkspaceSkill(rows[0]);
}

/** Replaces each given field of the workspace's skill of that name; omitted fields stay. */
export async function updateWorkspaceSkill(pool: pg.Pool, input: UpdateWorkspaceSkillInput, clock: Clock): Promise<WorkspaceSkill> {
  assertWorkspaceId(input.workspaceId);
  const title = input.title === undefined ? null : validateText('title', input.title, SKILL_LIMITS.titleMaxChars);
  const description = input.description === undefined ? null : validateText('description', input.description, SKILL_LIMITS.descriptionMaxChars);
  const body = input.body === undefined ? null : validateText('body', input.body, SKILL_LIMITS.bodyMaxChars);
  if (title === null && description === null && body === null) {
    throw new SkillValidationError('skill', 'nothing to update: give at least one of title, description, body');
  }
  const { rows } = await pool.query<Row>(
    `UPDATE workspace_skills
        SET title = COALESCE($3, title), description = COALESCE($4, description), body = COALESCE($5, body), updated_at = $6
      WHERE workspace_id = $1 AND name = $2
      RETURNING ${COLUMNS}`,
    [input.workspaceId, input.name, title, description, body, new Date(clock.now())],
  );
  if (!rows[0]) throw new SkillNotFoundError(String(input.name));
  return toWorkspaceSkill(rows[0]);
}

/** Deletes the workspace's skill of that name; a built-in skill it overrode shows again. */
export async function deleteWorkspaceSkill(pool: pg.Pool, workspaceId: string, name: string): Promise<void> {
  assertWorkspaceId(workspaceId);
  const { rowCount } = await pool.query('DELETE FROM workspace_skills WHERE workspace_id = $1 AND name = $2', [workspaceId, name]);
  if (rowCount === 0) throw new SkillNotFoundError(name);
}
