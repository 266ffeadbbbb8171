import { createHash } from 'node:crypto';
import { finalDownloadStatus, transitionDownloads, type DownloadStatus } from '@loupe/batches';
import { withTransaction } from '@loupe/db';
import { deleteSignals, lockProduct, SignalNotFoundError, subtitleOf } from '@loupe/evidence';
import type { Clock } from '@loupe/http';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { deleteFiles } from '@loupe/lifecycle';
import { EMPTY_VOCABULARY, refreshSearchDocuments } from '@loupe/sources';
import type { Storage } from '@loupe/storage';
import type pg from 'pg';
import {
  chunkIds, discoverRecords, discoverSignals, discoverSources, ERASURE_SLICE, sharedInRecords, sharedInSignals, sharedInSources, type DiscoveryStep,
} from './discover';
import { ERASED, foldIdentifier, localNames, Matcher } from './match';
import type { ErasureCounts } from './requests';
import {
  activeSubject, addSample, firstDifference, offeredNames, PREVIEW_TTL_MS, readState, type SampleKind, type SubjectState,
} from './subject';
import { addSuppression } from './suppressions';

export { ERASURE_SLICE } from './discover';

export interface ErasureDeps {
  pool: pg.Pool;
  boss: Boss;
  storage: Storage;
  clock: Clock;
  log?: { warn(obj: object, msg: string): void };
}

/**
 * The order of the work. Discovery comes first: it reads what the participant entries carrying the
 * given address or id also say (their other address and id, their names), then checks which of those
 * another participant carries too (shared: never used). Nothing is changed before `records`. Signals
 * come before sources, since a signal's speaker is read against its source's participant list, which
 * the `sources` phase takes the person out of; signal history after signals.
 */
export const PHASES = [
  'discover_records', 'discover_sources', 'discover_signals', 'shared_records', 'shared_sources', 'shared_signals',
  'records', 'signals', 'signal_changes', 'sources', 'opportunities', 'shaping_notes', 'people', 'other', 'done',
] as const;
export type Phase = (typeof PHASES)[number];

type Client = pg.PoolClient;
interface Step {
  /** The last id looked at, or undefined when the table is done. */
  cursor: string | undefined;
  counts?: ErasureCounts;
  /** Products whose opportunities must be placed again. */
  products?: string[];
  /** Whether sources must be embedded again. */
  embed?: boolean;
  /** Storage keys written down in storage_deletions by this slice: deleted once it commits. */
  files?: string[];
}

/**
 * One slice's context. `m` finds the person (addresses, ids, confirmed names). In a dry run nothing is
 * written: each phase counts and samples what it would change, and `offered` holds, per name the
 * preview offers, a matcher with that name too, to count what confirming it would add.
 */
type Ctx = {
  deps: ErasureDeps; workspaceId: string; erasureId: string; by: { userId: string | null; keyId: string | null };
  state: SubjectState; m: Matcher; cursor: string; dry: boolean; offered: Array<{ name: string; m: Matcher }>;
};

const lock = (x: Ctx) => (x.dry ? '' : 'FOR UPDATE');
const same = (a: unknown, b: unknown) => JSON.stringify(a) === JSON.stringify(b);

/** In a dry run, a row the person's identifiers leave alone: counted for each offered name that would change it. */
function countOffered(x: Ctx, changes: (m: Matcher) => boolean): void {
  const mentions = x.state.preview?.mentions;
  if (!mentions) return;
  for (const o of x.offered) if (changes(o.m)) mentions[o.name] = (mentions[o.name] ?? 0) + 1;
}

function sample(x: Ctx, kind: SampleKind, id: string, before: unknown, after: unknown, deleted = false): void {
  if (deleted) {
    const text = typeof before === 'string' ? before : JSON.stringify(before);
    addSample(x.state, { kind, id, field: '', before: text.length > 160 ? `${text.slice(0, 160)}…` : text, after: null });
    return;
  }
  const d = firstDifference(before, after, '');
  if (d) addSample(x.state, { kind, id, ...d });
}

type RecordRow = { id: string; participants: unknown; vendor_ids: unknown; pii: unknown; data: string; thread_id: string | null; tags: string[] | null };

/** A record as it is after the person is taken out (`m.scoped` by the names its own participant list gives them). */
function redactedRecord(m: Matcher, r: RecordRow, data: unknown) {
  const s = m.scoped(localNames(m, r.participants));
  return {
    participants: r.participants === null ? null : s.withoutPerson(r.participants),
    vendor_ids: s.redactJson(r.vendor_ids),
    pii: r.pii === null ? null : s.redactJson(r.pii),
    data: s.redactJson(data, true),
    thread_id: r.thread_id === null ? null : s.redact(r.thread_id),
    tags: r.tags === null ? null : r.tags.map((t) => s.redact(t)),
  };
}

/**
 * Records: their JSON redacted in place (participants without the person); their attachments' files
 * written down in storage_deletions with the slice and deleted from storage once it commits (a
 * rolled-back slice leaves them; a crash after the commit leaves them to the worker's sweep).
 */
