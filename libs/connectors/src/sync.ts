import { acceptRecords, MAX_REPORTED_ERRORS } from '@loupe/batches';
import { upsertCompanies, upsertPeople } from '@loupe/companies';
import { screenErasedPeople, screenSuppressed } from '@loupe/erasure';
import type { Clock, Logger } from '@loupe/http';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { companyInputSchema, itemOfRecord, personInputSchema, type RecordError } from '@loupe/records';
import type { SafeFetch } from '@loupe/safe-fetch';
import type pg from 'pg';
import type { Connector, VendorPage } from './connector';
import { KeyringError, openCredentials, type Keyring } from './envelope';
import { CONNECTORS } from './registry';
import { connectionById, sealedCredentials, type ConnectionRow } from './store';
import { vendorGet, VendorAuthError, VendorRequestError } from './vendor-http';

export interface SyncDeps {
  pool: pg.Pool;
  boss: Boss;
  clock: Clock;
  log: Logger;
  keyring: Keyring;
  fetch: SafeFetch;
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  connectors?: ReadonlyMap<string, Connector>;
  /** Records per landing transaction: a vendor page of up to 1,000 objects lands in slices, its cursor with the last. */
  recordsPerLanding?: number;
}

export type SyncOutcome =
  | { status: 'skipped'; reason: 'not found' | 'not active' | 'running' }
  | { status: 'synced'; pages: number; records: number; duplicates: number; rejected: number; refusals: number; waits: number[] }
  | { status: 'failing'; message: string }
  | { status: 'failed'; message: string };

// A session lock per connection, held for the whole sync on a connection of its own: a second sync of the
// same connection (its schedule and a "sync now") ends at once. A worker that dies drops it with its session.
const SYNC_LOCK_NAMESPACE = 45_045_045;

export const realSleep = (ms: number, signal?: AbortSignal) => new Promise<void>((resolve, reject) => {
  if (signal?.aborted) return reject(signal.reason);
  const timer = setTimeout(() => { signal?.removeEventListener('abort', onAbort); resolve(); }, ms);
  const onAbort = () => { clearTimeout(timer); reject(signal!.reason); };
  signal?.addEventListener('abort', onAbort, { once: true });
});

/** Queues the next scheduled sync of a connection, its interval from now unless told otherwise (one waits per connection). */
export async function scheduleNextSync(boss: Boss, row: Pick<ConnectionRow, 'id' | 'workspace_id' | 'sync_interval_seconds'>, afterSeconds = row.sync_interval_seconds): Promise<void> {
  await enqueue(boss, QUEUES.syncConnection, { workspaceId: row.workspace_id, connectionId: row.id, reason: 'schedule' }, { startAfter: Math.max(0, Math.round(afterSeconds)) });
}

/**
 * Cancels the syncs of a connection still waiting (its schedule, a "sync now"): a failing, paused or deleted
 * connection has no next run. A sync already running ends by itself (it reads the status under its lock).
 */
export async function cancelWaitingSyncs(pool: Pick<pg.Pool, 'query'>, boss: Boss, connectionId: string): Promise<number> {
  const { rows } = await pool.query<{ id: string }>(
    "SELECT id FROM pgboss.job WHERE name = $1 AND data->>'connectionId' = $2 AND state IN ('created', 'retry')", [QUEUES.syncConnection, connectionId]);
  if (rows.length) await boss.cancel(QUEUES.syncConnection, rows.map((r) => r.id));
  return rows.length;
}

/**
 * At a worker's start: every active connection has its schedule, due an interval after its last sync (at once
 * when that has passed: a worker that was down catches up). A start never doubles a waiting one.
 */
