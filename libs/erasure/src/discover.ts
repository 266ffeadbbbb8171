import type pg from 'pg';
import { foldIdentifier, foldName, Matcher, personEntries, type PersonEntry } from './match';
import { addFound, knownIdentifiers, markShared, type SubjectState } from './subject';

type Client = pg.PoolClient;

/** Rows looked at per slice of a table (each slice is one transaction, its progress saved with it). */
export const ERASURE_SLICE = 200;

export type Table = 'records' | 'sources' | 'signals' | 'signal_changes' | 'shaping_notes' | 'opportunities';

export async function chunkIds(client: Pick<pg.Pool, 'query'>, table: Table, workspaceId: string, after: string): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(
    `SELECT id FROM ${table} WHERE workspace_id = $1 AND id > $2 ORDER BY id LIMIT ${ERASURE_SLICE}`, [workspaceId, after],
  );
  return rows.map((r) => r.id);
}

/** One slice of discovery or of the shared check: the last id looked at, undefined when the table is done. */
export interface DiscoveryStep {
  cursor: string | undefined;
}

const givenMatcher = (s: SubjectState) => new Matcher({ emails: s.given.emails, ids: s.given.ids, names: [] });
const isGivenEntry = (e: PersonEntry, given: Matcher) => [...e.ids, ...e.emails].some((v) => given.hasIdentifier(v));

/**
 * Discovery, records: every participant entry (and every object of `data` with an address, and every
 * "Name <address>" sender) carrying a given address or id adds what else it says of the person: from a
 * participant list its other address and id and its names, from `data` its address and names. One hop
 * from what was given, never from what was found, so one shared inbox cannot chain to other people.
 */
export async function discoverRecords(c: Client, workspaceId: string, cursor: string, state: SubjectState): Promise<DiscoveryStep> {
  const ids = await chunkIds(c, 'records', workspaceId, cursor);
  if (!ids.length) return { cursor: undefined };
  const given = givenMatcher(state);
  const { rows } = await c.query<{ participants: unknown; data: string }>(
    `SELECT participants, data::text AS data FROM records WHERE workspace_id = $1 AND id = ANY($2)
        AND (coalesce(participants::text, '') ILIKE ANY($3) OR data::text ILIKE ANY($3))`,
    [workspaceId, ids, given.likePatterns()],
  );
  for (const r of rows) {
    for (const e of personEntries(r.participants, true)) if (isGivenEntry(e, given)) addFound(state, e, true);
    for (const e of personEntries(JSON.parse(r.data))) if (isGivenEntry(e, given)) addFound(state, { ...e, ids: [] }, false);
  }
  return { cursor: ids.at(-1) };
}

export async function discoverSources(c: Client, workspaceId: string, cursor: string, state: SubjectState): Promise<DiscoveryStep> {
  const ids = await chunkIds(c, 'sources', workspaceId, cursor);
  if (!ids.length) return { cursor: undefined };
  const given = givenMatcher(state);
  const { rows } = await c.query<{ participants: unknown }>(
    'SELECT participants FROM sources WHERE workspace_id = $1 AND id = ANY($2) AND participants::text ILIKE ANY($3)',
    [workspaceId, ids, given.likePatterns()],
  );
  for (const r of rows) for (const e of personEntries(r.participants, true)) if (isGivenEntry(e, given)) addFound(state, e, true);
  return { cursor: ids.at(-1) };
}

/** A signal said by a given participant id (or address) gives the name it was said by. */
export async function discoverSignals(c: Client, workspaceId: string, cursor: string, state: SubjectState): Promise<DiscoveryStep> {
  const ids = await chunkIds(c, 'signals', workspaceId, cursor);
  if (!ids.length) return { cursor: undefined };
  const { rows } = await c.query<{ who_said_it: string | null }>(
    `SELECT who_said_it FROM signals WHERE workspace_id = $1 AND id = ANY($2) AND lower(btrim(participant_id)) = ANY($3::text[]) AND who_said_it IS NOT NULL`,
    [workspaceId, ids, [...state.given.ids, ...state.given.emails]],
  );
  for (const r of rows) addFound(state, { ids: [], emails: [], names: [r.who_said_it!] }, false);
  return { cursor: ids.at(-1) };
}

