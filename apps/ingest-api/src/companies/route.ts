import {
  BatchBodyError, DirectoryCursorError, deleteCompany, deletePerson, describeIssues, getCompany, getPerson, listCompanies, listPeople, parseBatchBody,
  upsertCompanies, upsertPeople, validateBatchItems, type DirectoryDeps, type UpsertOutcome,
} from '@loupe/companies';
import { ApiError, BodyTooLargeError, readBoundedBody, type Clock } from '@loupe/http';
import {
  bodyKindOf, COMPANY_LIMITS, companyBodySchema, companyInputSchema, externalIdSchema, personBodySchema, personInputSchema, type ImportResult, type ItemError,
} from '@loupe/records';
import type { Request, RequestHandler } from 'express';
import type { z } from 'zod';

export interface DirectoryRouteDeps extends DirectoryDeps {
  clock: Clock;
}

/**
 * The two kinds of the directory a workspace sends (libs/companies), described once so that the routes of
 * companies and people are the same code: PUT one, POST a batch, GET a page or one, DELETE one.
 */
export interface DirectoryKind<I, V> {
  object: 'company' | 'person';
  noun: 'companies' | 'people';
  path: string;
  body: z.ZodType<Omit<I, 'external_id'> & { external_id?: string | undefined }>;
  item: z.ZodType<I>;
  upsert: (deps: DirectoryDeps, workspaceId: string, inputs: I[], now: Date) => Promise<UpsertOutcome<V>[]>;
  get: (deps: DirectoryDeps, workspaceId: string, externalId: string) => Promise<V | undefined>;
  list: (deps: DirectoryDeps, workspaceId: string, page: { limit: number; cursor?: string | undefined }) => Promise<Record<string, unknown>>;
  remove: (deps: DirectoryDeps, workspaceId: string, externalId: string) => Promise<boolean>;
}

export const COMPANY_KIND: DirectoryKind<z.output<typeof companyInputSchema>, unknown> = {
  object: 'company', noun: 'companies', path: '/api/v1/companies', body: companyBodySchema, item: companyInputSchema,
  upsert: upsertCompanies, get: (d, w, id) => getCompany(d.pool, w, id), list: (d, w, p) => listCompanies(d.pool, w, p), remove: deleteCompany,
};

export const PERSON_KIND: DirectoryKind<z.output<typeof personInputSchema>, unknown> = {
  object: 'person', noun: 'people', path: '/api/v1/people', body: personBodySchema, item: personInputSchema,
  upsert: upsertPeople, get: (d, w, id) => getPerson(d.pool, w, id), list: (d, w, p) => listPeople(d.pool, w, p), remove: deletePerson,
};

const NOUN = { company: 'Company', person: 'Person' } as const;

/** The `external_id` path parameter, checked like the field. */
function externalIdParam(req: Request): string {
  const id = String(req.params.externalId ?? '');
  const parsed = externalIdSchema.safeParse(id);
  if (!parsed.success) throw ApiError.badRequest(`Path parameter "external_id": ${parsed.error.issues[0]!.message}`);
  return id;
}

async function readBody(req: Request, limit: number, noun: string, ndjson: boolean): Promise<{ kind: 'json' | 'ndjson'; body: Buffer }> {
  const kind = bodyKindOf(req.get('content-type'));
  if (!kind || (kind === 'ndjson' && !ndjson)) {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE',
      `Content-Type must be application/json${ndjson ? ' or application/x-ndjson' : ''}, not ${JSON.stringify((req.get('content-type') ?? '(none)').slice(0, 100))}`);
  }
  try {
    return { kind, body: await readBoundedBody(req, limit) };
  } catch (error) {
    if (error instanceof BodyTooLargeError) {
      throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `The body exceeds ${limit} bytes${ndjson ? ' (5 MB); send fewer ' + noun + ' per request' : ''}`);
    }
    throw error;
  }
}

/** An item's refusal as an HTTP answer of a PUT: a clash with another one is a 409, the rest a 400. */
function refusal(outcome: { code: string; message: string }): ApiError {
  const status = outcome.code === 'DOMAIN_TAKEN' || outcome.code === 'EMAIL_TAKEN' ? 409 : 400;
  return new ApiError(status, outcome.code, outcome.message);
}

/** PUT /api/v1/{companies|people}/{external_id}: the whole object, created (201) or replaced (200). */
export function putHandler<I, V>(deps: DirectoryRouteDeps, kind: DirectoryKind<I, V>): RequestHandler {
  return async (req, res, next) => {
    try {
      const externalId = externalIdParam(req);
      const { body } = await readBody(req, COMPANY_LIMITS.singleBodyBytes, kind.noun, false);
      let value: unknown;
      try {
        value = JSON.parse(body.toString('utf8').replace(/^\uFEFF/, ''));
      } catch (error) {
        throw new ApiError(400, 'INVALID_JSON', `The body is not valid JSON: ${(error as Error).message}`);
      }
      const parsed = kind.body.safeParse(value);
      if (!parsed.success) throw new ApiError(400, 'VALIDATION_ERROR', describeIssues(parsed.error, value, kind.object));
      if (parsed.data.external_id !== undefined && parsed.data.external_id !== externalId) {
        throw new ApiError(400, 'VALIDATION_ERROR', `external_id: ${JSON.stringify(parsed.data.external_id.slice(0, 256))} differs from the path's ${JSON.stringify(externalId)}; leave it out or make them equal`);
      }
      const input = { ...parsed.data, external_id: externalId } as I;
      const [outcome] = await kind.upsert(deps, req.principal!.workspaceId, [input], new Date(deps.clock.now()));
      if (!outcome!.ok) throw refusal(outcome!);
      res.status(outcome!.created ? 201 : 200).location(`${kind.path}/${encodeURIComponent(externalId)}`).json(outcome!.value);
    } catch (error) {
      next(error);
    }
  };
}