export async function scheduleActiveConnections(pool: pg.Pool, boss: Boss, now: Date): Promise<number> {
  const { rows } = await pool.query<Pick<ConnectionRow, 'id' | 'workspace_id' | 'sync_interval_seconds' | 'last_synced_at'>>(
    "SELECT id, workspace_id, sync_interval_seconds, last_synced_at FROM connections WHERE status = 'active'");
  for (const row of rows) {
    const due = row.last_synced_at ? (row.last_synced_at.getTime() + row.sync_interval_seconds * 1000 - now.getTime()) / 1000 : 0;
    await scheduleNextSync(boss, row, due);
  }
  return rows.length;
}

function refusalSummary(refused: VendorPage['refused'], errors: RecordError[]): string | undefined {
  const first = refused[0] ? `${refused[0].object}: ${refused[0].reason}` : errors[0] ? `record ${errors[0].index}: ${errors[0].message}` : undefined;
  const count = refused.length + errors.length;
  // A vendor's id or words may hold what PostgreSQL cannot store (NUL, half a surrogate pair): left out, not the sync.
  return first && `${count} object(s) of the last page refused; first: ${first}`
    .replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '').slice(0, 1000);
}

/**
 * One sync of a connection: from its stored cursor, page after page, each page's companies and people upserted,
 * its records through acceptRecords (the ingestion API's own path) and the cursor saved in the transaction that
 * lands the page's last records; so a sync killed mid-page starts that page again, and what it had landed comes
 * back as duplicates. A 429 is waited out inside the read; a 401 or 403 marks the connection failing (no more
 * schedule until its credentials change); any other vendor failure is kept as `last_error` and the schedule goes on.
 */
export async function syncConnection(deps: SyncDeps, connectionId: string, signal?: AbortSignal): Promise<SyncOutcome> {
  const row = await connectionById(deps.pool, connectionId);
  if (!row) return { status: 'skipped', reason: 'not found' };
  if (row.status !== 'active') return { status: 'skipped', reason: 'not active' };
  const lock = await deps.pool.connect();
  try {
    const { rows } = await lock.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1, hashtext($2)) AS locked', [SYNC_LOCK_NAMESPACE, connectionId]);
    if (!rows[0]!.locked) return { status: 'skipped', reason: 'running' };
    try {
      return await syncLocked(deps, connectionId, signal);
    } finally {
      await lock.query('SELECT pg_advisory_unlock($1, hashtext($2))', [SYNC_LOCK_NAMESPACE, connectionId]);
    }
  } finally {
    lock.release();
  }
}

