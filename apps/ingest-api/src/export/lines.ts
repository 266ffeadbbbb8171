import type pg from 'pg';

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * A workspace's evidence as NDJSON lines (issue 28 item 4): its sources (with their segments and
 * attachments), signals, opportunities (with their signals' ids), shaping notes (with every
 * version), companies and people, in that order, each kind by id (a kind added later goes last, so a
 * cursor of an earlier export still resumes where it was). Every line carries a `cursor`: an export cut short is
 * resumed after the last line received. The last line says the export is complete, with the counts.
 */
export const EXPORT_KINDS = ['source', 'signal', 'opportunity', 'shaping_note', 'company', 'person'] as const;
export type ExportKind = (typeof EXPORT_KINDS)[number];

/** Rows read per statement at most, by kind (a source brings its segments, an opportunity its signal ids). */
const PAGE: Record<ExportKind, number> = { source: 100, signal: 1000, opportunity: 200, shaping_note: 100, company: 500, person: 1000 };

/**
 * About how many bytes of sources one statement reads (issue 41, finding 10a): sources come with all
 * their segments, and 100 long transcripts would be hundreds of MB in the process at once. A page of
 * sources ends before the one that would take it past this (estimated from the stored sizes, without
 * reading the text); a source larger than this alone is read on its own (a record is at most 5 MB).
 */
export const EXPORT_SOURCE_PAGE_BYTES = 8 * 1024 * 1024;

export interface ExportOptions {
  /** The byte budget of a page of sources; `EXPORT_SOURCE_PAGE_BYTES` unless given (tests). */
  sourcePageBytes?: number;
}

export interface ExportPosition {
  kind: ExportKind;
  /** The id of the last row sent of that kind. */
  after: string;
}

export class ExportCursorError extends Error {
  override name = 'ExportCursorError';
}

export function encodeCursor(position: ExportPosition): string {
  return Buffer.from(JSON.stringify([EXPORT_KINDS.indexOf(position.kind), position.after])).toString('base64url');
}

export function decodeCursor(cursor: string): ExportPosition {
  try {
    const value: unknown = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'));
    if (Array.isArray(value) && value.length === 2 && Number.isInteger(value[0]) && EXPORT_KINDS[value[0] as number] && typeof value[1] === 'string') {
      return { kind: EXPORT_KINDS[value[0] as number]!, after: value[1] };
    }
  } catch {
    // reported below
  }
  throw new ExportCursorError('not a cursor of an export line: pass the "cursor" of the last line you received');
}

const iso = (d: Date | null) => (d ? d.toISOString() : null);

/** What a reader returns: the rows in id order, and whether none is left after them. */
interface Page {
  rows: Array<{ id: string; line: object }>;
  complete: boolean;
}

/** A page read by count: complete when it is short. */
const pageOf = (rows: Page['rows'], size: number): Page => ({ rows, complete: rows.length < size });

// The size of a source's line, estimated from what is stored: octet_length of a text reads its stored
// length (no decompression, no detoasting); each segment adds its keys and numbers.
const SOURCE_BYTES = `512 + coalesce(octet_length(s.title), 0) + coalesce(octet_length(s.participants::text), 0)
  + (SELECT coalesce(sum(96 + octet_length(g.text) + coalesce(octet_length(g.speaker), 0) + coalesce(octet_length(g.heading), 0)), 0)
       FROM source_segments g WHERE g.source_id = s.id)`;

