import { newId, withTransaction } from '@loupe/db';
import type pg from 'pg';

/** A connection that is inside a transaction the caller controls. */
export type TxClient = Pick<pg.PoolClient, 'query'>;

export interface CreditStatus {
  workspaceId: string;
  /** Sum of the ledger: grants minus charges. Below zero means unpaid usage. */
  balance: number;
  planId: string | null;
  overageAllowed: boolean;
  /** No credits left and no plan that allows overage: MCP tool calls are refused. */
  paused: boolean;
}

export interface ChargeItem {
  amount: number;
  reference: string;
  description?: string | undefined;
  /** What used the credits, for usage by application and by key (tool calls). */
  usage?: ChargeUsage | undefined;
}

export interface ChargeUsage {
  tool: string;
  apiKeyId?: string | null | undefined;
  oauthClientId?: string | null | undefined;
}

export interface ChargeInput extends ChargeItem {
  workspaceId: string;
}

export interface ChargeOptions {
  /**
   * `record` (the default, used by ingestion): the charge is always written, even when the
   * workspace is paused. `refuse` (used by tool calls): nothing is written while paused.
   */
  whenPaused?: 'record' | 'refuse';
}

export interface ChargeResult {
  /** Credits newly charged by this call (0 when every reference was charged before or it was refused). */
  charged: number;
  /** Of `charged`, the part the balance before the charge did not cover. */
  overage: number;
  /** References already in the ledger: charged by an earlier call, not again. */
  duplicates: string[];
  /** True when `whenPaused: 'refuse'` stopped the charge. */
  refused: boolean;
  /** The workspace after this call. */
  status: CreditStatus;
}

export class CreditError extends Error {
  override name = 'CreditError';
}

// The first key of the two-key advisory lock: the namespace of credit locks.
const CREDIT_LOCK_NAMESPACE = 72_707_101;

export function isPaused(balance: number, planId: string | null, overageAllowed: boolean): boolean {
  return balance <= 0 && !(planId !== null && overageAllowed);
}

function assertAmount(amount: number, what: string): void {
  if (!Number.isSafeInteger(amount) || amount <= 0) {
    throw new CreditError(`${what} must be a positive whole number of credits (got ${amount})`);
  }
}

function assertReference(reference: string): void {
  if (typeof reference !== 'string' || reference.length === 0 || reference.length > 256) {
    throw new CreditError(`a ledger reference must be 1 to 256 characters (got ${JSON.stringify(reference)})`);
  }
}

function assertCharges(items: readonly ChargeItem[]): void {
  for (const item of items) {
    assertAmount(item.amount, `the charge ${item.reference}`);
    assertReference(item.reference);
  }
}

/**
 * Serialises every ledger write of one workspace until the caller's transaction ends, so a
 * balance read after it stays true until the write that depends on it commits.
 */
async function lockWorkspace(client: TxClient, workspaceId: string): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [CREDIT_LOCK_NAMESPACE, workspaceId]);
}

async function readStatus(client: TxClient | pg.Pool, workspaceId: string): Promise<CreditStatus> {
  const { rows } = await client.query<{ balance: string | number; plan_id: string | null; overage_allowed: boolean | null }>(
    `SELECT w.plan_id, p.overage_allowed, w.credit_balance AS balance
       FROM workspaces w LEFT JOIN plans p ON p.id = w.plan_id
      WHERE w.id = $1`,
    [workspaceId],
  );
  const row = rows[0];
  if (!row) throw new CreditError(`workspace ${workspaceId} does not exist`);
  const balance = Number(row.balance);
  const overageAllowed = row.overage_allowed === true;
  return { workspaceId, balance, planId: row.plan_id, overageAllowed, paused: isPaused(balance, row.plan_id, overageAllowed) };
}

/** The workspace's balance, plan and paused state as committed now. */
export async function creditStatus(db: TxClient | pg.Pool, workspaceId: string): Promise<CreditStatus> {
  return readStatus(db, workspaceId);
}

export async function balance(db: TxClient | pg.Pool, workspaceId: string): Promise<number> {
  return (await readStatus(db, workspaceId)).balance;
}

/**
 * Adds `amount` credits. Idempotent by `reference`: a second grant with the same reference
 * adds nothing and returns false.
 */
