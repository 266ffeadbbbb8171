import { landBatchIn, withLanding } from '@loupe/batches';
import { findSuppressed, SUPPRESSED_CODE, suppressedMessage } from '@loupe/erasure';
import { ApiError, BodyTooLargeError, readBoundedBody, requestFingerprint, type Clock, type IdempotencyStore } from '@loupe/http';
import type { Boss } from '@loupe/jobs';
import {
  BodyError, FORMATS, LIMITS, bodyKindOf, checkRequestRules, parseBody, validateItems,
  type AcceptedRecord, type RecordError,
} from '@loupe/records';
import type { Request, RequestHandler, Response } from 'express';
import type pg from 'pg';

export interface SubmitDeps {
  pool: pg.Pool;
  boss: Boss;
  clock: Clock;
  idempotency: IdempotencyStore;
}

interface Outcome {
  status: number;
  body: Record<string, unknown>;
}

function single(value: unknown, name: string): string | undefined {
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw ApiError.badRequest(`Query parameter "${name}" must be given once`);
  return value;
}

function rejection(code: string, message: string, errors: RecordError[] = [], details?: Record<string, unknown>): Outcome {
  const body: Record<string, unknown> = { error: code, message };
  if (errors.length) body.errors = errors.slice(0, LIMITS.errorsPerResponse);
  if (details) body.details = details;
  return { status: 400, body };
}

/** Product and projects of the request must exist in the key's workspace (projects under that product). */
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

async function ingest(deps: SubmitDeps, req: Request, kind: 'json' | 'ndjson', body: Buffer, format: string | undefined,
  idempotency: { key: string; token: string } | undefined): Promise<Outcome> {
  const workspaceId = req.principal!.workspaceId;
  let items;
  try {
    items = parseBody(kind, body);
  } catch (error) {
    if (error instanceof BodyError) {
      return error.records
        ? rejection(error.code, error.message, error.records.errors, { totalErrorCount: error.records.total })
        : rejection(error.code, error.message);
    }
    throw error;
  }
  const validation = validateItems(items);
  const rule = checkRequestRules(validation.accepted);
  if (rule) return rejection(rule.code, rule.message, rule.errors, { totalErrorCount: rule.errors.length });

  let accepted = validation.accepted;
  let errors = validation.errors;
  if (accepted.length) {
    const routing = await checkRouting(deps.pool, workspaceId, accepted);
    if (!routing.productExists) {
      const message = `_product_id: product "${routing.productId}" not found in this workspace`.slice(0, 2048);
      const named = accepted.map((a) => ({ index: a.index, code: 'UNKNOWN_PRODUCT', message }));
      return rejection('UNKNOWN_PRODUCT', message, named, { totalErrorCount: named.length });
    }
    if (routing.errors.length) {
      const bad = new Set(routing.errors.map((e) => e.index));
      accepted = accepted.filter((a) => !bad.has(a.index));
      errors = [...errors, ...routing.errors].sort((a, b) => a.index - b.index);
    }
  }
  if (!accepted.length) return refusedAll(items.length, errors);
  // A person erased from the workspace stays out until their suppression is lifted (libs/erasure). The
  // suppressions are read in the landing's own transaction, under its lock: one made before is seen, and
  // one made meanwhile waits for this landing to commit (its erasure then finds these records).
  return withLanding(deps.pool, workspaceId, async (client) => {
    let landing = accepted;
    let all = errors;
    const hits = await findSuppressed(client, workspaceId, landing.map((a) => ({ participants: a.record._participants, data: a.record.data })));
    if (hits.size) {
      const suppressed = [...hits].map(([i, hit]) => ({ index: landing[i]!.index, code: SUPPRESSED_CODE, message: suppressedMessage(hit) }));
      landing = landing.filter((_, i) => !hits.has(i));
      all = [...all, ...suppressed].sort((a, b) => a.index - b.index);
    }
    // Nothing written: the transaction ends empty.
    if (!landing.length) return refusedAll(items.length, all);
    const first = all.slice(0, LIMITS.errorsPerResponse);
    const rejectedCount = items.length - landing.length;
    const landed = await landBatchIn(client, deps.boss, {
      workspaceId, apiKeyId: req.principal!.keyId, productId: landing[0]!.record._product_id, type: landing[0]!.record._type,
      source: 'api', format, accepted: landing, rejectedCount, totalErrorCount: all.length, errors: first, now: deps.clock.now(),
    });
    const body: Record<string, unknown> = {
      batchId: landed.batchId, acceptedCount: landing.length, rejectedCount, totalErrorCount: all.length, duplicateCount: landed.duplicateCount,
    };
    if (first.length) body.errors = first;
    const outcome: Outcome = { status: 202, body };
    if (idempotency) {
      await deps.idempotency.complete(client, workspaceId, idempotency.key, idempotency.token, 202, JSON.stringify(outcome.body));
    }
    return outcome;
  });
}

