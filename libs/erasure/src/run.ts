import { createHash } from 'node:crypto';
import { finalDownloadStatus, transitionDownloads, type DownloadStatus } from '@loupe/batches';
import { withTransaction } from '@loupe/db';
import { deleteSignals, SignalNotFoundError, subtitleOf } from '@loupe/evidence';
import type { Clock } from '@loupe/http';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { refreshSearchDocuments } from '@loupe/sources';
import type { Storage } from '@loupe/storage';
import type pg from 'pg';
import { ERASED, Matcher, type Subject } from './match';
import type { ErasureCounts } from './requests';
import { addSuppression } from './suppressions';

export interface ErasureDeps {
  pool: pg.Pool;
  boss: Boss;
  storage: Storage;
  clock: Clock;
}

/** Rows looked at per slice of a table (each slice is one transaction, its progress saved with it). */
export const ERASURE_SLICE = 200;

/**
 * The order of the work. Discovery comes first: it reads the names recorded with the person's email or
 * participant id (participant entries, senders, signals' speakers) before anything is redacted, so the
 * redaction finds them by name too. Sources come after records, signal history after signals.
 */
export const PHASES = [
  'discover_records', 'discover_sources', 'discover_signals',
  'records', 'sources', 'signals', 'signal_changes', 'opportunities', 'shaping_notes', 'other', 'done',
] as const;
export type Phase = (typeof PHASES)[number];

type Client = pg.PoolClient;
interface Step {
  /** The last id looked at, or undefined when the table is done. */
  cursor: string | undefined;
  counts?: ErasureCounts;
  subject?: Subject;
  /** Products whose opportunities must be placed again. */
  products?: string[];
  /** Whether sources must be embedded again. */
  embed?: boolean;
}

type Ctx = { deps: ErasureDeps; workspaceId: string; erasureId: string; by: { userId: string | null; keyId: string | null }; subject: Subject; m: Matcher; cursor: string };

async function chunkIds(client: Client, table: 'records' | 'sources' | 'signals' | 'signal_changes' | 'shaping_notes' | 'opportunities', workspaceId: string, after: string): Promise<string[]> {
  const { rows } = await client.query<{ id: string }>(
    `SELECT id FROM ${table} WHERE workspace_id = $1 AND id > $2 ORDER BY id LIMIT ${ERASURE_SLICE}`, [workspaceId, after],
  );
  return rows.map((r) => r.id);
}

function addSubject(subject: Subject, found: { emails?: string[]; ids?: string[]; names?: string[] }): Subject {
  const merge = (a: string[], b: string[] = [], lower = false) =>
    [...new Set([...a, ...b.map((x) => (lower ? x.trim().toLowerCase() : x.trim())).filter((x) => x.length > 0 && x.length <= 320)])].slice(0, 100);
  return { emails: merge(subject.emails, found.emails, true), ids: merge(subject.ids, found.ids), names: merge(subject.names, found.names) };
}

/** Strong identifiers only (emails and ids): names are found through them, never from other names. */
function strongMatcher(subject: Subject): Matcher {
  return new Matcher({ emails: subject.emails, ids: subject.ids, names: [] });
}

/** In a participant entry or any object of a record: the name, address and id beside the person's email or id. */
function collectPeople(value: unknown, strong: Matcher, out: { emails: string[]; ids: string[]; names: string[] }, depth = 0): void {
  if (depth > 50 || !value || typeof value !== 'object') return;
  if (Array.isArray(value)) {
    for (const v of value) collectPeople(v, strong, out, depth + 1);
    return;
  }
  const o = value as Record<string, unknown>;
  const str = (k: string) => (typeof o[k] === 'string' ? (o[k] as string).trim() : undefined);
  const id = str('id') ?? str('participant_id') ?? str('user_id');
  const email = str('email');
  const exact = (s: string | undefined) => s !== undefined && strong.needles.includes(s.toLowerCase());
  if (exact(id) || exact(email)) {
    if (email) out.emails.push(email);
    if (id) out.ids.push(id);
    for (const k of ['name', 'display_name', 'full_name']) {
      const n = str(k);
      if (n) out.names.push(n);
    }
  }
  // "Ana Planted <ana@globex.test>" as a sender or speaker
  for (const v of Object.values(o)) {
    if (typeof v === 'string') {
      const angle = /^\s*"?([^"<]{3,256}?)"?\s*<([^>]+)>\s*$/.exec(v);
      if (angle && exact(angle[2]!.trim())) out.names.push(angle[1]!.trim());
    } else collectPeople(v, strong, out, depth + 1);
  }
}

