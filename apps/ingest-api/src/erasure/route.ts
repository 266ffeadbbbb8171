import {
  confirmErasure, ErasureInputError, ErasureStateError, getErasure, liftSuppression, listErasures, listSuppressions, parseConfirmInput, parseErasureInput,
  requestErasure, type ErasureView, type SuppressionView,
} from '@loupe/erasure';
import { ApiError, BodyTooLargeError, readBoundedBody, type Clock } from '@loupe/http';
import type { Boss } from '@loupe/jobs';
import type { Request, RequestHandler } from 'express';
import type pg from 'pg';

/** The published shape of an erasure request (never the person it erases; a finished dry run's preview names what it found, for the requester to confirm). */
export function erasureBody(e: ErasureView) {
  return {
    id: e.id, status: e.status, phase: e.phase, subjectKind: e.subjectKind, dryRun: e.dryRun, counts: e.counts,
    requestedBy: e.requestedBy, createdAt: e.createdAt.getTime(), updatedAt: e.updatedAt.getTime(),
    ...(e.completedAt ? { completedAt: e.completedAt.getTime() } : {}),
    ...(e.error ? { error: e.error } : {}),
    ...(e.preview ? { preview: { ...e.preview, expiresAt: e.preview.expiresAt.getTime() } } : {}),
  };
}

export function suppressionBody(s: SuppressionView) {
  return {
    id: s.id, kind: s.kind, createdBy: s.createdBy, createdAt: s.createdAt.getTime(),
    ...(s.erasureId ? { erasureId: s.erasureId } : {}),
    ...(s.liftedAt ? { liftedAt: s.liftedAt.getTime(), liftedBy: s.liftedBy } : {}),
  };
}

const requester = (req: Request) => ({ keyId: req.principal!.keyId, label: `API key ${req.principal!.keyId}` });

function idParam(req: Request, name: string): string {
  const id = String(req.params[name]);
  if (id.length > 128) throw ApiError.badRequest(`Path parameter "${name}" must be at most 128 characters`);
  return id;
}

/** A JSON object body of at most 4 KB with only the fields given; `shape` says what one looks like. */
async function readObject(req: Request, fields: string[], shape: string): Promise<Record<string, unknown>> {
  if (!/^application\/json\b/i.test(req.get('content-type') ?? '')) {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', 'Content-Type must be application/json');
  }
  let raw: Buffer;
  try {
    raw = await readBoundedBody(req, 4096);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new ApiError(413, 'PAYLOAD_TOO_LARGE', 'The body exceeds 4096 bytes');
    throw error;
  }
  let body: unknown;
  try {
    body = JSON.parse(raw.toString('utf8'));
  } catch {
    throw ApiError.badRequest(`The body must be a JSON object: ${shape}`);
  }
  if (!body || typeof body !== 'object' || Array.isArray(body)) throw ApiError.badRequest(`The body must be a JSON object: ${shape}`);
  const extra = Object.keys(body).filter((k) => !fields.includes(k));
  if (extra.length) throw ApiError.badRequest(`Unknown field ${JSON.stringify(extra[0])}: give ${fields.map((f) => JSON.stringify(f)).join(', ')}`);
  return body as Record<string, unknown>;
}

function inputError(error: unknown): never {
  if (error instanceof ErasureInputError) throw ApiError.badRequest(error.message);
  if (error instanceof ErasureStateError) throw new ApiError(409, 'CONFLICT', error.message);
  throw error;
}

/** POST /api/v1/erasures {email | participant_id, dry_run}: 202 with the request; the worker does the rest. */
export function createErasureHandler(deps: { pool: pg.Pool; boss: Boss; clock: Clock }): RequestHandler {
  return async (req, res, next) => {
    try {
      const body = await readObject(req, ['email', 'participant_id', 'dry_run'], '{"email": "…"} or {"participant_id": "…"}, and "dry_run": true for a preview');
      let input;
      try {
        input = parseErasureInput(body);
      } catch (error) {
        inputError(error);
      }
      const erasure = await requestErasure(deps.pool, deps.boss, {
        workspaceId: req.principal!.workspaceId, email: input.email, participantId: input.participantId, dryRun: input.dryRun, by: requester(req), now: new Date(deps.clock.now()),
      });
      res.status(202).location(`/api/v1/erasures/${erasure.id}`).json(erasureBody(erasure));
    } catch (error) {
      next(error);
    }
  };
}

/** POST /api/v1/erasures/:erasureId/confirm {names}: a previewed dry run becomes the erasure, with the names ticked. */
export function confirmErasureHandler(deps: { pool: pg.Pool; boss: Boss; clock: Clock }): RequestHandler {
  return async (req, res, next) => {
    try {
      const id = idParam(req, 'erasureId');
      const body = await readObject(req, ['names'], '{"names": ["…"]} (or {} for the addresses and ids only)');
      let erasure;
      try {
        erasure = await confirmErasure(deps.pool, deps.boss, {
          workspaceId: req.principal!.workspaceId, erasureId: id, names: parseConfirmInput(body).names, by: requester(req), now: new Date(deps.clock.now()),
        });
      } catch (error) {
        inputError(error);
      }
      if (!erasure) throw ApiError.notFound(`Erasure "${id}" not found`);
      res.status(202).location(`/api/v1/erasures/${erasure.id}`).json(erasureBody(erasure));
    } catch (error) {
      next(error);
    }
  };
}

/** GET /api/v1/erasures: the workspace's requests, newest first (the audit log). */
export function listErasuresHandler(pool: pg.Pool): RequestHandler {
  return async (req, res, next) => {
    try {
      res.json({ erasures: (await listErasures(pool, req.principal!.workspaceId, 100)).map(erasureBody) });
    } catch (error) {
      next(error);
    }
  };
}

/** GET /api/v1/erasures/:erasureId: progress; another workspace's request is as absent as a missing one. */
export function getErasureHandler(pool: pg.Pool): RequestHandler {
  return async (req, res, next) => {
    try {
      const id = idParam(req, 'erasureId');
      const erasure = await getErasure(pool, req.principal!.workspaceId, id);
      if (!erasure) throw ApiError.notFound(`Erasure "${id}" not found`);
      res.json(erasureBody(erasure));
    } catch (error) {
      next(error);
    }
  };
}

/** GET /api/v1/suppressions?include=lifted */
export function listSuppressionsHandler(pool: pg.Pool): RequestHandler {
  return async (req, res, next) => {
    try {
      const include = req.query.include;
      if (include !== undefined && include !== 'lifted') throw ApiError.badRequest('Query parameter "include" can only be "lifted"');
      const list = await listSuppressions(pool, req.principal!.workspaceId, { includeLifted: include === 'lifted', limit: 500 });
      res.json({ suppressions: list.map(suppressionBody) });
    } catch (error) {
      next(error);
    }
  };
}

/** DELETE /api/v1/suppressions/:suppressionId: lifts it; records naming the person are accepted again. */
export function liftSuppressionHandler(deps: { pool: pg.Pool; clock: Clock }): RequestHandler {
  return async (req, res, next) => {
    try {
      const id = idParam(req, 'suppressionId');
      const lifted = await liftSuppression(deps.pool, req.principal!.workspaceId, id, requester(req).label, new Date(deps.clock.now()));
      if (!lifted) throw ApiError.notFound(`Suppression "${id}" not found or already lifted`);
      res.json(suppressionBody(lifted));
    } catch (error) {
      next(error);
    }
  };
}
