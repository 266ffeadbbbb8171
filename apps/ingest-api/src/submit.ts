import { acceptRecords, type Accepted } from '@loupe/batches';
import { screenSuppressed } from '@loupe/erasure';
import { ApiError, BodyTooLargeError, readBoundedBody, requestFingerprint, type Clock, type IdempotencyStore } from '@loupe/http';
import type { Boss } from '@loupe/jobs';
import { BodyError, FORMATS, LIMITS, bodyKindOf, parseBody, type RecordError } from '@loupe/records';
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
  const outcome = await acceptRecords({ pool: deps.pool, boss: deps.boss, screen: screenSuppressed }, {
    workspaceId, apiKeyId: req.principal!.keyId, source: 'api', format, items, now: deps.clock.now(),
  }, async (client, accepted) => {
    // The answer is stored with the batch: a retry under the same key replays it.
    if (idempotency) await deps.idempotency.complete(client, workspaceId, idempotency.key, idempotency.token, 202, JSON.stringify(answer(accepted)));
  });
  if (!outcome.landed) return rejection(outcome.code, outcome.message, outcome.errors, outcome.details);
  return { status: 202, body: answer(outcome) };
}

function answer(accepted: Accepted): Record<string, unknown> {
  const totalErrorCount = accepted.errors.length;
  const body: Record<string, unknown> = {
    batchId: accepted.batchId, acceptedCount: accepted.acceptedCount, rejectedCount: accepted.rejectedCount, totalErrorCount, duplicateCount: accepted.duplicateCount,
  };
  if (totalErrorCount) body.errors = accepted.errors.slice(0, LIMITS.errorsPerResponse);
  return body;
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