/** Every record of the request refused: a 400 naming them, and no batch. */
function refusedAll(total: number, errors: RecordError[]): Outcome {
  return rejection('VALIDATION_ERROR', `No record was accepted: all ${total} record(s) were rejected`, errors.slice(0, LIMITS.errorsPerResponse), {
    acceptedCount: 0, rejectedCount: total, totalErrorCount: errors.length,
  });
}

function send(res: Response, outcome: { status: number; body: string }, replayed = false) {
  if (replayed) res.setHeader('idempotent-replayed', 'true');
  res.status(outcome.status).type('application/json').send(outcome.body);
}

/** POST /api/v1/ingest */
export function submitHandler(deps: SubmitDeps): RequestHandler {
  return async (req, res, next) => {
    let claimed: { key: string; token: string } | undefined;
    try {
      const kind = bodyKindOf(req.get('content-type'));
      if (!kind) {
        res.setHeader('connection', 'close');
        throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE',
          `Content-Type must be application/json or application/x-ndjson, not ${JSON.stringify(req.get('content-type') ?? '(none)')}`);
      }
      const key = req.get('idempotency-key');
      if (key !== undefined && (key.length === 0 || key.length > LIMITS.idempotencyKeyLength)) {
        throw ApiError.badRequest(`Idempotency-Key must be 1 to ${LIMITS.idempotencyKeyLength} characters (got ${key.length})`);
      }
      const format = single(req.query.format, 'format');
      if (format !== undefined && !(FORMATS as readonly string[]).includes(format)) {
        throw ApiError.badRequest(`Query parameter "format" must be one of ${FORMATS.join(', ')} (got ${JSON.stringify(format)})`);
      }
      let body: Buffer;
      try {
        body = await readBoundedBody(req, LIMITS.bodyBytes);
      } catch (error) {
        if (error instanceof BodyTooLargeError) {
          res.setHeader('connection', 'close');
          throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `The body exceeds ${LIMITS.bodyBytes} bytes (5 MB); send fewer records per request`);
        }
        throw error;
      }
      const workspaceId = req.principal!.workspaceId;
      if (key !== undefined) {
        const fingerprint = requestFingerprint([kind, format ?? '', body]);
        const claim = await deps.idempotency.claim(workspaceId, key, fingerprint);
        if (claim.kind === 'replay') return send(res, claim, true);
        if (claim.kind === 'mismatch') {
          throw new ApiError(422, 'IDEMPOTENCY_KEY_REUSED', 'This Idempotency-Key was already used with a different request body');
        }
        if (claim.kind === 'in_flight') {
          throw new ApiError(409, 'IDEMPOTENCY_KEY_IN_USE', 'A request with this Idempotency-Key is still being processed; retry shortly', {
            retryAfter: 1, headers: { 'retry-after': '1' },
          });
        }
        claimed = { key, token: claim.token };
      }
      const outcome = await ingest(deps, req, kind, body, format, claimed);
      const text = JSON.stringify(outcome.body);
      if (claimed && outcome.status !== 202) {
        await deps.idempotency.complete(deps.pool, workspaceId, claimed.key, claimed.token, outcome.status, text);
      }
      claimed = undefined;
      send(res, { status: outcome.status, body: text });
    } catch (error) {
      if (claimed) await deps.idempotency.release(req.principal!.workspaceId, claimed.key, claimed.token).catch(() => {});
      next(error);
    }
  };
}