/** Found values, folded, for the shared check. */
function foundValues(state: SubjectState): { identifiers: Set<string>; names: Set<string>; matcher: Matcher } {
  const identifiers = new Set([...state.found.emails, ...state.found.ids]);
  const names = new Set(state.found.names.map(foldName));
  return { identifiers, names, matcher: new Matcher({ emails: state.found.emails, ids: state.found.ids, names: state.found.names }) };
}

/**
 * An entry of another participant: it has an address or id the person is not known by. The found
 * addresses, ids and names it carries too are shared: they would name that participant as well.
 */
function checkShared(state: SubjectState, e: PersonEntry, known: Set<string>, found: { identifiers: Set<string>; names: Set<string> }): void {
  const other = [...e.ids, ...e.emails].find((v) => !known.has(v));
  if (!other) return;
  for (const v of [...e.ids, ...e.emails]) if (found.identifiers.has(v)) markShared(state, v, other);
  for (const n of e.names) if (found.names.has(foldName(n))) markShared(state, foldName(n), other);
}

export async function sharedInRecords(c: Client, workspaceId: string, cursor: string, state: SubjectState): Promise<DiscoveryStep> {
  const found = foundValues(state);
  if (!found.matcher.needles.length) return { cursor: undefined };
  const ids = await chunkIds(c, 'records', workspaceId, cursor);
  if (!ids.length) return { cursor: undefined };
  const { rows } = await c.query<{ participants: unknown; data: string }>(
    `SELECT participants, data::text AS data FROM records WHERE workspace_id = $1 AND id = ANY($2)
        AND (coalesce(participants::text, '') ILIKE ANY($3) OR data::text ILIKE ANY($3))`,
    [workspaceId, ids, found.matcher.likePatterns()],
  );
  const known = knownIdentifiers(state);
  for (const r of rows) {
    for (const e of personEntries(r.participants, true)) checkShared(state, e, known, found);
    for (const e of personEntries(JSON.parse(r.data))) checkShared(state, e, known, found);
  }
  return { cursor: ids.at(-1) };
}

export async function sharedInSources(c: Client, workspaceId: string, cursor: string, state: SubjectState): Promise<DiscoveryStep> {
  const found = foundValues(state);
  if (!found.matcher.needles.length) return { cursor: undefined };
  const ids = await chunkIds(c, 'sources', workspaceId, cursor);
  if (!ids.length) return { cursor: undefined };
  const { rows } = await c.query<{ participants: unknown }>(
    'SELECT participants FROM sources WHERE workspace_id = $1 AND id = ANY($2) AND participants::text ILIKE ANY($3)',
    [workspaceId, ids, found.matcher.likePatterns()],
  );
  const known = knownIdentifiers(state);
  for (const r of rows) for (const e of personEntries(r.participants, true)) checkShared(state, e, known, found);
  return { cursor: ids.at(-1) };
}

/** A signal said by another participant id under a found name: that name is shared. */
export async function sharedInSignals(c: Client, workspaceId: string, cursor: string, state: SubjectState): Promise<DiscoveryStep> {
  const found = foundValues(state);
  if (!found.names.size) return { cursor: undefined };
  const ids = await chunkIds(c, 'signals', workspaceId, cursor);
  if (!ids.length) return { cursor: undefined };
  const { rows } = await c.query<{ participant_id: string; who_said_it: string }>(
    `SELECT participant_id, who_said_it FROM signals WHERE workspace_id = $1 AND id = ANY($2)
        AND nullif(btrim(participant_id), '') IS NOT NULL AND lower(regexp_replace(btrim(who_said_it), '\\s+', ' ', 'g')) = ANY($3::text[])`,
    [workspaceId, ids, [...found.names]],
  );
  const known = knownIdentifiers(state);
  for (const r of rows) checkShared(state, { ids: [foldIdentifier(r.participant_id)], emails: [], names: [r.who_said_it] }, known, found);
  return { cursor: ids.at(-1) };
}