async function redactRecords(c: Client, x: Ctx): Promise<Step> {
  const ids = await chunkIds(c, 'records', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const patterns = likeAll(x);
  const { rows } = await c.query<RecordRow>(
    `SELECT id, participants, vendor_ids, pii, data::text AS data, thread_id, tags FROM records
      WHERE workspace_id = $1 AND id = ANY($2)
        AND concat_ws(' ', participants::text, vendor_ids::text, pii::text, data::text, thread_id, array_to_string(tags, ' ')) ILIKE ANY($3)
      ORDER BY id ${lock(x)}`,
    [x.workspaceId, ids, patterns],
  );
  let records = 0;
  let attachments = 0;
  const keys: string[] = [];
  for (const r of rows) {
    const data = JSON.parse(r.data) as unknown;
    const before = { participants: r.participants, vendor_ids: r.vendor_ids, pii: r.pii, data, thread_id: r.thread_id, tags: r.tags };
    const next = redactedRecord(x.m, r, data);
    if (same(before, next)) {
      if (x.dry) countOffered(x, (m) => !same(before, redactedRecord(m, r, data)));
      continue;
    }
    records++;
    // A file cannot be redacted: the recording, picture or document of a record that names the person
    // may carry their voice, face or words, so it goes; the row stays (the batch's counts stay true).
    const { rows: files } = await c.query<{ id: string; batch_id: string; storage_key: string | null; status: string }>(
      `SELECT id, batch_id, storage_key, status::text AS status FROM attachments WHERE workspace_id = $1 AND record_id = $2
          AND NOT (storage_key IS NULL AND starts_with(coalesce(error, ''), $3)) ORDER BY id ${lock(x)}`,
      [x.workspaceId, r.id, ERASED_ATTACHMENT],
    );
    attachments += files.length;
    if (x.dry) {
      recordSample(x, r.id, before, next);
      continue;
    }
    await c.query(
      `UPDATE records SET participants = $3, vendor_ids = $4, pii = $5, data = $6::json, thread_id = $7, tags = $8 WHERE workspace_id = $1 AND id = $2`,
      [x.workspaceId, r.id, next.participants === null ? null : JSON.stringify(next.participants), JSON.stringify(next.vendor_ids),
        next.pii === null ? null : JSON.stringify(next.pii), JSON.stringify(next.data), next.thread_id, next.tags ?? []],
    );
    for (const f of files) {
      if (f.storage_key) keys.push(f.storage_key);
      // A download not finished yet ends here, counted as failed like any other (the batch's download
      // status settles); a download in flight then finds it final and deletes the file it stored.
      const pending = f.status === 'PENDING' || f.status === 'DOWNLOADING';
      await c.query(
        `UPDATE attachments SET storage_key = NULL, filename = NULL, vendor_url = NULL, upload_intent_id = NULL, sha1 = NULL, md5 = NULL,
                status = CASE WHEN $4 THEN 'FAILED'::attachment_status ELSE status END, error = $3, updated_at = now() WHERE workspace_id = $1 AND id = $2`,
        [x.workspaceId, f.id, `${ERASED_ATTACHMENT} (erasure ${x.erasureId})`, pending],
      );
      if (pending) await countFailedDownload(c, f.batch_id);
    }
  }
  if (keys.length) {
    await c.query(
      'INSERT INTO storage_deletions (key, workspace_id, created_at) SELECT unnest($1::text[]), $2, $3 ON CONFLICT (key) DO NOTHING',
      [keys, x.workspaceId, new Date(x.deps.clock.now())],
    );
  }
  return { cursor: ids.at(-1), counts: { records, attachments }, files: keys };
}

/** A record's sample: the first change in its content, or else the participant entries that go. */
function recordSample(x: Ctx, id: string, before: ReturnType<typeof redactedRecord>, next: ReturnType<typeof redactedRecord>): void {
  for (const k of ['data', 'pii', 'vendor_ids', 'thread_id', 'tags'] as const) {
    const d = firstDifference(before[k], next[k], k);
    if (d) {
      addSample(x.state, { kind: 'record', id, ...d });
      return;
    }
  }
  const kept = Array.isArray(next.participants) ? next.participants : [];
  const gone = Array.isArray(before.participants) ? before.participants.filter((p) => !kept.some((q) => same(p, q))) : [];
  const text = JSON.stringify(gone);
  addSample(x.state, { kind: 'record', id, field: 'participants', before: text.length > 160 ? `${text.slice(0, 160)}…` : text, after: '(removed)' });
}

/** The ILIKE pre-filter: the person, and in a dry run the names offered (to count what each would add). */
function likeAll(x: Ctx): string[] {
  return [...new Set([...x.m.likePatterns(), ...x.offered.flatMap((o) => o.m.likePatterns())])];
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

type SourceRow = { id: string; title: string; participants: unknown; tags: string[] | null; thread_id: string | null; external_id: string | null };
type SegmentRow = { position: number; speaker: string | null; heading: string | null; text: string };

/** A source after the person is taken out: a segment they spoke (its speaker is them) erased whole, elsewhere mentions replaced. */
function redactedSource(m: Matcher, s: SourceRow, segs: SegmentRow[]) {
  const scoped = m.scoped(localNames(m, s.participants));
  const segments = segs.flatMap((g) => {
    const theirs = g.speaker !== null && scoped.identifies(g.speaker);
    const next = theirs
      ? { position: g.position, speaker: ERASED, heading: g.heading === null ? null : scoped.redact(g.heading), text: ERASED }
      : { position: g.position, speaker: g.speaker === null ? null : scoped.redact(g.speaker), heading: g.heading === null ? null : scoped.redact(g.heading), text: scoped.redact(g.text) };
    return next.speaker !== g.speaker || next.heading !== g.heading || next.text !== g.text ? [{ next, before: g }] : [];
  });
  const head = {
    title: scoped.redact(s.title), participants: scoped.withoutPerson(s.participants), tags: s.tags === null ? null : s.tags.map((t) => scoped.redact(t)),
    thread_id: s.thread_id === null ? null : scoped.redact(s.thread_id), external_id: s.external_id === null ? null : scoped.redact(s.external_id),
  };
  const headBefore = { title: s.title, participants: s.participants, tags: s.tags, thread_id: s.thread_id, external_id: s.external_id };
  return { segments, head, headBefore, changed: segments.length > 0 || !same(head, headBefore) };
}

/**
 * Sources: a segment the person spoke is erased whole (text and speaker); elsewhere their address, id
 * and confirmed names are replaced; they leave the participant list. The search document is rebuilt,
 * and the vector dropped and queued again: a new seq (source_semantics) makes every MCP server's index
 * replace the old one.
 */
async function redactSources(c: Client, x: Ctx): Promise<Step> {
  const ids = await chunkIds(c, 'sources', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const p = likeAll(x);
  const { rows } = await c.query<SourceRow>(
    `SELECT s.id, s.title, s.participants, s.tags, s.thread_id, s.external_id FROM sources s
      WHERE s.workspace_id = $1 AND s.id = ANY($2)
        AND (concat_ws(' ', s.title, s.participants::text, s.thread_id, s.external_id, array_to_string(s.tags, ' ')) ILIKE ANY($3)
             OR EXISTS (SELECT 1 FROM source_segments g WHERE g.source_id = s.id AND concat_ws(' ', g.speaker, g.heading, g.text) ILIKE ANY($3)))
      ORDER BY s.id ${lock(x)}`,
    [x.workspaceId, ids, p],
  );
  const changed: string[] = [];
  let segments = 0;
  for (const s of rows) {
    const { rows: segs } = await c.query<SegmentRow>('SELECT position, speaker, heading, text FROM source_segments WHERE source_id = $1 ORDER BY position', [s.id]);
    const plan = redactedSource(x.m, s, segs);
    if (!plan.changed) {
      if (x.dry) countOffered(x, (m) => redactedSource(m, s, segs).changed);
      continue;
    }
    changed.push(s.id);
    segments += plan.segments.length;
    if (x.dry) {
      const first = plan.segments[0];
      if (first) sample(x, 'source', s.id, { segment: `${first.before.speaker ?? ''}: ${first.before.text}` }, { segment: `${first.next.speaker ?? ''}: ${first.next.text}` });
      else sample(x, 'source', s.id, plan.headBefore, plan.head);
      continue;
    }
    if (plan.segments.length) {
      await c.query(
        `UPDATE source_segments g SET speaker = u.speaker, heading = u.heading, text = u.text
           FROM json_to_recordset($2::json) AS u(position int, speaker text, heading text, text text)
          WHERE g.source_id = $1 AND g.position = u.position`,
        [s.id, JSON.stringify(plan.segments.map((u) => u.next))],
      );
    }
    await c.query(
      `WITH vector AS (
         UPDATE source_semantics SET pending = true, vector = NULL, version = NULL, seq = nextval('source_semantic_seq') WHERE workspace_id = $1 AND source_id = $2)
       UPDATE sources SET title = $3, participants = $4, tags = $5, thread_id = $6, external_id = $7
        WHERE workspace_id = $1 AND id = $2`,
      [x.workspaceId, s.id, plan.head.title, JSON.stringify(plan.head.participants), plan.head.tags ?? [], plan.head.thread_id, plan.head.external_id],
    );
  }
  if (changed.length && !x.dry) {
    await refreshSearchDocuments(c, changed);
    // The workspace's vocabulary for search may hold the person's words: emptied, learned again once these are embedded.
    await c.query(EMPTY_VOCABULARY, [x.workspaceId, new Date(x.deps.clock.now())]);
  }
  return { cursor: ids.at(-1), counts: { sources: changed.length, segments }, embed: changed.length > 0 && !x.dry };
}

const normalise = (value: string) => value.trim().replace(/\s+/g, ' ').toLowerCase();

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

type SignalRow = {
  id: string; source_id: string; product_id: string; type_id: string; title: string; content: string; theme: string | null;
  who_said_it: string | null; participant_id: string | null; keywords: string[]; source_participants: unknown;
  /** The exact words given, and each quote checked against the source with the speaker found (issue 48). */
  quote: string | null; quotes: Array<{ text: string; speaker?: string }> | null;
};

/**
 * Whether the person said a signal: its participant id is theirs; without one, who said it is them
 * (equal to their address, id or a confirmed name, or to the name their entry has in the signal's
 * source). A signal with another participant's id is never theirs, whatever name it gives.
 */
function saidBy(m: Matcher, r: SignalRow): boolean {
  const scoped = m.scoped(localNames(m, r.source_participants));
  const pid = r.participant_id?.trim();
  return pid ? scoped.identifies(pid) : scoped.identifies(r.who_said_it);
}

function redactedSignal(m: Matcher, r: SignalRow) {
  return {
    title: m.redact(r.title), content: m.redact(r.content), theme: r.theme === null ? null : m.redact(r.theme), who_said_it: r.who_said_it === null ? null : m.redact(r.who_said_it),
    // A quote's check stays (its segment is redacted the same way); its words and speaker lose the person.
    quote: r.quote === null ? null : m.redact(r.quote),
    quotes: r.quotes?.map((q) => ({ ...q, text: m.redact(q.text), ...(q.speaker ? { speaker: m.redact(q.speaker) } : {}) })) ?? null,
  };
}
const signalText = (r: SignalRow) => ({ title: r.title, content: r.content, theme: r.theme, who_said_it: r.who_said_it, quote: r.quote, quotes: r.quotes });

/**
 * Signals: one the person said is deleted, as a person deletes one on the pages (its opportunity's
 * counts follow), its history erased; one that only mentions them is redacted and embedded and placed again.
 */
async function redactSignals(x: Ctx): Promise<Step> {
  const { pool } = x.deps;
  const ids = await chunkIds(pool, 'signals', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const { rows } = await pool.query<SignalRow>(
    `SELECT s.id, s.source_id, s.product_id, s.type_id, s.title, s.content, s.theme, s.who_said_it, s.participant_id, s.keywords, s.quote, s.quotes,
            src.participants AS source_participants
       FROM signals s LEFT JOIN sources src ON src.id = s.source_id AND src.workspace_id = s.workspace_id
      WHERE s.workspace_id = $1 AND s.id = ANY($2)
        AND (concat_ws(' ', s.title, s.content, s.theme, s.who_said_it, s.participant_id, array_to_string(s.keywords, ' '), s.quote, s.quotes::text) ILIKE ANY($3)
             OR src.participants::text ILIKE ANY($3))
      ORDER BY s.id`,
    [x.workspaceId, ids, likeAll(x)],
  );
  const theirs = rows.filter((r) => saidBy(x.m, r));
  const mentions = rows.filter((r) => !theirs.includes(r) && !same(signalText(r), redactedSignal(x.m, r)));
  if (x.dry) {
    for (const r of theirs) sample(x, 'signal', r.id, r.content, null, true);
    for (const r of mentions) sample(x, 'signal', r.id, signalText(r), redactedSignal(x.m, r));
    for (const r of rows) {
      if (theirs.includes(r) || mentions.includes(r)) continue;
      countOffered(x, (m) => saidBy(m, r) || !same(signalText(r), redactedSignal(m, r)));
    }
    return { cursor: ids.at(-1), counts: { signalsDeleted: theirs.length, signalsRedacted: mentions.length } };
  }
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
      [x.workspaceId, gone, x.erasureId],
    );
    for (const r of theirs) products.add(r.product_id);
  }
  // Two signals of a source that differ only by how they named the person are the same signal once
  // redacted: the later one goes (as a person deletes a duplicate), the first keeps the redacted text.
  const duplicates: string[] = [];
  if (mentions.length) {
    await withTransaction(pool, async (c) => {
      // The products' clustering lock, as a re-clustering takes it to write: one that read these signals
      // before they are redacted finds them changed and starts again, never writing their old words.
      for (const productId of [...new Set(mentions.map((r) => r.product_id))].sort()) await lockProduct(c, x.workspaceId, productId);
      for (const r of mentions) {
        const next = redactedSignal(x.m, r);
        const hash = createHash('sha256').update(`${r.type_id}\n${normalise(next.content)}`).digest('hex');
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
                  embedding = NULL, embedding_version = NULL, cluster_pending = true, updated_at = $8, quote = $9, quotes = $10::jsonb
            WHERE workspace_id = $1 AND id = $2`,
          [x.workspaceId, r.id, next.title, next.content, next.theme, next.who_said_it, hash, new Date(x.deps.clock.now()),
            next.quote, next.quotes === null ? null : JSON.stringify(next.quotes)],
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
    `SELECT id, by_email, detail FROM signal_changes WHERE workspace_id = $1 AND id = ANY($2) AND concat_ws(' ', by_email, detail::text) ILIKE ANY($3) ORDER BY id ${lock(x)}`,
    [x.workspaceId, ids, likeAll(x)],
  );
  const plan = (m: Matcher, r: { by_email: string; detail: unknown }) => ({ by_email: m.redact(r.by_email), detail: m.redactJson(r.detail) });
  let n = 0;
  for (const r of rows) {
    const before = { by_email: r.by_email, detail: r.detail };
    const next = plan(x.m, r);
    if (same(before, next)) {
      if (x.dry) countOffered(x, (m) => !same(before, plan(m, r)));
      continue;
    }
    n++;
    if (x.dry) {
      sample(x, 'signal_change', r.id, before, next);
      continue;
    }
    await c.query('UPDATE signal_changes SET by_email = $3, detail = $4 WHERE workspace_id = $1 AND id = $2', [x.workspaceId, r.id, next.by_email, JSON.stringify(next.detail)]);
  }
  return { cursor: ids.at(-1), counts: { signalChanges: n } };
}

/** An opportunity's name and keywords come from its signals' text: redacted now, named again by the next clustering. */
async function redactOpportunities(c: Client, x: Ctx): Promise<Step> {
  const ids = await chunkIds(c, 'opportunities', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const { rows } = await c.query<{ id: string; product_id: string; title: string; subtitle: string; keywords: string[] }>(
    `SELECT id, product_id, title, subtitle, keywords FROM opportunities WHERE workspace_id = $1 AND id = ANY($2)
        AND concat_ws(' ', title, subtitle, array_to_string(keywords, ' ')) ILIKE ANY($3) ORDER BY id ${lock(x)}`,
    [x.workspaceId, ids, likeAll(x)],
  );
  const plan = (m: Matcher, r: { title: string; subtitle: string; keywords: string[] }) =>
    ({ title: m.redact(r.title), subtitle: m.redact(r.subtitle), keywords: (r.keywords ?? []).filter((k) => !m.mentions(k)) });
  const touched: typeof rows = [];
  for (const r of rows) {
    const before = { title: r.title, subtitle: r.subtitle, keywords: r.keywords ?? [] };
    const next = plan(x.m, r);
    if (same(before, next)) {
      if (x.dry) countOffered(x, (m) => !same(before, plan(m, r)));
      continue;
    }
    touched.push(r);
    if (x.dry) {
      sample(x, 'opportunity', r.id, before, next);
      continue;
    }
    await c.query('UPDATE opportunities SET title = $3, subtitle = $4, keywords = $5 WHERE workspace_id = $1 AND id = $2', [x.workspaceId, r.id, next.title, next.subtitle, next.keywords]);
  }
  return { cursor: ids.at(-1), counts: { opportunities: touched.length }, products: x.dry ? [] : [...new Set(touched.map((r) => r.product_id))] };
}

type NoteText = { title: string; subtitle: string | null; content: string; tags: string[] | null };
const redactedNote = (m: Matcher, t: NoteText): NoteText => ({
  title: m.redact(t.title), subtitle: t.subtitle === null ? null : m.redact(t.subtitle), content: m.redactMarkdown(t.content), tags: t.tags === null ? null : t.tags.map((g) => m.redact(g)),
});

/** Shaping notes and every stored version of them: a quotation naming the person goes whole. */
async function redactShapingNotes(c: Client, x: Ctx): Promise<Step> {
  const ids = await chunkIds(c, 'shaping_notes', x.workspaceId, x.cursor);
  if (!ids.length) return { cursor: undefined };
  const { rows } = await c.query<{ id: string }>(
    `SELECT n.id FROM shaping_notes n WHERE n.workspace_id = $1 AND n.id = ANY($2)
        AND (concat_ws(' ', n.title, n.subtitle, n.content, array_to_string(n.tags, ' ')) ILIKE ANY($3)
             OR EXISTS (SELECT 1 FROM shaping_note_versions v WHERE v.note_id = n.id AND concat_ws(' ', v.title, v.subtitle, v.content, array_to_string(v.tags, ' ')) ILIKE ANY($3)))
      ORDER BY n.id ${lock(x)}`,
    [x.workspaceId, ids, likeAll(x)],
  );
  let n = 0;
  for (const { id } of rows) {
    const { rows: [note] } = await c.query<NoteText>('SELECT title, subtitle, content, tags FROM shaping_notes WHERE id = $1', [id]);
    const { rows: versions } = await c.query<NoteText & { version: number }>(
      `SELECT version, title, subtitle, content, tags FROM shaping_note_versions WHERE note_id = $1 ORDER BY version ${lock(x)}`, [id],
    );
    const changes = (m: Matcher) => !same(note, redactedNote(m, note!)) || versions.some((v) => !same(redactedNote(m, v), { title: v.title, subtitle: v.subtitle, content: v.content, tags: v.tags }));
    if (!changes(x.m)) {
      if (x.dry) countOffered(x, changes);
      continue;
    }
    n++;
    if (x.dry) {
      const v = versions.find((w) => !same(redactedNote(x.m, w), { title: w.title, subtitle: w.subtitle, content: w.content, tags: w.tags }));
      const t = same(note, redactedNote(x.m, note!)) && v ? { title: v.title, subtitle: v.subtitle, content: v.content, tags: v.tags } : note!;
      sample(x, 'shaping_note', id, t, redactedNote(x.m, t));
      continue;
    }
    const f = redactedNote(x.m, note!);
    await c.query('UPDATE shaping_notes SET title = $2, subtitle = $3, content = $4, tags = $5 WHERE id = $1', [id, f.title, f.subtitle, f.content, f.tags ?? []]);
    for (const v of versions) {
      const g = redactedNote(x.m, v);
      await c.query('UPDATE shaping_note_versions SET title = $3, subtitle = $4, content = $5, tags = $6 WHERE note_id = $1 AND version = $2',
        [id, v.version, g.title, g.subtitle, g.content, g.tags ?? []]);
    }
  }
  return { cursor: ids.at(-1), counts: { shapingNotes: n } };
}

/**
 * The person's entries in the workspace's people (libs/companies): those whose email is one of the
 * person's addresses (or of their participant ids), or whose external_id is one of their participant ids,
 * are deleted; their company stays. One statement (a workspace has one or two such entries), and the
 * workspace's signals are resolved to companies again with the same commit.
 */
async function deletePeople(c: Client, x: Ctx): Promise<Step> {
  const s = activeSubject(x.state);
  const emails = [...new Set([...s.emails, ...s.ids].map(foldIdentifier))];
  const ids = [...new Set(s.ids.map(foldIdentifier))];
  const where = 'workspace_id = $1 AND (lower(email) = ANY($2::text[]) OR lower(external_id) = ANY($3::text[]))';
  if (x.dry) {
    const { rows } = await c.query<{ n: number }>(`SELECT count(*)::int AS n FROM people WHERE ${where}`, [x.workspaceId, emails, ids]);
    return { cursor: undefined, counts: { people: rows[0]!.n } };
  }
  const { rowCount } = await c.query(`DELETE FROM people WHERE ${where}`, [x.workspaceId, emails, ids]);
  if (rowCount) await enqueue(x.deps.boss, QUEUES.resolveCompanies, { workspaceId: x.workspaceId }, { client: c });
  return { cursor: undefined, counts: { people: rowCount ?? 0 } };
}

/** The tables of the `other` phase, in order; its cursor is `<table>|<last key>`. */
const OTHER_TABLES = ['batches', 'replays', 'skills', 'jobs'] as const;
type OtherTable = (typeof OTHER_TABLES)[number];

/**
 * Copies the person may have left elsewhere in the workspace: the first record errors kept with a batch,
 * the answers an Idempotency-Key replays, the workspace's own skills (the team's writing may quote a
 * customer), and pg-boss's jobs of the workspace (their payloads carry ids only, but a result or an
 * error message may quote what it read). Each table is read in key order, a slice at a time. Job
 * payloads and results are parsed JSON: their strings are redacted (never their keys) and the value
 * written back whole, so an id such as `bat_01J42…` is never cut and the JSON stays valid.
 */
async function redactOther(c: Client, x: Ctx): Promise<Step> {
  const bar = x.cursor.indexOf('|');
  const named = bar > 0 ? x.cursor.slice(0, bar) : '';
  // (a cursor of another form, from before this one, starts over: every step can run again)
  const [table, after] = (OTHER_TABLES as readonly string[]).includes(named) ? [named as OtherTable, x.cursor.slice(bar + 1)] : [OTHER_TABLES[0], ''];
  const p = likeAll(x);
  let n = 0;
  let last: string | undefined;
  let rowsRead = 0;
  const tally = (kind: SampleKind, id: string, before: unknown, plan: (m: Matcher) => unknown): unknown | undefined => {
    const next = plan(x.m);
    if (same(before, next)) {
      if (x.dry) countOffered(x, (m) => !same(before, plan(m)));
      return undefined;
    }
    n++;
    if (x.dry) {
      sample(x, kind, id, before, next);
      return undefined;
    }
    return next;
  };
  if (table === 'batches') {
    const { rows } = await c.query<{ id: string; errors: unknown }>(
      `SELECT id, errors FROM batches WHERE workspace_id = $1 AND id > $2 AND errors::text ILIKE ANY($3) ORDER BY id LIMIT ${ERASURE_SLICE} ${lock(x)}`, [x.workspaceId, after, p],
    );
    for (const b of rows) {
      const next = tally('other', b.id, b.errors, (m) => m.redactJson(b.errors));
      if (next !== undefined) await c.query('UPDATE batches SET errors = $2 WHERE id = $1', [b.id, JSON.stringify(next)]);
    }
    rowsRead = rows.length;
    last = rows.at(-1)?.id;
  } else if (table === 'replays') {
    const { rows } = await c.query<{ key: string; response_body: unknown }>(
      `SELECT key, response_body FROM idempotency_keys WHERE workspace_id = $1 AND key > $2 AND response_body::text ILIKE ANY($3) ORDER BY key LIMIT ${ERASURE_SLICE} ${lock(x)}`,
      [x.workspaceId, after, p],
    );
    for (const r of rows) {
      const next = tally('other', `Idempotency-Key ${r.key}`, r.response_body, (m) => m.redactJson(r.response_body));
      if (next !== undefined) await c.query('UPDATE idempotency_keys SET response_body = $3::json WHERE workspace_id = $1 AND key = $2', [x.workspaceId, r.key, JSON.stringify(next)]);
    }
    rowsRead = rows.length;
    last = rows.at(-1)?.key;
  } else if (table === 'skills') {
    const { rows } = await c.query<{ id: string; title: string; description: string; body: string }>(
      `SELECT id, title, description, body FROM workspace_skills WHERE workspace_id = $1 AND id > $2 AND concat_ws(' ', title, description, body) ILIKE ANY($3)
        ORDER BY id LIMIT ${ERASURE_SLICE} ${lock(x)}`, [x.workspaceId, after, p],
    );
    for (const k of rows) {
      const before = { title: k.title, description: k.description, body: k.body };
      const next = tally('other', k.id, before, (m) => ({ title: m.redact(k.title), description: m.redact(k.description), body: m.redactMarkdown(k.body) })) as typeof before | undefined;
      if (next) await c.query('UPDATE workspace_skills SET title = $2, description = $3, body = $4 WHERE id = $1', [k.id, next.title, next.description, next.body]);
    }
    rowsRead = rows.length;
    last = rows.at(-1)?.id;
  } else {
    const { rows } = await c.query<{ id: string; name: string; data: unknown; output: unknown; source_output: unknown }>(
      `SELECT id::text AS id, name, data, output, source_output FROM pgboss.job
        WHERE data->>'workspaceId' = $1 AND ($2 = '' OR id > $2::uuid) AND concat_ws(' ', data::text, output::text, source_output::text) ILIKE ANY($3)
        ORDER BY id LIMIT ${ERASURE_SLICE} ${lock(x)}`,
      [x.workspaceId, after, p],
    );
    for (const j of rows) {
      const before = { data: j.data, output: j.output, source_output: j.source_output };
      const next = tally('other', `job ${j.id}`, before, (m) => ({ data: m.redactStrings(j.data), output: m.redactStrings(j.output), source_output: m.redactStrings(j.source_output) })) as typeof before | undefined;
      if (next) {
        await c.query('UPDATE pgboss.job SET data = $3::jsonb, output = $4::jsonb, source_output = $5::jsonb WHERE name = $1 AND id = $2::uuid',
          [j.name, j.id, json(next.data), json(next.output), json(next.source_output)]);
      }
    }
    rowsRead = rows.length;
    last = rows.at(-1)?.id;
  }
  const more = rowsRead === ERASURE_SLICE && last !== undefined;
  const nextTable = OTHER_TABLES[OTHER_TABLES.indexOf(table) + 1];
  const cursor = more ? `${table}|${last}` : nextTable ? `${nextTable}|` : undefined;
  return { cursor, counts: { other: n } };
}

const json = (v: unknown) => (v === null || v === undefined ? null : JSON.stringify(v));

function addCounts(a: ErasureCounts, b: ErasureCounts | undefined): ErasureCounts {
  const out: Record<string, number> = { ...a } as Record<string, number>;
  for (const [k, v] of Object.entries(b ?? {})) out[k] = (out[k] ?? 0) + (v ?? 0);
  return out as ErasureCounts;
}

type Row = {
  status: string; phase: Phase; cursor: string; subject: unknown; counts: ErasureCounts; requested_by: string;
  requested_by_user_id: string | null; requested_by_key_id: string | null;
};

/** Suppresses every address and id the erasure uses (the given ones were at the request): once found, and again at the end. */
async function suppressAll(c: Client, workspaceId: string, erasureId: string, state: SubjectState, by: string, now: Date): Promise<void> {
  const s = activeSubject(state);
  for (const [kind, values] of [['email', s.emails], ['participant_id', s.ids.filter((v) => !s.emails.includes(v))]] as const) {
    for (const value of values) await addSuppression(c, { workspaceId, kind, value, erasureId, by, now });
  }
}

/**
 * Runs an erasure (or its dry run) to its end, a slice at a time. Each slice's writes and the
 * request's progress (phase, cursor, counts, what was found) commit together under a lock of the
 * request row, so a retried or duplicated job carries on where the last slice ended and never repeats
 * one; every phase can run again over its own output and changes nothing more (redacting what is
 * redacted is a no-op, a deleted signal is skipped, a file already deleted is gone). A request marked
 * failed (its job ran out of retries) carries on too when its job runs again or it is asked again.
 * The addresses and ids found are suppressed as soon as discovery ends, before anything is changed.
 * A dry run ends `previewed` (nothing changed, nothing suppressed) and expires after PREVIEW_TTL_MS.
 */
export async function runErasure(deps: ErasureDeps, workspaceId: string, erasureId: string, options: { signal?: AbortSignal; maxSlices?: number } = {}): Promise<{ status: string; slices: number }> {
  let slices = 0;
  for (;;) {
    if (options.signal?.aborted) throw new Error('erasure stopped by shutdown; the retry carries on');
    if (options.maxSlices !== undefined && slices >= options.maxSlices) return { status: 'running', slices };
    const outcome = await withTransaction(deps.pool, async (c) => {
      const { rows: [row] } = await c.query<Row>(
        `SELECT status, phase, cursor, subject, counts, requested_by, requested_by_user_id, requested_by_key_id FROM erasure_requests WHERE workspace_id = $1 AND id = $2 FOR UPDATE`,
        [workspaceId, erasureId],
      );
      if (!row) return { done: true, status: 'missing' };
      if (row.status === 'complete' || row.status === 'expired') return { done: true, status: row.status };
      const now = new Date(deps.clock.now());
      if (row.status === 'previewed') {
        const state = readState(row.subject);
        if (now.getTime() - (state.preview?.previewedAt ?? 0) < PREVIEW_TTL_MS) return { done: true, status: 'previewed' };
        await c.query(`UPDATE erasure_requests SET status = 'expired', subject = NULL, updated_at = $3 WHERE workspace_id = $1 AND id = $2`, [workspaceId, erasureId, now]);
        return { done: true, status: 'expired' };
      }
      // a dry run that failed dropped what it held: asking again starts a new one
      if (!row.subject && row.status === 'failed') return { done: true, status: 'failed' };
      if (!row.subject) {
        await c.query(`UPDATE erasure_requests SET status = 'complete', phase = 'done', cursor = '', updated_at = $3, completed_at = $3 WHERE workspace_id = $1 AND id = $2`, [workspaceId, erasureId, now]);
        return { done: true, status: 'complete' };
      }
      const state = readState(row.subject);
      const phase = (PHASES as readonly string[]).includes(row.phase) ? row.phase : 'discover_records';
      if (phase === 'done') {
        if (state.dryRun) {
          state.preview = { samples: state.preview?.samples ?? [], mentions: state.preview?.mentions ?? {}, previewedAt: now.getTime() };
          await c.query(
            `UPDATE erasure_requests SET status = 'previewed', cursor = '', subject = $3, error = NULL, updated_at = $4 WHERE workspace_id = $1 AND id = $2`,
            [workspaceId, erasureId, JSON.stringify(state), now],
          );
          // The preview's expiry: this job finds it past PREVIEW_TTL_MS (unless confirmed by then) and drops what it holds.
          await enqueue(deps.boss, QUEUES.erasePerson, { workspaceId, erasureId }, { client: c, startAfter: Math.ceil(PREVIEW_TTL_MS / 1000) + 60 });
          return { done: true, status: 'previewed' };
        }
        // Every address and participant id found for the person is suppressed too, not only the one asked for.
        await suppressAll(c, workspaceId, erasureId, state, row.requested_by, now);
        await c.query(
          `UPDATE erasure_requests SET status = 'complete', phase = 'done', cursor = '', subject = NULL, error = NULL, updated_at = $3, completed_at = $3 WHERE workspace_id = $1 AND id = $2`,
          [workspaceId, erasureId, now],
        );
        return { done: true, status: 'complete' };
      }
      const m = new Matcher(activeSubject(state));
      const offered = state.dryRun && !phase.startsWith('discover') && !phase.startsWith('shared')
        ? offeredNames(state).filter((o) => !o.shared).map((o) => ({ name: o.name, m: new Matcher({ ...activeSubject(state), names: [o.name] }) }))
        : [];
      const x: Ctx = {
        deps, workspaceId, erasureId, state, m, cursor: row.cursor, dry: state.dryRun, offered,
        by: { userId: row.requested_by_user_id, keyId: row.requested_by_key_id },
      };
      const step = await runPhase(c, phase as Phase, x);
      const nextPhase = step.cursor === undefined ? PHASES[PHASES.indexOf(phase as Phase) + 1]! : phase;
      if (!state.dryRun && nextPhase === 'records' && phase !== 'records') await suppressAll(c, workspaceId, erasureId, state, row.requested_by, now);
      await c.query(
        `UPDATE erasure_requests SET status = 'running', error = NULL, phase = $3, cursor = $4, counts = $5, subject = $6, updated_at = $7 WHERE workspace_id = $1 AND id = $2`,
        [workspaceId, erasureId, nextPhase, step.cursor ?? '', JSON.stringify(addCounts(row.counts, step.counts)), JSON.stringify(state), now],
      );
      return { done: false, status: 'running', step };
    });
    slices++;
    if (outcome.done) return { status: outcome.status, slices };
    const step = outcome.step!;
    if (step.files?.length) await deleteFiles({ pool: deps.pool, storage: deps.storage, log: deps.log }, step.files);
    for (const productId of step.products ?? []) {
      await enqueue(deps.boss, QUEUES.recomputeOpportunities, { workspaceId, productId });
      await enqueue(deps.boss, QUEUES.settleOpportunities, { workspaceId, productId }, { startAfter: 30 });
    }
    if (step.embed) await enqueue(deps.boss, QUEUES.embedSources, { workspaceId });
  }
}

async function discovery(c: Client, x: Ctx, run: (c: Client, ws: string, cursor: string, s: SubjectState) => Promise<DiscoveryStep>): Promise<Step> {
  return run(c, x.workspaceId, x.cursor, x.state);
}

function runPhase(c: Client, phase: Phase, x: Ctx): Promise<Step> {
  switch (phase) {
    case 'discover_records': return discovery(c, x, discoverRecords);
    case 'discover_sources': return discovery(c, x, discoverSources);
    case 'discover_signals': return discovery(c, x, discoverSignals);
    case 'shared_records': return discovery(c, x, sharedInRecords);
    case 'shared_sources': return discovery(c, x, sharedInSources);
    case 'shared_signals': return discovery(c, x, sharedInSignals);
    case 'records': return redactRecords(c, x);
    // deleteSignals takes its own transactions; this slice's progress is saved after them
    case 'signals': return redactSignals(x);
    case 'signal_changes': return redactSignalChanges(c, x);
    case 'sources': return redactSources(c, x);
    case 'opportunities': return redactOpportunities(c, x);
    case 'shaping_notes': return redactShapingNotes(c, x);
    case 'people': return deletePeople(c, x);
    case 'other': return redactOther(c, x);
    case 'done': return Promise.resolve({ cursor: undefined });
  }
}

/**
 * Marks an erasure failed (its job is out of retries); the message names no data. It carries on when
 * run again, or when the person is asked to be erased again. A dry run that failed changed nothing and
 * keeps nothing of the person: what it found is dropped (asking again starts a new one).
 */
export async function failErasure(pool: pg.Pool, workspaceId: string, erasureId: string, message: string, now: Date): Promise<void> {
  await pool.query(
    `UPDATE erasure_requests SET status = 'failed', error = $3, updated_at = $4,
            subject = CASE WHEN coalesce((subject->>'dryRun')::boolean, false) THEN NULL ELSE subject END
      WHERE workspace_id = $1 AND id = $2 AND status IN ('queued', 'running')`,
    [workspaceId, erasureId, message.slice(0, 500), now],
  );
}
