import { newId } from '@loupe/db';
import { ensureSignalTypes } from '@loupe/evidence';
import { createSourceFromRecord } from '@loupe/sources';
import type pg from 'pg';

/** A workspace with a product and a batch to hang records on. */
export async function workspace(pool: pg.Pool): Promise<{ ws: string; prod: string; batch: string }> {
  const ws = newId('ws');
  const prod = newId('prod');
  await pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, 'W']);
  await pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [prod, ws, 'P']);
  await ensureSignalTypes(pool, ws);
  const batch = newId('bat');
  await pool.query(
    `INSERT INTO batches (id, workspace_id, product_id, source, type, status, accepted_count, rejected_count, total_error_count)
     VALUES ($1, $2, $3, 'api', 'call', 'COMPLETE', 1, 0, 0)`,
    [batch, ws, prod],
  );
  return { ws, prod, batch };
}

let position = 0;

/** A record (as the ingestion API lands it) and the source the worker makes of it. */
export async function addRecord(
  pool: pg.Pool, w: { ws: string; prod: string; batch: string },
  r: { type?: string; participants: unknown; data: unknown; vendorIds?: Record<string, string>; tags?: string[] },
): Promise<{ record: string; source: string }> {
  const id = newId('rec');
  const type = r.type ?? 'call';
  await pool.query(
    `INSERT INTO records (id, workspace_id, batch_id, position, dedup_key, type, nature, product_id, project_ids, event_at, vendor_ids, participants, tags, data)
     VALUES ($1, $2, $3, $4, $1, $5, 'evidence', $6, '{}', now(), $7, $8, $9, $10::json)`,
    [id, w.ws, w.batch, position++, type, w.prod, JSON.stringify(r.vendorIds ?? {}), r.participants === null ? null : JSON.stringify(r.participants), r.tags ?? [], JSON.stringify(r.data)],
  );
  const created = await createSourceFromRecord(pool, {
    id, workspaceId: w.ws, productId: w.prod, projectIds: [], type, nature: 'evidence', eventAt: new Date(Date.UTC(2026, 10, 1)), data: r.data,
    participants: (r.participants as never) ?? null, tags: r.tags ?? [], threadId: null,
  } as never);
  return { record: id, source: created.sourceId };
}

/**
 * Every column of the rows given, and of what hangs from them (a source's segments, a note's versions,
 * a record's attachments), as text: equal before and after means byte-identical.
 */
export async function snapshot(pool: pg.Pool, ids: { records?: string[]; sources?: string[]; signals?: string[]; notes?: string[]; jobs?: string[] }): Promise<string> {
  const parts: string[] = [];
  const q = async (sql: string, values: string[] | undefined) => {
    if (!values?.length) return;
    const { rows } = await pool.query<{ j: string }>(sql, [values]);
    parts.push(...rows.map((r) => r.j));
  };
  await q('SELECT row_to_json(x)::text AS j FROM records x WHERE id = ANY($1) ORDER BY id', ids.records);
  await q('SELECT row_to_json(x)::text AS j FROM attachments x WHERE record_id = ANY($1) ORDER BY id', ids.records);
  await q('SELECT row_to_json(x)::text AS j FROM sources x WHERE id = ANY($1) ORDER BY id', ids.sources);
  await q('SELECT row_to_json(x)::text AS j FROM source_segments x WHERE source_id = ANY($1) ORDER BY source_id, position', ids.sources);
  await q('SELECT row_to_json(x)::text AS j FROM source_semantics x WHERE source_id = ANY($1) ORDER BY source_id', ids.sources);
  await q('SELECT row_to_json(x)::text AS j FROM signals x WHERE id = ANY($1) ORDER BY id', ids.signals);
  await q('SELECT row_to_json(x)::text AS j FROM signal_changes x WHERE signal_id = ANY($1) ORDER BY id', ids.signals);
  await q('SELECT row_to_json(x)::text AS j FROM shaping_notes x WHERE id = ANY($1) ORDER BY id', ids.notes);
  await q('SELECT row_to_json(x)::text AS j FROM shaping_note_versions x WHERE note_id = ANY($1) ORDER BY note_id, version', ids.notes);
  await q('SELECT json_build_object(\'data\', data, \'output\', output)::text AS j FROM pgboss.job WHERE id::text = ANY($1) ORDER BY id', ids.jobs);
  return parts.join('\n');
}
