import type { Boss } from '@loupe/jobs';
import { checkRequestRules, validateItems, type AcceptedRecord, type BodyItem, type RecordError } from '@loupe/records';
import type pg from 'pg';
import { landBatchIn, withLanding, type Landed } from './land';

/**
 * Records the caller refuses, checked in the landing transaction under the landing lock (libs/erasure's
 * suppressions): by position in `accepted`, the refusal's code and message.
 */
export type ScreenRecords = (client: pg.PoolClient, workspaceId: string, accepted: readonly AcceptedRecord[]) => Promise<Map<number, { code: string; message: string }>>;

export interface AcceptDeps {
  pool: pg.Pool;
  boss: Boss;
  screen?: ScreenRecords;
}

export interface AcceptInput {
  workspaceId: string;
  apiKeyId: string | null;
  /** The connection whose sync sent them (libs/connectors), or null. */
  connectionId?: string | null;
  source: string;
  format: string | undefined;
  items: BodyItem[];
  now: number;
}

/** Nothing stored: the request as a whole is refused (`errors` lists every refused record). */
export interface Refused {
  landed: false;
  code: string;
  message: string;
  errors: RecordError[];
  details: Record<string, unknown>;
}

export interface Accepted {
  landed: true;
  batchId: string;
  acceptedCount: number;
  rejectedCount: number;
  duplicateCount: number;
  insertedCount: number;
  /** Every refused record, by index. */
  errors: RecordError[];
}

export const MAX_REPORTED_ERRORS = 20;

/** Product and projects of the request must exist in the workspace (projects under that product). */
async function checkRouting(pool: pg.Pool, workspaceId: string, accepted: AcceptedRecord[]) {
  const productId = accepted[0]!.record._product_id;
  const projectIds = [...new Set(accepted.flatMap((a) => a.record._project_ids))];
  const { rows } = await pool.query<{ product: boolean; projects: string[] }>(
    `SELECT EXISTS (SELECT 1 FROM products WHERE id = $2 AND workspace_id = $1) AS product,
            ARRAY(SELECT id FROM projects WHERE workspace_id = $1 AND product_id = $2 AND id = ANY($3::text[])) AS projects`,
    [workspaceId, productId, projectIds],
  );
  const known = new Set(rows[0]!.projects);
  const errors: RecordError[] = [];
  for (const a of accepted) {
    const missing = a.record._project_ids.filter((p) => !known.has(p));
    if (missing.length) {
      errors.push({
        index: a.index,
        code: 'UNKNOWN_PROJECT',
        message: `_project_ids: ${missing.map((m) => JSON.stringify(m)).join(', ')} not found in product "${productId}" of this workspace`.slice(0, 2048),
      });
    }
  }
  return { productId, productExists: rows[0]!.product, errors };
}

/** Every record refused: no batch. */
function refusedAll(total: number, errors: RecordError[]): Refused {
  return {
    landed: false, code: 'VALIDATION_ERROR', message: `No record was accepted: all ${total} record(s) were rejected`, errors,
    details: { acceptedCount: 0, rejectedCount: total, totalErrorCount: errors.length },
  };
}

/**
 * The one path records take in, from the ingestion API and from connectors alike: each record validated
 * against the record schema, the request's rules (one `_type`, one `_product_id`), product and projects of
 * the workspace, the caller's screen under the landing lock, then the batch, its records (each dedup key once
 * per workspace) and its processing job in one transaction. `finalize` runs in that transaction (an
 * idempotency record, a connector's cursor), so a crash leaves all of it or none.
 */
export async function acceptRecords(
  deps: AcceptDeps,
  input: AcceptInput,
  finalize?: (client: pg.PoolClient, accepted: Accepted, landed: Landed) => Promise<void>,
): Promise<Refused | Accepted> {
  const { workspaceId, items } = input;
  const validation = validateItems(items);
  const rule = checkRequestRules(validation.accepted);
  if (rule) return { landed: false, code: rule.code, message: rule.message, errors: rule.errors, details: { totalErrorCount: rule.errors.length } };

  let accepted = validation.accepted;
  let errors = validation.errors;
  if (accepted.length) {
    const routing = await checkRouting(deps.pool, workspaceId, accepted);
    if (!routing.productExists) {
      const message = `_product_id: product "${routing.productId}" not found in this workspace`.slice(0, 2048);
      const named = accepted.map((a) => ({ index: a.index, code: 'UNKNOWN_PRODUCT', message }));
      return { landed: false, code: 'UNKNOWN_PRODUCT', message, errors: named, details: { totalErrorCount: named.length } };
    }
    if (routing.errors.length) {
      const bad = new Set(routing.errors.map((e) => e.index));
      accepted = accepted.filter((a) => !bad.has(a.index));
      errors = [...errors, ...routing.errors].sort((a, b) => a.index - b.index);
    }
  }
  if (!accepted.length) return refusedAll(items.length, errors);
  return withLanding(deps.pool, workspaceId, async (client) => {
    let landing = accepted;
    let all = errors;
    const screened = deps.screen ? await deps.screen(client, workspaceId, landing) : new Map<number, { code: string; message: string }>();
    if (screened.size) {
      const refused = [...screened].map(([i, r]) => ({ index: landing[i]!.index, code: r.code, message: r.message }));
      landing = landing.filter((_, i) => !screened.has(i));
      all = [...all, ...refused].sort((a, b) => a.index - b.index);
    }
    // Nothing written: the transaction ends empty.
    if (!landing.length) return refusedAll(items.length, all);
    const rejectedCount = items.length - landing.length;
    const landed = await landBatchIn(client, deps.boss, {
      workspaceId, apiKeyId: input.apiKeyId, connectionId: input.connectionId ?? null, productId: landing[0]!.record._product_id,
      type: landing[0]!.record._type, source: input.source, format: input.format, accepted: landing, rejectedCount,
      totalErrorCount: all.length, errors: all.slice(0, MAX_REPORTED_ERRORS), now: input.now,
    });
    const outcome: Accepted = {
      landed: true, batchId: landed.batchId, acceptedCount: landing.length, rejectedCount, duplicateCount: landed.duplicateCount,
      insertedCount: landed.insertedCount, errors: all,
    };
    await finalize?.(client, outcome, landed);
    return outcome;
  });
}