export async function grantCredits(
  pool: pg.Pool,
  workspaceId: string,
  amount: number,
  reference: string,
  description?: string,
): Promise<boolean> {
  assertAmount(amount, 'a grant');
  assertReference(reference);
  return withTransaction(pool, async (client) => {
    await lockWorkspace(client, workspaceId);
    const { rows } = await client.query<{ granted: number }>(
      `WITH entry AS (
         INSERT INTO credit_ledger (id, workspace_id, kind, amount, overage, reference, description)
         VALUES ($1, $2, 'grant', $3, 0, $4, $5)
         ON CONFLICT (workspace_id, reference) DO NOTHING
         RETURNING amount),
       kept AS (UPDATE workspaces SET credit_balance = credit_balance + (SELECT COALESCE(SUM(amount), 0) FROM entry) WHERE id = $2)
       SELECT count(*)::int AS granted FROM entry`,
      [newId('cl'), workspaceId, amount, reference, description ?? null],
    );
    return rows[0]!.granted === 1;
  });
}

/**
 * Grants the workspace's plan's included credits for one billing `period` (e.g. `2026-11`), once:
 * the reference is `plan:<planId>:<period>`. Returns the credits granted (0 without a plan, or
 * when this period was granted before).
 */
export async function grantIncludedCredits(pool: pg.Pool, workspaceId: string, period: string): Promise<number> {
  const { rows } = await pool.query<{ plan_id: string; included_credits: number; name: string }>(
    'SELECT p.id AS plan_id, p.included_credits, p.name FROM workspaces w JOIN plans p ON p.id = w.plan_id WHERE w.id = $1',
    [workspaceId],
  );
  const plan = rows[0];
  if (!plan || plan.included_credits <= 0) return 0;
  const granted = await grantCredits(pool, workspaceId, plan.included_credits, `plan:${plan.plan_id}:${period}`, `${plan.name} plan credits for ${period}`);
  return granted ? plan.included_credits : 0;
}

/**
 * Charges several items to one workspace inside the caller's transaction (`client` must be in
 * one: the lock lasts until it ends). Each reference is charged at most once, ever; a reference
 * already in the ledger is reported in `duplicates` and not charged again.
 */
export async function chargeMany(
  client: TxClient,
  workspaceId: string,
  items: readonly ChargeItem[],
  options: ChargeOptions = {},
): Promise<ChargeResult> {
  assertCharges(items);
  const byReference = new Map<string, ChargeItem>();
  for (const item of items) {
    const seen = byReference.get(item.reference);
    if (seen && seen.amount !== item.amount) {
      throw new CreditError(`reference ${item.reference} is given twice with different amounts (${seen.amount} and ${item.amount})`);
    }
    byReference.set(item.reference, item);
  }
  await lockWorkspace(client, workspaceId);
  const before = await readStatus(client, workspaceId);
  const refusing = before.paused && options.whenPaused === 'refuse';
  if (!refusing) {
    // The usual case (a worker's chunk, a tool call): none of the references is in the ledger yet.
    // Insert them all and let the unique key say otherwise, instead of looking each one up first.
    const rows = ledgerRows([...byReference.values()], before.balance);
    const inserted = await insertCharges(client, workspaceId, rows);
    if (inserted.length === rows.length) return chargeResult(before, inserted, []);
    // Some were: take this insert back (the lock is still ours) and decide with the ledger in hand.
    await removeCharges(client, workspaceId, inserted.map((r) => r.id));
  }
  const { rows: existing } = await client.query<{ reference: string; kind: string; amount: number }>(
    'SELECT reference, kind, amount FROM credit_ledger WHERE workspace_id = $1 AND reference = ANY($2::text[])',
    [workspaceId, [...byReference.keys()]],
  );
  for (const row of existing) {
    const item = byReference.get(row.reference)!;
    if (row.kind !== 'charge' || row.amount !== -item.amount) {
      throw new CreditError(
        `reference ${row.reference} is already in the ledger as a ${row.kind} of ${row.amount}, not a charge of ${item.amount}`,
      );
    }
  }
  const duplicates = existing.map((r) => r.reference);
  const fresh = [...byReference.values()].filter((i) => !duplicates.includes(i.reference));
  if (fresh.length === 0 || refusing) {
    return { charged: 0, overage: 0, duplicates, refused: fresh.length > 0, status: before };
  }
  const rows = ledgerRows(fresh, before.balance);
  const inserted = await insertCharges(client, workspaceId, rows);
  if (inserted.length !== rows.length) {
    // Every writer takes the lock first, so this means a writer that bypassed this module.
    throw new CreditError(`ledger of workspace ${workspaceId} changed under the credit lock (a writer outside @loupe/credits?)`);
  }
  return chargeResult(before, inserted, duplicates);
}