/** POST /api/v1/{companies|people}:batch: 1 to 1,000 items, each validated and stored alone; 200 with the counts and the first errors. */
export function batchHandler<I, V>(deps: DirectoryRouteDeps, kind: DirectoryKind<I, V>): RequestHandler {
  return async (req, res, next) => {
    try {
      const { kind: bodyKind, body } = await readBody(req, COMPANY_LIMITS.bodyBytes, kind.noun, true);
      let items;
      try {
        items = parseBatchBody(bodyKind, body, kind.noun);
      } catch (error) {
        if (error instanceof BatchBodyError) {
          throw new ApiError(400, error.code, error.message, error.errors.length ? { body: { errors: error.errors } } : {});
        }
        throw error;
      }
      const { accepted, errors } = validateBatchItems(items, kind.item, kind.object);
      const outcomes = await kind.upsert(deps, req.principal!.workspaceId, accepted.map((a) => a.input as I), new Date(deps.clock.now()));
      const all: ItemError[] = [...errors];
      let createdCount = 0;
      let updatedCount = 0;
      outcomes.forEach((o, i) => {
        if (o.ok) {
          if (o.created) createdCount++;
          else updatedCount++;
        } else all.push({ index: accepted[i]!.index, code: o.code, message: o.message });
      });
      all.sort((a, b) => a.index - b.index);
      const result: ImportResult = {
        createdCount, updatedCount, rejectedCount: items.length - createdCount - updatedCount, errors: all.slice(0, COMPANY_LIMITS.errorsPerResponse),
      };
      res.status(200).json(result);
    } catch (error) {
      next(error);
    }
  };
}

function pageSize(raw: unknown): number {
  if (raw === undefined) return COMPANY_LIMITS.pageSizeDefault;
  if (typeof raw !== 'string' || !/^\d{1,3}$/.test(raw) || Number(raw) < 1 || Number(raw) > COMPANY_LIMITS.pageSizeMax) {
    throw ApiError.badRequest(`Query parameter "limit" must be an integer from 1 to ${COMPANY_LIMITS.pageSizeMax} (got ${JSON.stringify(String(raw).slice(0, 50))})`);
  }
  return Number(raw);
}

/** GET /api/v1/{companies|people}?limit=&cursor=: newest first. */
export function listHandler<I, V>(deps: DirectoryRouteDeps, kind: DirectoryKind<I, V>): RequestHandler {
  return async (req, res, next) => {
    try {
      const limit = pageSize(req.query.limit);
      const cursor = req.query.cursor;
      if (cursor !== undefined && (typeof cursor !== 'string' || cursor.length === 0 || cursor.length > COMPANY_LIMITS.cursorLength)) {
        throw ApiError.badRequest(`Query parameter "cursor" must be a nextCursor of 1 to ${COMPANY_LIMITS.cursorLength} characters`);
      }
      try {
        res.json(await kind.list(deps, req.principal!.workspaceId, { limit, cursor }));
      } catch (error) {
        if (error instanceof DirectoryCursorError) throw ApiError.badRequest(`Query parameter "cursor": ${error.message}`);
        throw error;
      }
    } catch (error) {
      next(error);
    }
  };
}

/** GET /api/v1/{companies|people}/{external_id}: another workspace's is as absent as a missing one. */
export function getHandler<I, V>(deps: DirectoryRouteDeps, kind: DirectoryKind<I, V>): RequestHandler {
  return async (req, res, next) => {
    try {
      const externalId = externalIdParam(req);
      const found = await kind.get(deps, req.principal!.workspaceId, externalId);
      if (!found) throw ApiError.notFound(`${NOUN[kind.object]} ${JSON.stringify(externalId)} not found`);
      res.json(found);
    } catch (error) {
      next(error);
    }
  };
}

/** DELETE /api/v1/{companies|people}/{external_id}: `{external_id, object, deleted: true}`; 404 after. */
export function deleteHandler<I, V>(deps: DirectoryRouteDeps, kind: DirectoryKind<I, V>): RequestHandler {
  return async (req, res, next) => {
    try {
      const externalId = externalIdParam(req);
      if (!(await kind.remove(deps, req.principal!.workspaceId, externalId))) throw ApiError.notFound(`${NOUN[kind.object]} ${JSON.stringify(externalId)} not found`);
      res.json({ external_id: externalId, object: kind.object, deleted: true });
    } catch (error) {
      next(error);
    }
  };
}
