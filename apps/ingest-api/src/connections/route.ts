import { isIP } from 'node:net';
import { describeIssues } from '@loupe/companies';
import {
  cancelWaitingSyncs, CONNECTORS, connectionView, deleteConnectionRow, findConnection, insertConnection, listConnectionRows, loadKeyring, setPaused, updateConnectionRow,
  type ConnectionRow, type Keyring,
} from '@loupe/connectors';
import { ApiError, BodyTooLargeError, readBoundedBody, type Clock } from '@loupe/http';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import { bodyKindOf, CONNECTION_LIMITS, createConnectionSchema, updateConnectionSchema } from '@loupe/records';
import { parseFetchUrl, refusalReason } from '@loupe/safe-fetch';
import type { Request, RequestHandler } from 'express';
import type pg from 'pg';
import { z } from 'zod';

export interface ConnectionRouteDeps {
  pool: pg.Pool;
  boss: Boss;
  clock: Clock;
  /** CONNECTIONS_KEY as configured; undefined: the development key kept in the database. */
  connectionsKey: string | undefined;
  /** FETCH_ALLOW_LOOPBACK: a base_url on loopback is allowed (tests, local demos). */
  allowLoopback: boolean;
}

/** The keyring, loaded once on first use (the development key may have to be made in the database). */
export function keyringOnce(deps: ConnectionRouteDeps): () => Promise<Keyring> {
  let loading: Promise<Keyring> | undefined;
  return () => (loading ??= loadKeyring(deps.pool, deps.connectionsKey).catch((error: unknown) => {
    loading = undefined;
    throw error;
  }));
}

async function readJson<T>(req: Request, schema: z.ZodType<T>): Promise<T> {
  if (bodyKindOf(req.get('content-type')) !== 'json') {
    throw new ApiError(415, 'UNSUPPORTED_MEDIA_TYPE', `Content-Type must be application/json, not ${JSON.stringify((req.get('content-type') ?? '(none)').slice(0, 100))}`);
  }
  let body: Buffer;
  try {
    body = await readBoundedBody(req, CONNECTION_LIMITS.bodyBytes);
  } catch (error) {
    if (error instanceof BodyTooLargeError) throw new ApiError(413, 'PAYLOAD_TOO_LARGE', `The body exceeds ${CONNECTION_LIMITS.bodyBytes} bytes`);
    throw error;
  }
  let value: unknown;
  try {
    value = JSON.parse(body.toString('utf8').replace(/^\uFEFF/, ''));
  } catch (error) {
    throw new ApiError(400, 'INVALID_JSON', `The body is not valid JSON: ${(error as Error).message}`);
  }
  const parsed = schema.safeParse(value);
  // describeIssues names fields and paths, never the values sent: credentials are not echoed back.
  if (!parsed.success) throw new ApiError(400, 'VALIDATION_ERROR', describeIssues(parsed.error, value, 'connection'));
  return parsed.data;
}