interface LedgerRow {
  id: string;
  amount: number;
  overage: number;
  reference: string;
  description: string | null;
  api_key_id: string | null;
  oauth_client_id: string | null;
  tool: string | null;
}

/** Charge entries in order, each one's overage being the part the running balance does not cover. */
function ledgerRows(items: readonly ChargeItem[], balanceBefore: number): LedgerRow[] {
  let running = balanceBefore;
  return items.map((item) => {
    const covered = Math.min(item.amount, Math.max(running, 0));
    running -= item.amount;
    return {
      id: newId('cl'), amount: -item.amount, overage: item.amount - covered, reference: item.reference, description: item.description ?? null,
      api_key_id: item.usage?.apiKeyId ?? null, oauth_client_id: item.usage?.oauthClientId ?? null, tool: item.usage?.tool ?? null,
    };
  });
}

/** Inserts the entries whose reference is new and keeps the running balance; answers those inserted. */
async function insertCharges(client: TxClient, workspaceId: string, rows: LedgerRow[]): Promise<{ id: string; amount: number; overage: number }[]> {
  const { rows: inserted } = await client.query<{ id: string; amount: number; overage: number }>(
    `WITH entries AS (
       INSERT INTO credit_ledger (id, workspace_id, kind, amount, overage, reference, description, api_key_id, oauth_client_id, tool)
       SELECT r.id, $1, 'charge', r.amount, r.overage, r.reference, r.description, r.api_key_id, r.oauth_client_id, r.tool
         FROM json_to_recordset($2::json) AS r(id text, amount int, overage int, reference text, description text,
                                              api_key_id text, oauth_client_id text, tool text)
       ON CONFLICT (workspace_id, reference) DO NOTHING
       RETURNING id, amount, overage),
     kept AS (UPDATE workspaces SET credit_balance = credit_balance + (SELECT COALESCE(SUM(amount), 0) FROM entries) WHERE id = $1)
     SELECT id, amount, overage FROM entries`,
    [workspaceId, JSON.stringify(rows)],
  );
  return inserted;
}

/** Undoes `insertCharges` inside the same transaction, balance included. */
async function removeCharges(client: TxClient, workspaceId: string, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await client.query(
    `WITH gone AS (DELETE FROM credit_ledger WHERE workspace_id = $1 AND id = ANY($2::text[]) RETURNING amount)
     UPDATE workspaces SET credit_balance = credit_balance - (SELECT COALESCE(SUM(amount), 0) FROM gone) WHERE id = $1`,
    [workspaceId, ids],
  );
}

function chargeResult(before: CreditStatus, inserted: { amount: number; overage: number }[], duplicates: string[]): ChargeResult {
  const charged = inserted.reduce((sum, r) => sum - r.amount, 0);
  const overage = inserted.reduce((sum, r) => sum + r.overage, 0);
  const after = before.balance - charged;
  return {
    charged,
    overage,
    duplicates,
    refused: false,
    status: { ...before, balance: after, paused: isPaused(after, before.planId, before.overageAllowed) },
  };
}

/**
 * Charges `items` in order for as long as the workspace is not paused, inside the caller's
 * transaction: what `whenPaused: 'refuse'` does for one item, for many at once. Answers the
 * references that are charged (now or by an earlier call); the others were refused.
 */