async function discoverRecords(c: Client, x: Ctx): Promise<Step> {
  const ids = await chunkIds(c, 'records', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const strong = strongMatcher(x.subject);
  const { rows } = await c.query<{ participants: unknown; data: string }>(
    `SELECT participants, data::text AS data FROM records WHERE workspace_id = $1 AND id = ANY($2)
        AND (coalesce(participants::text, '') ILIKE ANY($3) OR data::text ILIKE ANY($3))`,
    [x.workspaceId, ids, strong.likePatterns()],
  );
  const found = { emails: [] as string[], ids: [] as string[], names: [] as string[] };
  for (const r of rows) {
    collectPeople(r.participants, strong, found);
    collectPeople(JSON.parse(r.data), strong, found);
  }
  return { cursor: ids.at(-1), subject: addSubject(x.subject, found) };
}

async function discoverSources(c: Client, x: Ctx): Promise<Step> {
  const ids = await chunkIds(c, 'sources', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const strong = strongMatcher(x.subject);
  const { rows } = await c.query<{ participants: unknown }>(
    `SELECT participants FROM sources WHERE workspace_id = $1 AND id = ANY($2) AND participants::text ILIKE ANY($3)`,
    [x.workspaceId, ids, strong.likePatterns()],
  );
  const found = { emails: [] as string[], ids: [] as string[], names: [] as string[] };
  for (const r of rows) collectPeople(r.participants, strong, found);
  return { cursor: ids.at(-1), subject: addSubject(x.subject, found) };
}

async function discoverSignals(c: Client, x: Ctx): Promise<Step> {
  const ids = await chunkIds(c, 'signals', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const strong = strongMatcher(x.subject);
  const { rows } = await c.query<{ participant_id: string; who_said_it: string | null }>(
    `SELECT participant_id, who_said_it FROM signals WHERE workspace_id = $1 AND id = ANY($2) AND lower(participant_id) = ANY($3::text[])`,
    [x.workspaceId, ids, strong.needles],
  );
  return { cursor: ids.at(-1), subject: addSubject(x.subject, { names: rows.map((r) => r.who_said_it ?? '').filter(Boolean) }) };
}

/** Records: their JSON redacted in place (participants without the person), their attachments' files deleted. */
async function redactRecords(c: Client, x: Ctx): Promise<Step> {
  const ids = await chunkIds(c, 'records', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const { rows } = await c.query<{ id: string; participants: unknown; vendor_ids: unknown; pii: unknown; data: string; thread_id: string | null; tags: string[] }>(
    `SELECT id, participants, vendor_ids, pii, data::text AS data, thread_id, tags FROM records
      WHERE workspace_id = $1 AND id = ANY($2)
        AND concat_ws(' ', participants::text, vendor_ids::text, pii::text, data::text, thread_id, array_to_string(tags, ' ')) ILIKE ANY($3)
      ORDER BY id FOR UPDATE`,
    [x.workspaceId, ids, x.m.likePatterns()],
  );
  let records = 0;
  let attachments = 0;
  for (const r of rows) {
    const data = JSON.parse(r.data) as unknown;
    if (!x.m.mentionsJson([r.participants, r.vendor_ids, r.pii, data, r.thread_id, r.tags])) continue;
    records++;
    await c.query(
      `UPDATE records SET participants = $3, vendor_ids = $4, pii = $5, data = $6::json, thread_id = $7, tags = $8 WHERE workspace_id = $1 AND id = $2`,
      [x.workspaceId, r.id, r.participants === null ? null : JSON.stringify(x.m.withoutPerson(r.participants)), JSON.stringify(x.m.redactJson(r.vendor_ids)),
        r.pii === null ? null : JSON.stringify(x.m.redactJson(r.pii)), JSON.stringify(x.m.redactJson(data, true)),
        r.thread_id === null ? null : x.m.redact(r.thread_id), (r.tags ?? []).map((t) => x.m.redact(t))],
    );
    // A file cannot be redacted: the recording, picture or document of a record that names the person
    // may carry their voice, face or words, so it goes; the row stays (the batch's counts stay true).
    const { rows: files } = await c.query<{ id: string; batch_id: string; storage_key: string | null; status: string }>(
      `SELECT id, batch_id, storage_key, status::text AS status FROM attachments WHERE workspace_id = $1 AND record_id = $2 ORDER BY id FOR UPDATE`, [x.workspaceId, r.id],
    );
    for (const f of files) {
      if (f.storage_key) await x.deps.storage.delete(f.storage_key);
      // A download not finished yet ends here, counted as failed like any other (the batch's download
      // status settles); a download in flight then finds it final and deletes the file it stored.
      const pending = f.status === 'PENDING' || f.status === 'DOWNLOADING';
      await c.query(
        `UPDATE attachments SET storage_key = NULL, filename = NULL, vendor_url = NULL, upload_intent_id = NULL, sha1 = NULL, md5 = NULL,
                status = CASE WHEN $4 THEN 'FAILED'::attachment_status ELSE status END, error = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2`,
        [x.workspaceId, f.id, `${ERASED_ATTACHMENT} (erasure ${x.erasureId})`, pending],
      );
      if (pending) await countFailedDownload(c, f.batch_id);
      attachments++;
    }
  }
  return { cursor: ids.at(-1), counts: { records, attachments } };
}

/** The `error` of an attachment erased with a person (its file deleted, its download ended). */
export const ERASED_ATTACHMENT = 'erased with a person it named';

/** As the worker counts a failed download: the batch's counter, and its download status once every one is final. */
async function countFailedDownload(c: Client, batchId: string): Promise<void> {
  const { rows: [batch] } = await c.query<{ total: number; complete: number; failed: number; status: DownloadStatus | null }>(
    `UPDATE batches SET attachment_download_failed = attachment_download_failed + 1, updated_at = now() WHERE id = $1
     RETURNING attachment_download_total AS total, attachment_download_complete AS complete, attachment_download_failed AS failed, attachment_download_status AS status`,
    [batchId],
  );
  const final = batch && finalDownloadStatus(batch.total, batch.complete, batch.failed);
  if (batch?.status && final && (batch.status === 'PENDING' || batch.status === 'IN_PROGRESS')) await transitionDownloads(c, batchId, batch.status, final);
}

/** True when an attachment was erased with a person: a download that finishes after that deletes its file. */
export async function attachmentWasErased(db: Pick<pg.Pool, 'query'>, attachmentId: string): Promise<boolean> {
  const { rowCount } = await db.query('SELECT 1 FROM attachments WHERE id = $1 AND storage_key IS NULL AND starts_with(error, $2)', [attachmentId, ERASED_ATTACHMENT]);
  return (rowCount ?? 0) > 0;
}

/**
 * Sources: a segment the person spoke is erased whole (text and speaker); elsewhere their name, address
 * and id are replaced; they leave the participant list. The search document is rebuilt, and the vector
 * dropped and queued again: a new seq (source_semantics) makes every MCP server's index replace the old one.
 */
async function redactSources(c: Client, x: Ctx): Promise<Step> {
  const ids = await chunkIds(c, 'sources', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const p = x.m.likePatterns();
  const { rows } = await c.query<{ id: string; title: string; participants: unknown; tags: string[]; thread_id: string | null; external_id: string | null }>(
    `SELECT s.id, s.title, s.participants, s.tags, s.thread_id, s.external_id FROM sources s
      WHERE s.workspace_id = $1 AND s.id = ANY($2)
        AND (concat_ws(' ', s.title, s.participants::text, s.thread_id, s.external_id, array_to_string(s.tags, ' ')) ILIKE ANY($3)
             OR EXISTS (SELECT 1 FROM source_segments g WHERE g.source_id = s.id AND concat_ws(' ', g.speaker, g.heading, g.text) ILIKE ANY($3)))
      ORDER BY s.id FOR UPDATE`,
    [x.workspaceId, ids, p],
  );
  const changed: string[] = [];
  let segments = 0;
  for (const s of rows) {
    const { rows: segs } = await c.query<{ position: number; speaker: string | null; heading: string | null; text: string }>(
      'SELECT position, speaker, heading, text FROM source_segments WHERE source_id = $1 ORDER BY position', [s.id],
    );
    const updates = segs.flatMap((g) => {
      const theirs = g.speaker !== null && x.m.isPerson(g.speaker);
      const next = theirs
        ? { position: g.position, speaker: ERASED, heading: g.heading === null ? null : x.m.redact(g.heading), text: ERASED }
        : { position: g.position, speaker: g.speaker === null ? null : x.m.redact(g.speaker), heading: g.heading === null ? null : x.m.redact(g.heading), text: x.m.redact(g.text) };
      return next.speaker !== g.speaker || next.heading !== g.heading || next.text !== g.text ? [next] : [];
    });
    const head = x.m.mentionsJson([s.title, s.participants, s.tags, s.thread_id, s.external_id]);
    if (!updates.length && !head) continue;
    if (updates.length) {
      await c.query(
        `UPDATE source_segments g SET speaker = u.speaker, heading = u.heading, text = u.text
           FROM json_to_recordset($2::json) AS u(position int, speaker text, heading text, text text)
          WHERE g.source_id = $1 AND g.position = u.position`,
        [s.id, JSON.stringify(updates)],
      );
    }
    await c.query(
      `WITH vector AS (
         UPDATE source_semantics SET pending = true, vector = NULL, version = NULL, seq = nextval('source_semantic_seq') WHERE workspace_id = $1 AND source_id = $2)
       UPDATE sources SET title = $3, participants = $4, tags = $5, thread_id = $6, external_id = $7
        WHERE workspace_id = $1 AND id = $2`,
      [x.workspaceId, s.id, x.m.redact(s.title), JSON.stringify(x.m.withoutPerson(s.participants)), (s.tags ?? []).map((t) => x.m.redact(t)),
        s.thread_id === null ? null : x.m.redact(s.thread_id), s.external_id === null ? null : x.m.redact(s.external_id)],
    );
    changed.push(s.id);
    segments += updates.length;
  }
  if (changed.length) await refreshSearchDocuments(c, changed);
  return { cursor: ids.at(-1), counts: { sources: changed.length, segments }, embed: changed.length > 0 };
}

const normalise = (text: string) => text.trim().replace(/\s+/g, ' ').toLowerCase();

/** deleteSignals of what is left of `ids`: another erasure of the same person may have deleted some first. */
async function deleteWhatIsLeft(x: Ctx, ids: string[]): Promise<number> {
  const by = { userId: x.by.userId ?? x.by.keyId ?? '', email: `erasure ${x.erasureId}` };
  for (let left = ids; left.length;) {
    try {
      return (await deleteSignals(x.deps.pool, x.workspaceId, left, by, x.deps.clock)).deleted;
    } catch (error) {
      if (!(error instanceof SignalNotFoundError)) throw error;
      const { rows: still } = await x.deps.pool.query<{ id: string }>('SELECT id FROM signals WHERE workspace_id = $1 AND id = ANY($2)', [x.workspaceId, left]);
      if (still.length === left.length) throw error;
      left = still.map((r) => r.id);
    }
  }
  return 0;
}

/**
 * Signals: one the person said (their participant id, or their name as who said it) is deleted, as a
 * person deletes one on the pages (its opportunity's counts follow), its history erased; one that only
 * mentions them is redacted and embedded and placed again.
 */
async function redactSignals(x: Ctx): Promise<Step> {
  const { pool } = x.deps;
  const ids = await chunkIds(pool as unknown as Client, 'signals', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const { rows } = await pool.query<{ id: string; source_id: string; product_id: string; type_id: string; title: string; content: string; theme: string | null; who_said_it: string | null; participant_id: string | null; keywords: string[] }>(
    `SELECT id, source_id, product_id, type_id, title, content, theme, who_said_it, participant_id, keywords FROM signals
      WHERE workspace_id = $1 AND id = ANY($2)
        AND concat_ws(' ', title, content, theme, who_said_it, participant_id, array_to_string(keywords, ' ')) ILIKE ANY($3) ORDER BY id`,
    [x.workspaceId, ids, x.m.likePatterns()],
  );
  const theirs = rows.filter((r) => x.m.isPerson(r.participant_id ?? '') || x.m.isPerson(r.who_said_it ?? ''));
  const products = new Set<string>();
  let deleted = 0;
  if (theirs.length) {
    const gone = theirs.map((r) => r.id);
    const { rows: opps } = await pool.query<{ opportunity_id: string }>(
      'SELECT DISTINCT opportunity_id FROM opportunity_signals WHERE signal_id = ANY($1)', [gone],
    );
    deleted = await deleteWhatIsLeft(x, gone);
    await renameOpportunities(pool, x.workspaceId, opps.map((o) => o.opportunity_id), gone);
    // deleteSignals keeps a deleted signal's text in its history: not this one's.
    await pool.query(
      `UPDATE signal_changes SET detail = jsonb_build_object('erased', true, 'erasure_id', $3::text) WHERE workspace_id = $1 AND signal_id = ANY($2)`,
      [x.workspaceId, theirs.map((r) => r.id), x.erasureId],
    );
    for (const r of theirs) products.add(r.product_id);
  }
  const mentions = rows.filter((r) => !theirs.includes(r) && x.m.mentionsJson([r.title, r.content, r.theme, r.who_said_it, r.participant_id, r.keywords]));
  // Two signals of a source that differ only by how they named the person are the same signal once
  // redacted: the later one goes (as a person deletes a duplicate), the first keeps the redacted text.
  const duplicates: string[] = [];
  if (mentions.length) {
    await withTransaction(pool, async (c) => {
      for (const r of mentions) {
        const content = x.m.redact(r.content);
        const hash = createHash('sha256').update(`${r.type_id}\n${normalise(content)}`).digest('hex');
        const { rowCount } = await c.query(
          'SELECT 1 FROM signals WHERE workspace_id = $1 AND source_id = $2 AND type_id = $3 AND content_hash = $4 AND id <> $5',
          [x.workspaceId, r.source_id, r.type_id, hash, r.id],
        );
        if (rowCount) {
          duplicates.push(r.id);
          continue;
        }
        await c.query(
          `UPDATE signals SET title = $3, content = $4, theme = $5, who_said_it = $6, content_hash = $7, keywords = '{}',
                  embedding = NULL, embedding_version = NULL, cluster_pending = true, updated_at = $8
            WHERE workspace_id = $1 AND id = $2`,
          [x.workspaceId, r.id, x.m.redact(r.title), content, r.theme === null ? null : x.m.redact(r.theme), r.who_said_it === null ? null : x.m.redact(r.who_said_it),
            hash, new Date(x.deps.clock.now())],
        );
        products.add(r.product_id);
      }
    });
  }
  if (duplicates.length) {
    deleted += await deleteWhatIsLeft(x, duplicates);
    await pool.query(
      `UPDATE signal_changes SET detail = jsonb_build_object('erased', true, 'erasure_id', $3::text) WHERE workspace_id = $1 AND signal_id = ANY($2)`,
      [x.workspaceId, duplicates, x.erasureId],
    );
  }
  return { cursor: ids.at(-1), counts: { signalsDeleted: deleted, signalsRedacted: mentions.length - duplicates.length }, products: [...products] };
}

/**
 * An opportunity is named after one of its signals and keyed by their words: where the person's signal
 * named it, the remaining member written first takes its place (as deleting a source does), and only
 * keywords a remaining member still has stay. The next clustering names it afresh.
 */
async function renameOpportunities(pool: pg.Pool, workspaceId: string, opportunityIds: string[], deletedSignals: string[]): Promise<void> {
  if (!opportunityIds.length) return;
  await pool.query(
    `UPDATE opportunities o SET central_signal_id = x.id, title = x.title
       FROM (SELECT DISTINCT ON (os.opportunity_id) os.opportunity_id, s.id, s.title
               FROM opportunity_signals os JOIN signals s ON s.id = os.signal_id AND s.workspace_id = $1
              WHERE os.opportunity_id = ANY($2) ORDER BY os.opportunity_id, s.created_at, s.id) x
      WHERE o.workspace_id = $1 AND o.id = x.opportunity_id AND (o.central_signal_id IS NULL OR o.central_signal_id = ANY($3))`,
    [workspaceId, opportunityIds, deletedSignals],
  );
  const { rows } = await pool.query<{ id: string; evidence_count: number; unique_company_count: number; keywords: string[] }>(
    `UPDATE opportunities o SET keywords = ARRAY(SELECT k FROM unnest(o.keywords) WITH ORDINALITY AS k(k, i)
              WHERE EXISTS (SELECT 1 FROM opportunity_signals os JOIN signals s ON s.id = os.signal_id WHERE os.opportunity_id = o.id AND k.k = ANY(s.keywords))
              ORDER BY k.i)
      WHERE o.workspace_id = $1 AND o.id = ANY($2) RETURNING o.id, o.evidence_count, o.unique_company_count, o.keywords`,
    [workspaceId, opportunityIds],
  );
  for (const r of rows) {
    await pool.query('UPDATE opportunities SET subtitle = $3 WHERE workspace_id = $1 AND id = $2',
      [workspaceId, r.id, subtitleOf(r.evidence_count, r.unique_company_count, r.keywords)]);
  }
}

async function redactSignalChanges(c: Client, x: Ctx): Promise<Step> {
  const ids = await chunkIds(c, 'signal_changes', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const { rows } = await c.query<{ id: string; by_email: string; detail: unknown }>(
    `SELECT id, by_email, detail FROM signal_changes WHERE workspace_id = $1 AND id = ANY($2) AND concat_ws(' ', by_email, detail::text) ILIKE ANY($3) ORDER BY id FOR UPDATE`,
    [x.workspaceId, ids, x.m.likePatterns()],
  );
  let n = 0;
  for (const r of rows) {
    if (!x.m.mentionsJson([r.by_email, r.detail])) continue;
    await c.query('UPDATE signal_changes SET by_email = $3, detail = $4 WHERE workspace_id = $1 AND id = $2',
      [x.workspaceId, r.id, x.m.redact(r.by_email), JSON.stringify(x.m.redactJson(r.detail))]);
    n++;
  }
  return { cursor: ids.at(-1), counts: { signalChanges: n } };
}

/** An opportunity's name and keywords come from its signals' text: redacted now, named again by the next clustering. */
async function redactOpportunities(c: Client, x: Ctx): Promise<Step> {
  const ids = await chunkIds(c, 'opportunities', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const { rows } = await c.query<{ id: string; product_id: string; title: string; subtitle: string; keywords: string[] }>(
    `SELECT id, product_id, title, subtitle, keywords FROM opportunities WHERE workspace_id = $1 AND id = ANY($2)
        AND concat_ws(' ', title, subtitle, array_to_string(keywords, ' ')) ILIKE ANY($3) ORDER BY id FOR UPDATE`,
    [x.workspaceId, ids, x.m.likePatterns()],
  );
  const touched = rows.filter((r) => x.m.mentionsJson([r.title, r.subtitle, r.keywords]));
  for (const r of touched) {
    await c.query('UPDATE opportunities SET title = $3, subtitle = $4, keywords = $5 WHERE workspace_id = $1 AND id = $2',
      [x.workspaceId, r.id, x.m.redact(r.title), x.m.redact(r.subtitle), (r.keywords ?? []).filter((k) => !x.m.mentions(k))]);
  }
  return { cursor: ids.at(-1), counts: { opportunities: touched.length }, products: [...new Set(touched.map((r) => r.product_id))] };
}

/** Shaping notes and every stored version of them: a quotation naming the person goes whole. */
async function redactShapingNotes(c: Client, x: Ctx): Promise<Step> {
  const ids = await chunkIds(c, 'shaping_notes', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const p = x.m.likePatterns();
  const { rows } = await c.query<{ id: string }>(
    `SELECT n.id FROM shaping_notes n WHERE n.workspace_id = $1 AND n.id = ANY($2)
        AND (concat_ws(' ', n.title, n.subtitle, n.content, array_to_string(n.tags, ' ')) ILIKE ANY($3)
             OR EXISTS (SELECT 1 FROM shaping_note_versions v WHERE v.note_id = n.id AND concat_ws(' ', v.title, v.subtitle, v.content, array_to_string(v.tags, ' ')) ILIKE ANY($3)))
      ORDER BY n.id FOR UPDATE`,
    [x.workspaceId, ids, p],
  );
  let n = 0;
  const fix = (t: { title: string; subtitle: string | null; content: string; tags: string[] }) => ({
    title: x.m.redact(t.title), subtitle: t.subtitle === null ? null : x.m.redact(t.subtitle), content: x.m.redactMarkdown(t.content), tags: (t.tags ?? []).map((g) => x.m.redact(g)),
  });
  for (const { id } of rows) {
    const { rows: [note] } = await c.query<{ title: string; subtitle: string | null; content: string; tags: string[] }>(
      'SELECT title, subtitle, content, tags FROM shaping_notes WHERE id = $1', [id],
    );
    const f = fix(note!);
    await c.query('UPDATE shaping_notes SET title = $2, subtitle = $3, content = $4, tags = $5 WHERE id = $1', [id, f.title, f.subtitle, f.content, f.tags]);
    const { rows: versions } = await c.query<{ version: number; title: string; subtitle: string | null; content: string; tags: string[] }>(
      'SELECT version, title, subtitle, content, tags FROM shaping_note_versions WHERE note_id = $1 ORDER BY version FOR UPDATE', [id],
    );
    for (const v of versions) {
      const g = fix(v);
      await c.query('UPDATE shaping_note_versions SET title = $3, subtitle = $4, content = $5, tags = $6 WHERE note_id = $1 AND version = $2',
        [id, v.version, g.title, g.subtitle, g.content, g.tags]);
    }
    n++;
  }
  return { cursor: ids.at(-1), counts: { shapingNotes: n } };
}

/** A POSIX regular expression of the needles, for text redacted in SQL (job payloads and results). */
function posixPattern(m: Matcher): string {
  return m.needles.map((n) => n.replace(/[^\p{L}\p{N}\s]/gu, '\\$&')).join('|');
}

/**
 * Copies the person may have left elsewhere in the workspace: the first record errors kept with a batch,
 * the answers an Idempotency-Key replays, the workspace's own skills (the team's writing may quote a
 * customer), and pg-boss's jobs of the workspace (their payloads carry ids
 * only, but a result or an error message may quote what it read). Bounded: each statement changes at
 * most a slice of rows, and the phase repeats until nothing matches.
 */
async function redactOther(c: Client, x: Ctx): Promise<Step> {
  const p = x.m.likePatterns();
  let n = 0;
  const { rows: batches } = await c.query<{ id: string; errors: unknown }>(
    `SELECT id, errors FROM batches WHERE workspace_id = $1 AND errors::text ILIKE ANY($2) ORDER BY id LIMIT ${ERASURE_SLICE} FOR UPDATE`, [x.workspaceId, p],
  );
  for (const b of batches) {
    if (!x.m.mentionsJson(b.errors)) continue;
    await c.query('UPDATE batches SET errors = $2 WHERE id = $1', [b.id, JSON.stringify(x.m.redactJson(b.errors))]);
    n++;
  }
  const { rows: replays } = await c.query<{ key: string; response_body: unknown }>(
    `SELECT key, response_body FROM idempotency_keys WHERE workspace_id = $1 AND response_body::text ILIKE ANY($2) ORDER BY key LIMIT ${ERASURE_SLICE} FOR UPDATE`,
    [x.workspaceId, p],
  );
  for (const r of replays) {
    if (!x.m.mentionsJson(r.response_body)) continue;
    await c.query('UPDATE idempotency_keys SET response_body = $3::json WHERE workspace_id = $1 AND key = $2', [x.workspaceId, r.key, JSON.stringify(x.m.redactJson(r.response_body))]);
    n++;
  }
  const { rows: skills } = await c.query<{ id: string; title: string; description: string; body: string }>(
    `SELECT id, title, description, body FROM workspace_skills WHERE workspace_id = $1 AND concat_ws(' ', title, description, body) ILIKE ANY($2)
      ORDER BY id LIMIT ${ERASURE_SLICE} FOR UPDATE`, [x.workspaceId, p],
  );
  for (const k of skills) {
    if (!x.m.mentionsJson([k.title, k.description, k.body])) continue;
    await c.query('UPDATE workspace_skills SET title = $2, description = $3, body = $4 WHERE id = $1',
      [k.id, x.m.redact(k.title), x.m.redact(k.description), x.m.redactMarkdown(k.body)]);
    n++;
  }
  const { rowCount } = await c.query(
    `UPDATE pgboss.job SET data = regexp_replace(data::text, $3, $4, 'gi')::jsonb, output = regexp_replace(output::text, $3, $4, 'gi')::jsonb
      WHERE id IN (SELECT id FROM pgboss.job WHERE data->>'workspaceId' = $1 AND concat_ws(' ', data::text, output::text) ILIKE ANY($2) LIMIT ${ERASURE_SLICE})`,
    [x.workspaceId, p, posixPattern(x.m), ERASED],
  );
  n += rowCount ?? 0;
  return { cursor: n > 0 ? 'more' : undefined, counts: { other: n } };
}

function addCounts(a: ErasureCounts, b: ErasureCounts | undefined): ErasureCounts {
  const out: Record<string, number> = { ...a } as Record<string, number>;
  for (const [k, v] of Object.entries(b ?? {})) out[k] = (out[k] ?? 0) + (v ?? 0);
  return out as ErasureCounts;
}

type State = { status: string; phase: Phase; cursor: string; subject: Subject | null; counts: ErasureCounts; requested_by: string; requested_by_user_id: string | null; requested_by_key_id: string | null };

/**
 * Runs an erasure to its end, a slice at a time. Each slice's writes and the request's progress (phase,
 * cursor, counts) commit together under a lock of the request row, so a retried or duplicated job
 * carries on where the last slice ended and never repeats one. Two erasures of the same person lock the
 * rows they change in id order and find nothing left to do where the other has been.
 */
export async function runErasure(deps: ErasureDeps, workspaceId: string, erasureId: string, options: { signal?: AbortSignal; maxSlices?: number } = {}): Promise<{ status: string; slices: number }> {
  let slices = 0;
  for (;;) {
    if (options.signal?.aborted) throw new Error('erasure stopped by shutdown; the retry carries on');
    if (options.maxSlices !== undefined && slices >= options.maxSlices) return { status: 'running', slices };
    const outcome = await withTransaction(deps.pool, async (c) => {
      const { rows: [state] } = await c.query<State>(
        `SELECT status, phase, cursor, subject, counts, requested_by, requested_by_user_id, requested_by_key_id FROM erasure_requests WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
        [workspaceId, erasureId],
      );
      if (!state) return { done: true, status: 'missing' };
      if (state.status === 'complete' || state.status === 'failed') return { done: true, status: state.status };
      const now = new Date(deps.clock.now());
      if (state.phase === 'done' || !state.subject) {
        // Every address and participant id found for the person is suppressed too, not only the one asked for.
        for (const [kind, values] of [['email', state.subject?.emails ?? []], ['participant_id', state.subject?.ids ?? []]] as const) {
          for (const value of values) {
            await addSuppression(c, { workspaceId, kind, value, erasureId, by: state.requested_by, now });
          }
        }
        await c.query(
          `UPDATE erasure_requests SET status = 'complete', phase = 'done', cursor = '', subject = NULL, updated_at = $3, completed_at = $3 WHERE workspace_id = $1 AND id = $2`,
          [workspaceId, erasureId, now],
        );
        return { done: true, status: 'complete' };
      }
      const x: Ctx = {
        deps, workspaceId, erasureId, subject: state.subject, m: new Matcher(state.subject), cursor: state.cursor,
        by: { userId: state.requested_by_user_id, keyId: state.requested_by_key_id },
      };
      const step = await runPhase(c, state.phase, x);
      const nextPhase = step.cursor === undefined ? PHASES[PHASES.indexOf(state.phase) + 1]! : state.phase;
      await c.query(
        `UPDATE erasure_requests SET status = 'running', phase = $3, cursor = $4, counts = $5, subject = $6, updated_at = $7 WHERE workspace_id = $1 AND id = $2`,
        [workspaceId, erasureId, nextPhase, step.cursor ?? '', JSON.stringify(addCounts(state.counts, step.counts)), JSON.stringify(step.subject ?? state.subject), now],
      );
      return { done: false, status: 'running', step };
    });
    slices++;
    if (outcome.done) return { status: outcome.status, slices };
    const step = outcome.step!;
    for (const productId of step.products ?? []) {
      await enqueue(deps.boss, QUEUES.recomputeOpportunities, { workspaceId, productId });
      await enqueue(deps.boss, QUEUES.settleOpportunities, { workspaceId, productId }, { startAfter: 30 });
    }
    if (step.embed) await enqueue(deps.boss, QUEUES.embedSources, { workspaceId });
  }
}

function runPhase(c: Client, phase: Phase, x: Ctx): Promise<Step> {
  switch (phase) {
    case 'discover_records': return discoverRecords(c, x);
    case 'discover_sources': return discoverSources(c, x);
    case 'discover_signals': return discoverSignals(c, x);
    case 'records': return redactRecords(c, x);
    case 'sources': return redactSources(c, x);
    // deleteSignals takes its own transactions; this slice's progress is saved after them
    case 'signals': return redactSignals(x);
    case 'signal_changes': return redactSignalChanges(c, x);
    case 'opportunities': return redactOpportunities(c, x);
    case 'shaping_notes': return redactShapingNotes(c, x);
    case 'other': return redactOther(c, x);
    case 'done': return Promise.resolve({ cursor: undefined });
  }
}

/** Marks an erasure failed (its job is out of retries); the message names no data. */
export async function failErasure(pool: pg.Pool, workspaceId: string, erasureId: string, message: string, now: Date): Promise<void> {
  await pool.query(
    `UPDATE erasure_requests SET status = 'failed', error = $3, updated_at = $4 WHERE workspace_id = $1 AND id = $2 AND status IN ('queued', 'running')`,
    [workspaceId, erasureId, message.slice(0, 500), now],
  );
}