async function syncLocked(deps: SyncDeps, connectionId: string, signal: AbortSignal | undefined): Promise<SyncOutcome> {
  // Read again under the lock: a sync that just finished moved the cursor.
  const row = await connectionById(deps.pool, connectionId);
  if (!row || row.status !== 'active') return { status: 'skipped', reason: row ? 'not active' : 'not found' };
  const connector = (deps.connectors ?? CONNECTORS).get(row.kind);
  const sealed = await sealedCredentials(deps.pool, row.id);
  if (!connector || !sealed) return markFailed(deps, row, `no connector of kind "${row.kind}"`);
  let opened: unknown;
  try {
    opened = openCredentials(deps.keyring, sealed);
  } catch (error) {
    // CONNECTIONS_KEY lost the key that wrapped them: new credentials (sealed under the current key) fix it.
    if (error instanceof KeyringError) {
      return markFailing(deps, row, sealed.version, `the stored credentials cannot be opened (${(error as Error).message}); give them again`);
    }
    throw error;
  }
  const credentials = connector.credentialsSchema.safeParse(opened);
  const settings = connector.settingsSchema.safeParse(row.settings);
  if (!credentials.success) return markFailing(deps, row, sealed.version, 'the stored credentials are not of the form this connector takes');
  if (!settings.success) return markFailed(deps, row, `settings: ${settings.error.issues[0]?.message ?? 'invalid'}`);
  const get = vendorGet({ fetch: deps.fetch, sleep: deps.sleep, ...(signal ? { signal } : {}) }, { authHeaders: connector.authHeaders(credentials.data) });
  const totals = { pages: 0, records: 0, duplicates: 0, rejected: 0, refusals: 0 };
  try {
    const pages = connector.read({
      get, baseUrl: row.base_url, settings: settings.data, routing: { productId: row.product_id, projectId: row.project_id }, createdAt: row.created_at,
      now: () => deps.clock.now(),
    }, row.cursor);
    for await (const page of pages) {
      signal?.throwIfAborted();
      const stored = await storePage(deps, row, sealed.version, page);
      totals.pages++;
      totals.records += stored.records;
      totals.duplicates += stored.duplicates;
      totals.rejected += stored.rejected;
      totals.refusals += stored.refusals;
    }
  } catch (error) {
    if (error instanceof VendorAuthError) return markFailing(deps, row, sealed.version, `${connector.kind} refused the credentials: ${error.message}`);
    if (error instanceof VendorRequestError) return markFailed(deps, row, error.message);
    throw error;
  }
  // An error of an earlier run is cleared; refusals found by this one stay readable.
  await deps.pool.query(
    `UPDATE connections SET last_synced_at = $2, last_success_at = $2, last_error = CASE WHEN $3 THEN last_error END,
            last_error_at = CASE WHEN $3 THEN last_error_at END, updated_at = $2 WHERE id = $1`,
    [row.id, new Date(deps.clock.now()), totals.refusals > 0],
  );
  await scheduleNextSync(deps.boss, row);
  deps.log.info({ connectionId: row.id, workspaceId: row.workspace_id, kind: row.kind, ...totals, rateLimitWaits: get.waits.length }, 'connection synced');
  return { status: 'synced', ...totals, waits: [...get.waits] };
}

interface Counts { records: number; duplicates: number; rejected: number }
interface PageOutcome extends Counts { refusals: number }

/**
 * Stores one vendor page: its companies and people (upserts, so repeating them is harmless), then its records
 * in slices, each through acceptRecords; the connection's counts move with each slice in its transaction, and the
 * cursor with the last one. A slice refused as a whole (every record invalid) stores nothing but its counts.
 */