async function sourcesAfter(db: Queryable, workspaceId: string, after: string, options: ExportOptions): Promise<Page> {
  // The next 100 sources by id with their estimated sizes; of those, the first ones within the budget
  // (always at least one) are read whole, with their segments and attachments, in the same statement.
  const { rows } = await db.query(
    `WITH candidates AS (
       SELECT s.id, ${SOURCE_BYTES} AS bytes FROM sources s WHERE s.workspace_id = $1 AND s.id > $2 ORDER BY s.id LIMIT ${PAGE.source}
     ), page AS (
       SELECT id, sum(bytes) OVER (ORDER BY id) AS upto, count(*) OVER () AS candidates,
              row_number() OVER (ORDER BY id) AS n FROM candidates
     )
     SELECT p.candidates::int AS candidates, s.id, s.product_id, s.project_ids, s.record_id, s.type, s.nature, s.title, s.occurred_at, s.participants, s.tags,
            s.thread_id, s.external_source, s.external_id, s.status, s.created_at,
            (SELECT coalesce(json_agg(json_build_object('position', g.position, 'kind', g.kind, 'speaker', g.speaker, 'heading', g.heading,
                                                        'text', g.text, 'start_ms', g.start_ms) ORDER BY g.position), '[]')
               FROM source_segments g WHERE g.source_id = s.id) AS segments,
            (SELECT coalesce(json_agg(json_build_object('id', a.id, 'type', a.type, 'filename', a.filename, 'mime_type', coalesce(a.stored_mime_type, a.mime_type),
                                                        'size', coalesce(a.stored_size, a.declared_size), 'status', a.status) ORDER BY a.position), '[]')
               FROM attachments a WHERE a.record_id = s.record_id AND a.workspace_id = s.workspace_id) AS attachments
       FROM page p JOIN sources s ON s.id = p.id AND s.workspace_id = $1
      WHERE p.n = 1 OR p.upto <= $3::bigint
      ORDER BY s.id`,
    [workspaceId, after, options.sourcePageBytes ?? EXPORT_SOURCE_PAGE_BYTES],
  );
  const candidates = rows[0]?.candidates ?? 0;
  return {
    complete: candidates < PAGE.source && rows.length === candidates,
    rows: rows.map((r) => ({
      id: r.id,
      line: {
        id: r.id, product_id: r.product_id, project_ids: r.project_ids ?? [], record_id: r.record_id, type: r.type, nature: r.nature, title: r.title,
        occurred_at: iso(r.occurred_at), participants: r.participants ?? [], tags: r.tags ?? [], thread_id: r.thread_id,
        external_source: r.external_source, external_id: r.external_id, status: r.status, created_at: iso(r.created_at),
        segments: r.segments, attachments: r.attachments,
      },
    })),
  };
}

async function signalsAfter(db: Queryable, workspaceId: string, after: string): Promise<Page> {
  const { rows } = await db.query(
    `SELECT s.id, s.product_id, s.source_id, t.key AS type, s.title, s.content, s.who_said_it, s.participant_id, s.company, s.theme,
            s.pinned, s.created_at, s.updated_at, os.opportunity_id, c.external_id AS company_external_id, s.quote, s.quotes, s.quotes_verified
       FROM signals s JOIN signal_types t ON t.id = s.type_id
       LEFT JOIN opportunity_signals os ON os.signal_id = s.id
       LEFT JOIN companies c ON c.id = s.company_id
      WHERE s.workspace_id = $1 AND s.id > $2 ORDER BY s.id LIMIT ${PAGE.signal}`,
    [workspaceId, after],
  );
  return pageOf(rows.map((r) => ({
    id: r.id,
    line: {
      id: r.id, product_id: r.product_id, source_id: r.source_id, type: r.type, title: r.title, content: r.content, who_said_it: r.who_said_it,
      participant_id: r.participant_id, company: r.company, company_external_id: r.company_external_id, theme: r.theme, pinned: r.pinned, opportunity_id: r.opportunity_id,
      created_at: iso(r.created_at), updated_at: iso(r.updated_at),
      // Its quotes checked against the source (issue 48); null for a signal written before the check.
      quote: r.quote, quotes: r.quotes, quotes_verified: r.quotes_verified,
    },
  })), PAGE.signal);
}

async function opportunitiesAfter(db: Queryable, workspaceId: string, after: string): Promise<Page> {
  const { rows } = await db.query(
    `SELECT o.id, o.product_id, o.title, o.subtitle, o.type, o.evidence_count, o.unique_company_count, o.keywords, o.created_at, o.updated_at,
            (SELECT coalesce(array_agg(os.signal_id ORDER BY os.signal_id), '{}') FROM opportunity_signals os WHERE os.opportunity_id = o.id) AS signal_ids
       FROM opportunities o WHERE o.workspace_id = $1 AND o.id > $2 ORDER BY o.id LIMIT ${PAGE.opportunity}`,
    [workspaceId, after],
  );
  return pageOf(rows.map((r) => ({
    id: r.id,
    line: {
      id: r.id, product_id: r.product_id, title: r.title, subtitle: r.subtitle, type: r.type, evidence_count: r.evidence_count,
      unique_company_count: r.unique_company_count, keywords: r.keywords ?? [], signal_ids: r.signal_ids, created_at: iso(r.created_at), updated_at: iso(r.updated_at),
    },
  })), PAGE.opportunity);
}