export async function chargeWhileCovered(client: TxClient, workspaceId: string, items: readonly ChargeItem[]): Promise<Set<string>> {
  await lockWorkspace(client, workspaceId);
  const status = await readStatus(client, workspaceId);
  const decide = (inLedger: Set<string>) => {
    const charged = new Set(inLedger);
    const covered: ChargeItem[] = [];
    let running = status.balance;
    for (const item of items) {
      if (charged.has(item.reference) || isPaused(running, status.planId, status.overageAllowed)) continue;
      covered.push(item);
      charged.add(item.reference);
      running -= item.amount;
    }
    return { charged, covered };
  };
  // The usual case: no reference is in the ledger yet, so insert and let the unique key say otherwise.
  const first = decide(new Set());
  if (first.covered.length === 0) return first.charged;
  const inserted = await insertCharges(client, workspaceId, ledgerRows(first.covered, status.balance));
  if (inserted.length === first.covered.length) return first.charged;
  // A retried call's reference was: take this insert back (the lock is still ours) and decide with the ledger in hand.
  await removeCharges(client, workspaceId, inserted.map((r) => r.id));
  const { rows: existing } = await client.query<{ reference: string }>(
    "SELECT reference FROM credit_ledger WHERE workspace_id = $1 AND kind = 'charge' AND reference = ANY($2::text[])",
    [workspaceId, items.map((i) => i.reference)],
  );
  const second = decide(new Set(existing.map((r) => r.reference)));
  if (second.covered.length > 0) {
    const again = await insertCharges(client, workspaceId, ledgerRows(second.covered, status.balance));
    if (again.length !== second.covered.length) {
      throw new CreditError(`ledger of workspace ${workspaceId} changed under the credit lock (a writer outside @loupe/credits?)`);
    }
  }
  return second.charged;
}

/**
 * `chargeWhileCovered` in a transaction of its own, in one statement when no reference is in the
 * ledger yet (the `credit_charge_while_covered` function: the lock, the balance, the entries and the
 * balance kept, without BEGIN and COMMIT round trips); a retried reference takes the general path.
 */
export async function chargeWhileCoveredNow(pool: pg.Pool, workspaceId: string, items: readonly ChargeItem[]): Promise<Set<string>> {
  assertCharges(items);
  try {
    const { rows } = await pool.query<{ charged: string[] }>({
      name: 'credits-charge-while-covered',
      text: 'SELECT credit_charge_while_covered($1, $2::json) AS charged',
      values: [workspaceId, JSON.stringify(ledgerRows(items, 0).map(({ overage: _, ...row }) => ({ ...row, amount: -row.amount })))],
    });
    return new Set(rows[0]!.charged);
  } catch (error) {
    if ((error as { code?: string }).code === 'P0002') throw new CreditError(`workspace ${workspaceId} does not exist`);
    if ((error as { code?: string }).code !== 'L0409') throw error;
    return withTransaction(pool, (client) => chargeWhileCovered(client, workspaceId, items));
  }
}

/** One charge inside the caller's transaction; see `chargeMany`. */
export async function charge(client: TxClient, input: ChargeInput, options: ChargeOptions = {}): Promise<ChargeResult> {
  return chargeMany(client, input.workspaceId, [input], options);
}

/** `charge` in a transaction of its own, for callers that have none. */
export async function chargeNow(pool: pg.Pool, input: ChargeInput, options: ChargeOptions = {}): Promise<ChargeResult> {
  return withTransaction(pool, (client) => charge(client, input, options));
}

export interface UsageLine {
  /** `api_key`, `application` (an OAuth client), or `records` (ingested and added sources, charged when processed). */
  consumer: 'api_key' | 'application' | 'records';
  /** The key id or the OAuth client id; null for records. */
  id: string | null;
  calls: number;
  credits: number;
  overage: number;
}

/**
 * Credits charged since `since`, by API key, by application and for processed records, most used
 * first. A charge given back (a `refund:<reference>` grant: a failed third-party call) is not usage.
 */
export async function usageByConsumer(db: TxClient | pg.Pool, workspaceId: string, since: Date): Promise<UsageLine[]> {
  const { rows } = await db.query<{ consumer: UsageLine['consumer']; id: string | null; calls: number; credits: number; overage: number }>(
    `SELECT CASE WHEN api_key_id IS NOT NULL THEN 'api_key' WHEN oauth_client_id IS NOT NULL THEN 'application' ELSE 'records' END AS consumer,
            COALESCE(api_key_id, oauth_client_id) AS id, count(*)::int AS calls, (-sum(amount))::int AS credits, sum(overage)::int AS overage
       FROM credit_ledger
      WHERE workspace_id = $1 AND kind = 'charge' AND created_at >= $2
        AND NOT EXISTS (SELECT 1 FROM credit_ledger r WHERE r.workspace_id = $1 AND r.reference = 'refund:' || credit_ledger.reference)
      GROUP BY 1, 2 ORDER BY credits DESC, 1, 2`,
    [workspaceId, since],
  );
  return rows;
}

