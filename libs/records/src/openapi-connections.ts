import { z } from 'zod';
import {
  CONNECTION_LIMITS, connectionListSchema, connectionSchema, createConnectionSchema, deletedConnectionSchema, updateConnectionSchema,
} from './connection-schemas';

// Connections to vendors (libs/connectors): credentials go in and never come out; the worker syncs on a schedule.

type Helpers = {
  error: (description: string, examples: Record<string, { summary: string; value: unknown }>) => unknown;
  one: (summary: string, value: Record<string, unknown>) => Record<string, { summary: string; value: unknown }>;
  common: Record<string, unknown>;
};

const json = (schema: z.ZodType, io: 'input' | 'output') => {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, reused: 'inline' }) as Record<string, unknown>;
  return rest;
};

const EXAMPLE = {
  id: 'conn_01m8eebbedjs1cs914635ehk4n', kind: 'zendesk', product_id: 'prod_01h…', project_id: 'proj_01h…', base_url: 'https://acme.zendesk.com',
  settings: { start_date: '2026-01-01' }, status: 'active', sync_interval_minutes: 15, last_synced_at: '2026-11-28T09:15:02.000Z',
  last_success_at: '2026-11-28T09:15:02.000Z', last_error: null, last_error_at: null, records: 10412, duplicates: 37, rejected: 0, companies: 214, people: 3120,
  created_at: '2026-11-20T08:00:00.000Z', updated_at: '2026-11-28T09:15:02.000Z',
};
const FAILING = {
  ...EXAMPLE, status: 'failing', last_error: "zendesk refused the credentials: 401 Couldn't authenticate you", last_error_at: '2026-11-28T09:30:01.000Z',
};
const CREATE = {
  kind: 'zendesk', product_id: 'prod_01h…', project_id: 'proj_01h…', base_url: 'https://acme.zendesk.com',
  credentials: { email: 'ops@acme.com', api_token: '…' }, settings: { start_date: '2026-01-01', tags: ['feedback'] },
};