async function notesAfter(db: Queryable, workspaceId: string, after: string): Promise<Page> {
  const { rows } = await db.query(
    `SELECT n.id, n.product_id, n.title, n.subtitle, n.content, n.status, n.tags, n.version, n.created_at, n.updated_at,
            (SELECT coalesce(json_agg(json_build_object('version', v.version, 'title', v.title, 'subtitle', v.subtitle, 'content', v.content,
                                                        'status', v.status, 'tags', v.tags, 'created_at', v.created_at) ORDER BY v.version), '[]')
               FROM shaping_note_versions v WHERE v.note_id = n.id) AS versions
       FROM shaping_notes n WHERE n.workspace_id = $1 AND n.id > $2 ORDER BY n.id LIMIT ${PAGE.shaping_note}`,
    [workspaceId, after],
  );
  return pageOf(rows.map((r) => ({
    id: r.id,
    line: {
      id: r.id, product_id: r.product_id, title: r.title, subtitle: r.subtitle, content: r.content, status: r.status, tags: r.tags ?? [],
      version: r.version, created_at: iso(r.created_at), updated_at: iso(r.updated_at), versions: r.versions,
    },
  })), PAGE.shaping_note);
}

async function companiesAfter(db: Queryable, workspaceId: string, after: string): Promise<Page> {
  const { rows } = await db.query(
    `SELECT c.id, c.external_id, c.name, c.domains, c.arr::text AS arr, c.plan, c.segment, c.stage, to_char(c.renewal_date, 'YYYY-MM-DD') AS renewal_date,
            c.attributes, c.created_at, c.updated_at
       FROM companies c WHERE c.workspace_id = $1 AND c.id > $2 ORDER BY c.id LIMIT ${PAGE.company}`,
    [workspaceId, after],
  );
  return pageOf(rows.map((r) => ({
    id: r.id,
    line: {
      id: r.id, external_id: r.external_id, name: r.name, domains: r.domains ?? [], arr: r.arr === null ? null : Number(r.arr), plan: r.plan, segment: r.segment,
      stage: r.stage, renewal_date: r.renewal_date, attributes: r.attributes ?? {}, created_at: iso(r.created_at), updated_at: iso(r.updated_at),
    },
  })), PAGE.company);
}

async function peopleAfter(db: Queryable, workspaceId: string, after: string): Promise<Page> {
  const { rows } = await db.query(
    `SELECT p.id, p.external_id, p.email, p.name, c.external_id AS company_external_id, p.attributes, p.created_at, p.updated_at
       FROM people p LEFT JOIN companies c ON c.id = p.company_id
      WHERE p.workspace_id = $1 AND p.id > $2 ORDER BY p.id LIMIT ${PAGE.person}`,
    [workspaceId, after],
  );
  return pageOf(rows.map((r) => ({
    id: r.id,
    line: {
      id: r.id, external_id: r.external_id, email: r.email, name: r.name, company_external_id: r.company_external_id, attributes: r.attributes ?? {},
      created_at: iso(r.created_at), updated_at: iso(r.updated_at),
    },
  })), PAGE.person);
}

const READERS: Record<ExportKind, (db: Queryable, workspaceId: string, after: string, options: ExportOptions) => Promise<Page>> = {
  source: sourcesAfter, signal: signalsAfter, opportunity: opportunitiesAfter, shaping_note: notesAfter, company: companiesAfter, person: peopleAfter,
};

/**
 * The export's lines (each a JSON text without its newline), from the start or after `from`. Pages
 * are read one after the other as the consumer asks for lines, so a slow reader holds no more than a page.
 */
export async function* exportLines(db: Queryable, workspaceId: string, from?: ExportPosition, options: ExportOptions = {}): AsyncGenerator<string> {
  const counts: Record<ExportKind, number> = { source: 0, signal: 0, opportunity: 0, shaping_note: 0, company: 0, person: 0 };
  const start = from ? EXPORT_KINDS.indexOf(from.kind) : 0;
  for (let k = start; k < EXPORT_KINDS.length; k++) {
    const kind = EXPORT_KINDS[k]!;
    let after = k === start && from ? from.after : '';
    for (;;) {
      const page = await READERS[kind](db, workspaceId, after, options);
      for (const row of page.rows) {
        counts[kind]++;
        yield JSON.stringify({ kind, cursor: encodeCursor({ kind, after: row.id }), [kind]: row.line });
      }
      if (page.complete || !page.rows.length) break;
      after = page.rows[page.rows.length - 1]!.id;
    }
  }
  yield JSON.stringify({ kind: 'end', complete: true, resumed: Boolean(from), counts });
}
