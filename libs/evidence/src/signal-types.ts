import type pg from 'pg';
import { newId } from '@loupe/db';

/** The types every workspace starts with; workspaces may add their own and switch any off. */
export const BUILT_IN_SIGNAL_TYPES = [
  { key: 'need', name: 'Need', description: 'Something the customer needs to get done, whatever the solution.' },
  { key: 'problem', name: 'Problem', description: 'Something that goes wrong or blocks the customer today.' },
  { key: 'pain_point', name: 'Pain point', description: 'A recurring cost, delay or frustration the customer feels.' },
  { key: 'feedback', name: 'Feedback', description: 'An opinion about the product as it is, good or bad.' },
  { key: 'quote', name: 'Quote', description: "A telling sentence in the customer's own words, worth citing as it is." },
  { key: 'feature_request', name: 'Feature request', description: 'A solution the customer asks for by name.' },
] as const;

export interface SignalType {
  id: string;
  key: string;
  name: string;
  description: string;
  active: boolean;
  builtIn: boolean;
}

/** Inserts the built-in types for the workspace once; later calls change nothing. */
export async function ensureSignalTypes(db: Pick<pg.Pool, 'query'>, workspaceId: string): Promise<void> {
  await db.query(
    `INSERT INTO signal_types (id, workspace_id, key, name, description, built_in)
     SELECT t.id, $1, t.key, t.name, t.description, true FROM json_to_recordset($2::json) AS t(id text, key text, name text, description text)
     ON CONFLICT (workspace_id, key) DO NOTHING`,
    [workspaceId, JSON.stringify(BUILT_IN_SIGNAL_TYPES.map((t) => ({ id: newId('sty'), ...t })))],
  );
}

export async function listSignalTypes(db: Pick<pg.Pool, 'query'>, workspaceId: string, options: { activeOnly?: boolean } = {}): Promise<SignalType[]> {
  await ensureSignalTypes(db, workspaceId);
  const { rows } = await db.query<{ id: string; key: string; name: string; description: string; active: boolean; built_in: boolean }>(
    `SELECT id, key, name, description, active, built_in FROM signal_types
      WHERE workspace_id = $1 AND ($2::boolean IS NOT TRUE OR active) ORDER BY built_in DESC, key`,
    [workspaceId, options.activeOnly ?? false],
  );
  return rows.map((r) => ({ id: r.id, key: r.key, name: r.name, description: r.description, active: r.active, builtIn: r.built_in }));
}

export async function createSignalType(pool: pg.Pool, workspaceId: string, input: { key: string; name: string; description: string }): Promise<SignalType> {
  const key = input.key.trim().toLowerCase().replace(/[\s-]+/g, '_');
  if (!/^[a-z][a-z0-9_]{0,39}$/.test(key)) throw new RangeError('A signal type key is 1–40 lower-case letters, digits and underscores, starting with a letter');
  await ensureSignalTypes(pool, workspaceId);
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO signal_types (id, workspace_id, key, name, description) VALUES ($1, $2, $3, $4, $5)
     ON CONFLICT (workspace_id, key) DO NOTHING RETURNING id`,
    [newId('sty'), workspaceId, key, input.name.trim(), input.description.trim()],
  );
  if (!rows[0]) throw new RangeError(`The workspace already has a signal type "${key}"`);
  return { id: rows[0].id, key, name: input.name.trim(), description: input.description.trim(), active: true, builtIn: false };
}

export async function setSignalTypeActive(pool: pg.Pool, workspaceId: string, key: string, active: boolean): Promise<boolean> {
  await ensureSignalTypes(pool, workspaceId);
  const { rowCount } = await pool.query('UPDATE signal_types SET active = $3 WHERE workspace_id = $1 AND key = $2', [workspaceId, key, active]);
  return (rowCount ?? 0) > 0;
}

/** Finds an active type by key or name, case- and separator-insensitively. */
export function matchType(types: readonly SignalType[], given: string): SignalType | undefined {
  const norm = (s: string) => s.trim().toLowerCase().replace(/[\s_-]+/g, '_');
  const g = norm(given);
  return types.find((t) => t.active && (norm(t.key) === g || norm(t.name) === g));
}
