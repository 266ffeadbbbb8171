import type pg from 'pg';
import { statementBatcher } from '@loupe/http';

/** `read_source` limits: at most this many segments, and about this many characters, per page. */
export const READ_LIMITS = { defaultSegments: 200, maxSegments: 500, maxChars: 60_000 } as const;

export interface SourceSegmentView {
  position: number;
  kind: string;
  speaker: string | null;
  heading: string | null;
  text: string;
  start_ms: number | null;
}

export interface SourcePage {
  source: {
    id: string;
    title: string;
    source_type: string;
    nature: string;
    status: 'processing' | 'ready';
    occurred_at: string;
    product_id: string;
    project_ids: string[];
    participants: unknown[];
    tags: string[];
    thread_id: string | null;
    record_id: string | null;
  };
  segments: SourceSegmentView[];
  offset: number;
  returned: number;
  total_segments: number;
  has_more: boolean;
  /** Where the next page starts; absent on the last page. */
  next_offset?: number;
}

export class SourceReadError extends Error {
  override name = 'SourceReadError';
}

interface SourceRow {
  id: string;
  title: string;
  type: string;
  nature: string;
  status: 'processing' | 'ready';
  occurred_at: Date;
  product_id: string;
  project_ids: string[] | null;
  participants: unknown[];
  tags: string[] | null;
  thread_id: string | null;
  record_id: string | null;
  segment_count: number;
}

/** The longest source id looked up: ours are 30 characters (`src_` and a ULID). */
export const MAX_SOURCE_ID_LENGTH = 128;

/** Whether `id` could be a source's id at all: printable ASCII, no spaces, at most `MAX_SOURCE_ID_LENGTH` characters. */
export function isPossibleSourceId(id: string): boolean {
  return id.length > 0 && id.length <= MAX_SOURCE_ID_LENGTH && /^[\x21-\x7e]+$/.test(id);
}

/**
 * The source and its page of segments in one statement, which read_source, a hot tool, would otherwise
 * fetch in two round trips; reads that overlap go together (`statementBatcher`). Each request's source
 * is found through the primary key, within its own workspace (the LATERAL ... LIMIT 1, as in the
 * credential lookups: the generic plan of a plain join could scan).
 */
const READ_SOURCE_PAGE = {
  name: 'sources-read-source-page',
  text: `SELECT l.n, s.id, s.title, s.type, s.nature, s.status, s.occurred_at, s.product_id, s.project_ids, s.participants, s.tags,
                s.thread_id, s.record_id, s.segment_count,
                (SELECT COALESCE(json_agg(json_build_object('position', g.position, 'kind', g.kind, 'speaker', g.speaker,
                                                            'heading', g.heading, 'text', g.text, 'start_ms', g.start_ms)
                                          ORDER BY g.position), '[]')
                   FROM (SELECT position, kind, speaker, heading, text, start_ms FROM source_segments
                          WHERE source_id = s.id AND position >= ($3::bigint[])[l.n] ORDER BY position LIMIT ($4::bigint[])[l.n]) g) AS segments
           FROM batch_requests($1::text[]) AS l(param, n)
           JOIN LATERAL (SELECT * FROM sources WHERE id = l.param AND workspace_id = ($2::text[])[l.n] LIMIT 1) s ON true`,
};

/**
 * One page of a source's segments, in order, within the workspace only: undefined when the
 * source does not exist there. A page stops at `limit` segments or once it holds about
 * 60,000 characters (always at least one segment, so paging always advances).
 */
export async function readSource(
  db: Pick<pg.Pool, 'query'>,
  workspaceId: string,
  sourceId: string,
  page: { offset?: number; limit?: number } = {},
): Promise<SourcePage | undefined> {
  const offset = page.offset ?? 0;
  const limit = page.limit ?? READ_LIMITS.defaultSegments;
  if (!Number.isInteger(offset) || offset < 0) throw new SourceReadError(`offset must be a whole number from 0 (got ${offset})`);
  if (!Number.isInteger(limit) || limit < 1 || limit > READ_LIMITS.maxSegments) {
    throw new SourceReadError(`limit must be a whole number from 1 to ${READ_LIMITS.maxSegments} (got ${limit})`);
  }
  // An id no source can have (a NUL character, longer than any id) names no source: it is never sent
  // with the reads of other requests, whose shared statement it would fail.
  if (!isPossibleSourceId(sourceId)) return undefined;
  const row = await statementBatcher<SourceRow & { segments: SourceSegmentView[] }>(db, READ_SOURCE_PAGE).run([sourceId, workspaceId, offset, limit]);
  if (!row) return undefined;
  const segments = row.segments;
  const pageSegments: SourceSegmentView[] = [];
  let chars = 0;
  for (const s of segments) {
    const size = s.text.length + (s.heading?.length ?? 0) + (s.speaker?.length ?? 0);
    if (pageSegments.length > 0 && chars + size > READ_LIMITS.maxChars) break;
    pageSegments.push(s);
    chars += size;
  }
  const end = offset + pageSegments.length;
  const hasMore = end < row.segment_count;
  const result: SourcePage = {
    source: {
      id: row.id,
      title: row.title,
      source_type: row.type,
      nature: row.nature,
      status: row.status,
      occurred_at: row.occurred_at.toISOString(),
      product_id: row.product_id,
      project_ids: row.project_ids ?? [],
      participants: row.participants,
      tags: row.tags ?? [],
      thread_id: row.thread_id,
      record_id: row.record_id,
    },
    segments: pageSegments,
    offset,
    returned: pageSegments.length,
    total_segments: row.segment_count,
    has_more: hasMore,
  };
  if (hasMore) result.next_offset = end;
  return result;
}