/** https, or http on loopback when FETCH_ALLOW_LOOPBACK; a literal private or loopback address refused as the fetcher would. */
function checkBaseUrl(deps: ConnectionRouteDeps, value: string): string {
  let url: URL;
  try {
    url = parseFetchUrl(value);
  } catch (error) {
    throw ApiError.badRequest(`base_url: ${(error as Error).message}`);
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  // Names are checked when fetched (every address they resolve to); a literal address is refused now.
  const reason = isIP(host) ? refusalReason(host, { allowLoopback: deps.allowLoopback }) : undefined;
  if (reason) throw ApiError.badRequest(`base_url: ${host} is refused (${reason})`);
  const loopback = host === 'localhost' || host === '127.0.0.1' || host === '::1';
  if (url.protocol !== 'https:' && !(deps.allowLoopback && loopback)) throw ApiError.badRequest('base_url: must be an https URL');
  if (url.pathname !== '/' || url.search || url.hash) throw ApiError.badRequest(`base_url: give the address alone, e.g. ${url.origin} (no path, query or fragment)`);
  return url.origin;
}

const ID = /^conn_[0-9a-z]{26}$/;

async function connectionOf(deps: ConnectionRouteDeps, req: Request): Promise<ConnectionRow> {
  const id = String(req.params.connectionId ?? '');
  const found = ID.test(id) ? await findConnection(deps.pool, req.principal!.workspaceId, id) : undefined;
  if (!found) throw ApiError.notFound(`Connection ${JSON.stringify(id.slice(0, 64))} not found`);
  return found;
}

type Handler = (req: Request) => Promise<{ status: number; body: unknown; location?: string }>;

function handle(fn: Handler): RequestHandler {
  return async (req, res, next) => {
    try {
      const out = await fn(req);
      if (out.location) res.location(out.location);
      res.status(out.status).json(out.body);
    } catch (error) {
      next(error);
    }
  };
}

async function queueSync(boss: Boss, row: ConnectionRow, client?: pg.PoolClient) {
  await enqueue(boss, QUEUES.syncConnection, { workspaceId: row.workspace_id, connectionId: row.id, reason: 'now' }, client ? { client } : {});
}

/** The connections routes: create, list, read, update, pause, resume, sync now, delete (with its data or not). */
export function connectionHandlers(deps: ConnectionRouteDeps) {
  const keyring = keyringOnce(deps);
  const now = () => new Date(deps.clock.now());
  return {
    /** POST /api/v1/connections: stored, and its first sync (the backfill) queued at once. */
    create: handle(async (req) => {
      const input = await readJson(req, createConnectionSchema);
      const workspaceId = req.principal!.workspaceId;
      // A vendor with one public address (Intercom: https://api.intercom.io) may be created without base_url.
      const givenBaseUrl = input.base_url ?? CONNECTORS.get(input.kind)?.defaultBaseUrl;
      if (!givenBaseUrl) throw new ApiError(400, 'VALIDATION_ERROR', `connection: base_url: required for kind "${input.kind}"`);
      const baseUrl = checkBaseUrl(deps, givenBaseUrl);
      const { rows } = await deps.pool.query<{ ok: boolean }>(
        'SELECT EXISTS (SELECT 1 FROM projects WHERE workspace_id = $1 AND product_id = $2 AND id = $3) AS ok', [workspaceId, input.product_id, input.project_id]);
      if (!rows[0]!.ok) throw new ApiError(400, 'UNKNOWN_PROJECT', `project_id: project ${JSON.stringify(input.project_id)} of product ${JSON.stringify(input.product_id)} not found in this workspace`.slice(0, 2048));
      const row = await insertConnection(deps.pool, await keyring(), workspaceId, {
        kind: input.kind, productId: input.product_id, projectId: input.project_id, baseUrl, settings: input.settings ?? {}, credentials: input.credentials,
        syncIntervalSeconds: (input.sync_interval_minutes ?? CONNECTION_LIMITS.intervalDefaultMinutes) * 60,
      }, now());
      await queueSync(deps.boss, row);
      return { status: 201, body: connectionView(row), location: `/api/v1/connections/${row.id}` };
    }),
    list: handle(async (req) => ({ status: 200, body: { connections: (await listConnectionRows(deps.pool, req.principal!.workspaceId)).map(connectionView) } })),
    get: handle(async (req) => ({ status: 200, body: connectionView(await connectionOf(deps, req)) })),
    /** PATCH /api/v1/connections/{id}: settings and credentials checked against the connection's kind. */
    update: handle(async (req) => {
      const row = await connectionOf(deps, req);
      const input = await readJson(req, updateConnectionSchema);
      const connector = CONNECTORS.get(row.kind)!;
      // Checked under their field's name, so a refusal names the whole path (settings.start_date: …).
      const check = <T>(schema: z.ZodType<T>, value: unknown, what: string): T => {
        const parsed = z.strictObject({ [what]: schema }).safeParse({ [what]: value });
        if (!parsed.success) throw new ApiError(400, 'VALIDATION_ERROR', describeIssues(parsed.error, { [what]: value }, 'connection'));
        return parsed.data[what] as T;
      };
      const updated = await updateConnectionRow(deps.pool, await keyring(), row.workspace_id, row.id, {
        ...(input.settings !== undefined ? { settings: check(connector.settingsSchema, input.settings, 'settings') as Record<string, unknown> } : {}),
        ...(input.credentials !== undefined ? { credentials: check(connector.credentialsSchema, input.credentials, 'credentials') } : {}),
        ...(input.base_url !== undefined ? { baseUrl: checkBaseUrl(deps, input.base_url) } : {}),
        ...(input.sync_interval_minutes !== undefined ? { syncIntervalSeconds: input.sync_interval_minutes * 60 } : {}),
      }, now());
      if (!updated) throw ApiError.notFound(`Connection ${JSON.stringify(row.id)} not found`);
      // New credentials on a connection that was failing: it is active again, and syncs now.
      if (input.credentials !== undefined && row.status === 'failing' && updated.status === 'active') await queueSync(deps.boss, updated);
      return { status: 200, body: connectionView(updated) };
    }),
    pause: handle(async (req) => {
      const row = await connectionOf(deps, req);
      const paused = (await setPaused(deps.pool, row.workspace_id, row.id, true, now()))!;
      await cancelWaitingSyncs(deps.pool, deps.boss, row.id);
      return { status: 200, body: connectionView(paused) };
    }),
    resume: handle(async (req) => {
      const row = await connectionOf(deps, req);
      const resumed = (await setPaused(deps.pool, row.workspace_id, row.id, false, now()))!;
      if (row.status === 'paused' && resumed.status === 'active') await queueSync(deps.boss, resumed);
      return { status: 200, body: connectionView(resumed) };
    }),
    /** POST /api/v1/connections/{id}/sync: 202, a sync queued now (one waits at most; a running one is not doubled). */
    sync: handle(async (req) => {
      const row = await connectionOf(deps, req);
      if (row.status !== 'active') {
        throw new ApiError(409, 'CONNECTION_NOT_ACTIVE', row.status === 'paused'
          ? 'The connection is paused: resume it first'
          : `The connection is failing (${row.last_error ?? 'credentials refused'}): update its credentials first`);
      }
      await queueSync(deps.boss, row);
      return { status: 202, body: { id: row.id, object: 'connection', sync: 'queued' } };
    }),
    /** DELETE /api/v1/connections/{id}[?with_data=true]: the connection and its credentials at once; its records kept, or deleted in the background. */
    remove: handle(async (req) => {
      const withData = req.query.with_data;
      if (withData !== undefined && withData !== 'true' && withData !== 'false') throw ApiError.badRequest('Query parameter "with_data" must be true or false');
      const row = await connectionOf(deps, req);
      await deleteConnectionRow(deps.pool, row.workspace_id, row.id);
      await cancelWaitingSyncs(deps.pool, deps.boss, row.id);
      if (withData === 'true') await enqueue(deps.boss, QUEUES.purgeConnection, { workspaceId: row.workspace_id, connectionId: row.id });
      return { status: 200, body: { id: row.id, object: 'connection', deleted: true, data: withData === 'true' ? 'deleting' : 'kept' } };
    }),
  };
}