async function storePage(deps: SyncDeps, row: ConnectionRow, credentialsVersion: number, page: VendorPage): Promise<PageOutcome> {
  const now = new Date(deps.clock.now());
  const companies = page.companies.map((c) => companyInputSchema.safeParse(c)).flatMap((p) => (p.success ? [p.data] : []));
  const people = page.people.map((p) => personInputSchema.safeParse(p)).flatMap((p) => (p.success ? [p.data] : []));
  const companyOutcomes = await upsertCompanies({ pool: deps.pool, boss: deps.boss }, row.workspace_id, companies, now);
  const newCompanies = companyOutcomes.filter((o) => o.ok && o.created).length;
  // A company refused (its domain is already another company's, the team's own CRM's say) is not linked to:
  // its people keep their email's domain, which resolves them to that other company.
  const refusedCompanies = new Set(companies.filter((_, i) => !companyOutcomes[i]!.ok).map((c) => c.external_id));
  const linked = people.map((p) => (p.company_external_id && refusedCompanies.has(p.company_external_id) ? { ...p, company_external_id: null } : p));
  const newPeople = (await upsertPeople({ pool: deps.pool, boss: deps.boss, screenPeople: screenErasedPeople }, row.workspace_id, linked, now))
    .filter((o) => o.ok && o.created).length;
  const size = deps.recordsPerLanding ?? 100;
  const starts = page.records.length ? Array.from({ length: Math.ceil(page.records.length / size) }, (_, i) => i * size) : [0];
  const total: Counts = { records: 0, duplicates: 0, rejected: 0 };
  const errors: RecordError[] = [];
  for (const [i, start] of starts.entries()) {
    const first = i === 0;
    const last = i === starts.length - 1;
    const save = async (db: Pick<pg.Pool, 'query'>, c: Counts) => {
      const rejected = c.rejected + (first ? page.refused.length : 0);
      await db.query(
        `UPDATE connections SET cursor = CASE WHEN $3 THEN $2::jsonb ELSE cursor END, records_count = records_count + $4, duplicates_count = duplicates_count + $5,
                rejected_count = rejected_count + $6, companies_count = companies_count + $7, people_count = people_count + $8, last_synced_at = $9,
                last_error = COALESCE($10, last_error), last_error_at = CASE WHEN $10::text IS NULL THEN last_error_at ELSE $9 END, updated_at = $9
          WHERE id = $1 AND credentials_version = $11`,
        [row.id, JSON.stringify(page.cursor), last, c.records, c.duplicates, rejected, first ? newCompanies : 0, first ? newPeople : 0, now,
          last ? refusalSummary(page.refused, errors) ?? null : null, credentialsVersion],
      );
      total.records += c.records;
      total.duplicates += c.duplicates;
      total.rejected += rejected;
    };
    const chunk = page.records.slice(start, start + size);
    if (!chunk.length) {
      await save(deps.pool, { records: 0, duplicates: 0, rejected: 0 });
      continue;
    }
    const outcome = await acceptRecords({ pool: deps.pool, boss: deps.boss, screen: screenSuppressed }, {
      workspaceId: row.workspace_id, apiKeyId: null, connectionId: row.id, source: row.kind, format: 'text',
      items: chunk.map((r, index) => ({ ...itemOfRecord(r), index })), now: now.getTime(),
    }, async (client, accepted) => {
      errors.push(...accepted.errors.slice(0, MAX_REPORTED_ERRORS).map((e) => ({ ...e, index: e.index + start })));
      await save(client, { records: accepted.insertedCount, duplicates: accepted.duplicateCount, rejected: accepted.rejectedCount });
    });
    if (!outcome.landed) {
      errors.push(...outcome.errors.slice(0, MAX_REPORTED_ERRORS).map((e) => ({ ...e, index: e.index + start })));
      deps.log.warn({ connectionId: row.id, code: outcome.code, message: outcome.message }, 'a slice of a vendor page was refused');
      await save(deps.pool, { records: 0, duplicates: 0, rejected: chunk.length });
    }
  }
  return { ...total, refusals: page.refused.length + errors.length };
}

/**
 * The vendor refused the credentials: failing, with the vendor's message, and no next run until they change
 * (a change bumps credentials_version: a sync under the old ones cannot mark the new ones failing).
 */
async function markFailing(deps: SyncDeps, row: ConnectionRow, credentialsVersion: number, message: string): Promise<SyncOutcome> {
  const now = new Date(deps.clock.now());
  await deps.pool.query(
    `UPDATE connections SET status = 'failing', last_error = $2, last_error_at = $3, last_synced_at = $3, updated_at = $3
      WHERE id = $1 AND credentials_version = $4 AND status = 'active'`,
    [row.id, message.slice(0, 1000), now, credentialsVersion],
  );
  await cancelWaitingSyncs(deps.pool, deps.boss, row.id);
  deps.log.warn({ connectionId: row.id, workspaceId: row.workspace_id, kind: row.kind, error: message }, 'connection failing: credentials refused');
  return { status: 'failing', message };
}

/** Any other failure: kept as last_error, and the schedule goes on (the next run resumes from the saved cursor). */
async function markFailed(deps: SyncDeps, row: ConnectionRow, message: string): Promise<SyncOutcome> {
  const now = new Date(deps.clock.now());
  await deps.pool.query('UPDATE connections SET last_error = $2, last_error_at = $3, last_synced_at = $3, updated_at = $3 WHERE id = $1', [row.id, message.slice(0, 1000), now]);
  await scheduleNextSync(deps.boss, row);
  deps.log.warn({ connectionId: row.id, workspaceId: row.workspace_id, kind: row.kind, error: message }, 'connection sync failed; the next run resumes from the saved cursor');
  return { status: 'failed', message };
}