/** The connections paths of the OpenAPI document. */
export function connectionPaths({ error, one, common }: Helpers): Record<string, unknown> {
  const tag = ['Connections'];
  const idParam = { name: 'connectionId', in: 'path', required: true, description: 'The connection\'s id (conn_…).', schema: { type: 'string', maxLength: 64 } };
  const notFound = error('No such connection in this workspace (never there, another workspace\'s, or deleted)',
    one('Unknown, another workspace\'s or deleted', { error: 'NOT_FOUND', message: 'Connection "conn_x" not found' }));
  const view = json(connectionSchema, 'output');
  const ok = (description: string, example: unknown = EXAMPLE) => ({ description, content: { 'application/json': { schema: view, example } } });
  const invalid = error('A field that is wrong (named; credentials are never echoed), an unknown field, or not JSON', {
    field: { summary: 'A wrong field', value: { error: 'VALIDATION_ERROR', message: 'connection: settings.start_date: Invalid ISO date' } },
    baseUrl: { summary: 'A private address', value: { error: 'INVALID_REQUEST', message: 'base_url: 10.0.0.8 is refused (private address)' } },
  });
  const bodyErrors = {
    '413': error(`Body over ${CONNECTION_LIMITS.bodyBytes} bytes`, one('Too large', { error: 'PAYLOAD_TOO_LARGE', message: `The body exceeds ${CONNECTION_LIMITS.bodyBytes} bytes` })),
    '415': error('Not JSON', one('Wrong content type', { error: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json, not "text/plain"' })),
  };
  const stateChange = (operationId: string, summary: string, description: string) => ({
    post: {
      operationId, tags: tag, summary, description, parameters: [idParam],
      responses: { '200': ok('The connection'), '404': notFound, ...common },
    },
  });
  return {
    '/api/v1/connections': {
      post: {
        operationId: 'createConnection',
        tags: tag,
        summary: 'Connect a vendor (needs api:write)',
        description:
          'Stores the connection with its credentials encrypted (they are never returned), and queues its first sync: a backfill from `settings.start_date`, ' +
          `then every \`sync_interval_minutes\` (${CONNECTION_LIMITS.intervalDefaultMinutes} by default) from where it stopped. Its records go through the same validation as ` +
          'POST /api/v1/ingest, into the product and project given.',
        requestBody: { required: true, content: { 'application/json': { schema: json(createConnectionSchema, 'input'), example: CREATE } } },
        responses: {
          '201': ok('Created (Location names it); its first sync is queued', { ...EXAMPLE, last_synced_at: null, last_success_at: null, records: 0, duplicates: 0, companies: 0, people: 0 }),
          '400': error('A wrong field, a base_url that is refused, or a product or project not in this workspace', {
            field: { summary: 'A wrong field', value: { error: 'VALIDATION_ERROR', message: 'connection: credentials: Invalid input' } },
            project: { summary: 'Unknown project', value: { error: 'UNKNOWN_PROJECT', message: 'project_id: project "proj_x" of product "prod_01h…" not found in this workspace' } },
          }),
          ...bodyErrors,
          ...common,
        },
      },
      get: {
        operationId: 'listConnections',
        tags: tag,
        summary: 'The workspace\'s connections, newest first (needs api:read or api:write)',
        responses: { '200': { description: 'Every connection', content: { 'application/json': { schema: json(connectionListSchema, 'output'), example: { connections: [EXAMPLE] } } } }, ...common },
      },
    },
    '/api/v1/connections/{connectionId}': {
      get: {
        operationId: 'getConnection',
        tags: tag,
        summary: 'One connection: status, last sync, records brought in, last error (needs api:read or api:write)',
        parameters: [idParam],
        responses: { '200': ok('The connection'), '404': notFound, ...common },
      },
      patch: {
        operationId: 'updateConnection',
        tags: tag,
        summary: 'Change settings, credentials, base_url or interval (needs api:write)',
        description: 'What is given replaces what was. New credentials are checked against the connection\'s kind; a failing connection becomes active and syncs at once.',
        parameters: [idParam],
        requestBody: { required: true, content: { 'application/json': { schema: json(updateConnectionSchema, 'input'), example: { credentials: { access_token: '…' } } } } },
        responses: { '200': ok('The connection'), '400': invalid, '404': notFound, ...bodyErrors, ...common },
      },
      delete: {
        operationId: 'deleteConnection',
        tags: tag,
        summary: 'Delete a connection, and with `with_data=true` the records it brought (needs api:write)',
        description: 'The connection and its credentials go at once. With `with_data=true` its records, with their sources, signals and files, are deleted in the background through the same deletion as DELETE /api/v1/records; without, they stay.',
        parameters: [idParam, { name: 'with_data', in: 'query', required: false, schema: { type: 'string', enum: ['true', 'false'], default: 'false' } }],
        responses: {
          '200': { description: 'Deleted', content: { 'application/json': { schema: json(deletedConnectionSchema, 'output'), example: { id: EXAMPLE.id, object: 'connection', deleted: true, data: 'deleting' } } } },
          '400': error('with_data neither true nor false', one('Bad flag', { error: 'INVALID_REQUEST', message: 'Query parameter "with_data" must be true or false' })),
          '404': notFound,
          ...common,
        },
      },
    },
    '/api/v1/connections/{connectionId}/pause': stateChange('pauseConnection', 'Pause a connection: no sync until resumed (needs api:write)', 'An active or failing connection becomes paused; its cursor is kept.'),
    '/api/v1/connections/{connectionId}/resume': stateChange('resumeConnection', 'Resume a paused connection; it syncs at once (needs api:write)', 'A paused connection becomes active and a sync is queued; a failing one stays failing until its credentials change.'),
    '/api/v1/connections/{connectionId}/sync': {
      post: {
        operationId: 'syncConnection',
        tags: tag,
        summary: 'Sync now (needs api:write)',
        description: 'Queues a sync from the stored cursor. One waits at most; a sync already running is not doubled.',
        parameters: [idParam],
        responses: {
          '202': { description: 'Queued', content: { 'application/json': { schema: { type: 'object', properties: { id: { type: 'string', description: 'The connection\'s id.' }, object: { const: 'connection', description: 'What was asked to sync.' }, sync: { const: 'queued', description: 'A sync is queued.' } }, required: ['id', 'object', 'sync'], additionalProperties: false }, example: { id: EXAMPLE.id, object: 'connection', sync: 'queued' } } } },
          '404': notFound,
          '409': error('Paused, or failing until its credentials change', {
            paused: { summary: 'Paused', value: { error: 'CONNECTION_NOT_ACTIVE', message: 'The connection is paused: resume it first' } },
            failing: { summary: 'Failing', value: { error: 'CONNECTION_NOT_ACTIVE', message: `The connection is failing (${FAILING.last_error}): update its credentials first` } },
          }),
          ...common,
        },
      },
    },
  };
}