/** Display names of what can use a workspace's credits: its API keys (`name (prefix…)`) and applications (their name), by id. */
export async function consumerNames(db: TxClient | pg.Pool, workspaceId: string): Promise<Map<string, string>> {
  const { rows } = await db.query<{ id: string; name: string }>(
    `SELECT id, name || ' (' || display_prefix || '…)' AS name FROM api_keys WHERE workspace_id = $1
     UNION ALL SELECT DISTINCT ON (client_id) client_id, client_name FROM oauth_grants WHERE workspace_id = $1`,
    [workspaceId],
  );
  return new Map(rows.map((r) => [r.id, r.name]));
}

export interface PlanSummary {
  name: string;
  includedCredits: number;
  overageAllowed: boolean;
}

/** A plan's name and terms (for a workspace's `planId`), or undefined without one. */
export async function planOf(db: TxClient | pg.Pool, planId: string | null): Promise<PlanSummary | undefined> {
  if (!planId) return undefined;
  const { rows } = await db.query<{ name: string; included_credits: number; overage_allowed: boolean }>(
    'SELECT name, included_credits, overage_allowed FROM plans WHERE id = $1', [planId],
  );
  const row = rows[0];
  return row && { name: row.name, includedCredits: row.included_credits, overageAllowed: row.overage_allowed };
}

/** Puts the workspace on a plan (or on none, with null). Refuses an unknown plan. */
export async function setPlan(pool: pg.Pool, workspaceId: string, planName: string | null): Promise<void> {
  const { rowCount } = await pool.query(
    `UPDATE workspaces SET plan_id = CASE WHEN $2::text IS NULL THEN NULL ELSE (SELECT id FROM plans WHERE name = $2) END
      WHERE id = $1 AND ($2::text IS NULL OR EXISTS (SELECT 1 FROM plans WHERE name = $2))`,
    [workspaceId, planName],
  );
  if (!rowCount) throw new CreditError(planName ? `no plan named "${planName}", or no workspace ${workspaceId}` : `workspace ${workspaceId} does not exist`);
}

/** Creates or updates a plan by name: credits included each period, and whether use beyond them is billed (true) or paused (false). */
export async function upsertPlan(pool: pg.Pool, plan: { name: string; includedCredits: number; overageAllowed: boolean }): Promise<string> {
  if (!Number.isSafeInteger(plan.includedCredits) || plan.includedCredits < 0) throw new CreditError('included credits must be a whole number, 0 or more');
  const { rows } = await pool.query<{ id: string }>(
    `INSERT INTO plans (id, name, included_credits, overage_allowed) VALUES ($1, $2, $3, $4)
     ON CONFLICT (name) DO UPDATE SET included_credits = EXCLUDED.included_credits, overage_allowed = EXCLUDED.overage_allowed
     RETURNING id`,
    [newId('plan'), plan.name, plan.includedCredits, plan.overageAllowed],
  );
  return rows[0]!.id;
}

export interface WorkspaceStanding extends CreditStatus {
  /** The workspace keeps its evidence on its own machines: no MCP tool works on it (spec 7.4). */
  localDataStorage: boolean;
}

/** What decides whether an MCP tool call may run: credits, plan, and where the data lives. One query. */
export async function workspaceStanding(db: TxClient | pg.Pool, workspaceId: string): Promise<WorkspaceStanding | undefined> {
  // Named, so each connection parses and plans it once: it runs before every tool call.
  const { rows } = await db.query<{ balance: number; plan_id: string | null; overage_allowed: boolean | null; local: boolean }>({
    name: 'credits-workspace-standing',
    text: `SELECT w.credit_balance AS balance, w.plan_id, p.overage_allowed, w.local_data_storage AS local
             FROM workspaces w LEFT JOIN plans p ON p.id = w.plan_id WHERE w.id = $1`,
    values: [workspaceId],
  });
  const row = rows[0];
  if (!row) return undefined;
  const balance = Number(row.balance);
  const overageAllowed = row.overage_allowed === true;
  return { workspaceId, balance, planId: row.plan_id, overageAllowed, paused: isPaused(balance, row.plan_id, overageAllowed), localDataStorage: row.local };
}

/** Credits a workspace created by sign-up starts with, so a new person can try every tool at once. */
export const WELCOME_CREDITS = 100;

/** Grants the welcome credits once (reference `welcome`); true when they were granted now. */
export async function grantWelcomeCredits(pool: pg.Pool, workspaceId: string): Promise<boolean> {
  return grantCredits(pool, workspaceId, WELCOME_CREDITS, 'welcome', 'welcome credits of a new workspace');
}
