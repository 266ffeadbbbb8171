import { newId } from '@loupe/db';
import type pg from 'pg';
import { buildSource } from './build';
import { SEARCH_DOCUMENT_SQL } from './search';
import type { SourceDraft, SourceRecord } from './types';

type Queryable = Pick<pg.PoolClient, 'query'>;

export interface CreatedSource {
  recordId: string;
  sourceId: string;
  /** False when the record already had its source (a retry): nothing was written. */
  created: boolean;
  segmentCount: number;
}

// search_doc: what find_sources matches (libs/sources/src/search.ts), written with the source so it is
// searchable as soon as this transaction commits.
const INSERT_SOURCES = `
  INSERT INTO sources (id, workspace_id, product_id, project_ids, record_id, type, nature, title, occurred_at,
                       participants, tags, thread_id, status, segment_count, created_at, search_doc)
  SELECT s.id, s.workspace_id, s.product_id, s.project_ids, s.record_id, s.type, s.nature, s.title, s.occurred_at,
         s.participants, s.tags, s.thread_id, 'ready', s.segment_count, $2, ${SEARCH_DOCUMENT_SQL('s.title', 's.body')}
    FROM json_to_recordset($1::json) AS s(id text, workspace_id text, product_id text, project_ids text[],
         record_id text, type text, nature text, title text, occurred_at timestamptz, participants jsonb,
         tags text[], thread_id text, segment_count int, body text)
  ON CONFLICT (record_id) DO NOTHING
  RETURNING id, record_id`;

const INSERT_SEGMENTS = `
  INSERT INTO source_segments (source_id, position, kind, speaker, heading, text, start_ms)
  SELECT g.source_id, g.position, g.kind, g.speaker, g.heading, g.text, g.start_ms
    FROM json_to_recordset($1::json) AS g(source_id text, position int, kind text, speaker text, heading text,
         text text, start_ms int)`;

/**
 * Writes sources and their segments, one per draft, inside the caller's transaction. A record
 * that already has a source keeps it (sources.record_id is unique), so a retry writes nothing.
 */
export async function insertSources(client: Queryable, drafts: readonly SourceDraft[], now = new Date()): Promise<CreatedSource[]> {
  if (drafts.length === 0) return [];
  const ids = new Map(drafts.map((d) => [d.recordId, newId('src', now.getTime())]));
  const rows = drafts.map((d) => ({
    id: ids.get(d.recordId),
    workspace_id: d.workspaceId,
    product_id: d.productId,
    project_ids: d.projectIds,
    record_id: d.recordId,
    type: d.type,
    nature: d.nature,
    title: d.title,
    occurred_at: d.occurredAt.toISOString(),
    participants: d.participants,
    tags: d.tags,
    thread_id: d.threadId,
    segment_count: d.segments.length,
    body: d.segments.map((g) => (g.heading ? `${g.heading}\n${g.text}` : g.text)).join('\n'),
  }));
  const { rows: inserted } = await client.query<{ id: string; record_id: string }>(INSERT_SOURCES, [JSON.stringify(rows), now]);
  const createdFor = new Set(inserted.map((r) => r.record_id));
  const segments = drafts
    .filter((d) => createdFor.has(d.recordId))
    .flatMap((d) =>
      d.segments.map((s, position) => ({
        source_id: ids.get(d.recordId),
        position,
        kind: s.kind,
        speaker: s.speaker,
        heading: s.heading,
        text: s.text,
        start_ms: s.startMs,
      })),
    );
  if (segments.length) await client.query(INSERT_SEGMENTS, [JSON.stringify(segments)]);
  const existing = drafts.filter((d) => !createdFor.has(d.recordId)).map((d) => d.recordId);
  const existingIds = new Map<string, { id: string; segment_count: number }>();
  if (existing.length) {
    const { rows: found } = await client.query<{ id: string; record_id: string; segment_count: number }>(
      'SELECT id, record_id, segment_count FROM sources WHERE record_id = ANY($1::text[])',
      [existing],
    );
    for (const r of found) existingIds.set(r.record_id, r);
  }
  return drafts.map((d) => {
    if (createdFor.has(d.recordId)) {
      return { recordId: d.recordId, sourceId: ids.get(d.recordId)!, created: true, segmentCount: d.segments.length };
    }
    const found = existingIds.get(d.recordId);
    if (!found) throw new Error(`source of record ${d.recordId} was neither created nor found`);
    return { recordId: d.recordId, sourceId: found.id, created: false, segmentCount: found.segment_count };
  });
}

/** Turns one record into its source, idempotently; see `insertSources`. */
export async function createSourceFromRecord(client: Queryable, record: SourceRecord, now = new Date()): Promise<CreatedSource> {
  const [created] = await insertSources(client, [buildSource(record)], now);
  return created!;
}
