import { z } from 'zod';
import {
  FORMATS, LIMITS, attachmentSchema, batchListSchema, batchSchema, deletedRecordSchema, deletedSourceSchema, errorResponseSchema, ipRateLimitedSchema, participantSchema,
  piiEntitySchema, piiSchema, recordErrorSchema, recordSchema, submissionResponseSchema,
} from './schemas';
import { companyPaths } from './openapi-companies';
import { connectionPaths } from './openapi-connections';
import { emailForwardingPaths } from './openapi-email-forwarding';
import { erasurePaths } from './openapi-erasure';

// Refinements do not carry over to JSON Schema; say the same rules in its words.
const recordForExport = recordSchema.extend({
  _vendor_ids: z.record(z.string(), z.string()).meta({ minProperties: 1, description: 'Origin identifiers; at least one entry.' }),
});

function components() {
  const registry = z.registry<{ id: string }>();
  registry.add(recordForExport, { id: 'Record' });
  registry.add(participantSchema, { id: 'Participant' });
  registry.add(attachmentSchema, { id: 'Attachment' });
  registry.add(piiSchema, { id: 'Pii' });
  registry.add(piiEntitySchema, { id: 'PiiEntity' });
  registry.add(recordErrorSchema, { id: 'RecordError' });
  registry.add(submissionResponseSchema, { id: 'SubmissionResponse' });
  registry.add(batchSchema, { id: 'Batch' });
  registry.add(batchListSchema, { id: 'BatchList' });
  registry.add(errorResponseSchema, { id: 'ErrorResponse' });
  registry.add(ipRateLimitedSchema, { id: 'IpRateLimited' });
  registry.add(deletedSourceSchema, { id: 'DeletedSource' });
  registry.add(deletedRecordSchema, { id: 'DeletedRecord' });
  const out = z.toJSONSchema(registry, { target: 'draft-2020-12', io: 'input', uri: (id) => `#/components/schemas/${id}` });
  const schemas: Record<string, Record<string, unknown>> = {};
  for (const [id, s] of Object.entries(out.schemas)) {
    const { $schema: _s, $id: _i, ...rest } = s as Record<string, unknown>;
    schemas[id] = rest;
  }
  return schemas;
}

/** JSON Schema (2020-12) of one record, as served at /api/v1/schemas/record.json. */
export function recordJsonSchema(baseUrl: string): Record<string, unknown> {
  const s = z.toJSONSchema(recordForExport, { target: 'draft-2020-12', io: 'input', reused: 'inline' }) as Record<string, unknown>;
  return { ...s, $id: `${baseUrl}/api/v1/schemas/record.json`, title: 'Record' };
}

const ref = (id: string) => ({ $ref: `#/components/schemas/${id}` });
type Example = { summary: string; value: unknown };
const error = (description: string, examples: Record<string, Example>) => ({
  description, content: { 'application/json': { schema: ref('ErrorResponse'), examples } },
});
const one = (summary: string, value: Record<string, unknown>) => ({ example: { summary, value } });
const common = {
  '401': error('API key missing, unknown or revoked', {
    missing: { summary: 'No x-api-key header', value: { error: 'UNAUTHORIZED', message: 'Missing API key: send it in the x-api-key header' } },
    invalid: { summary: 'Unknown or revoked key', value: { error: 'UNAUTHORIZED', message: 'Invalid API key: it is unknown or has been revoked' } },
  }),
  '403': error('The key lacks the permission this endpoint needs',
    one('A read-only key sending records', { error: 'FORBIDDEN', message: 'This API key lacks the "api:write" permission' })),
  '429': {
    description: 'Rate limit exceeded: 10 requests per second per API key (an ErrorResponse, RATE_LIMITED), or the limit of one IP address ' +
      'across the service (an IpRateLimited body); see the Retry-After header',
    content: {
      'application/json': {
        schema: { oneOf: [ref('ErrorResponse'), ref('IpRateLimited')] },
        examples: {
          key: { summary: 'Too fast for this API key', value: { error: 'RATE_LIMITED', message: 'Rate limit of 10 requests per second per API key exceeded', retryAfter: 1 } },
          ip: {
            summary: 'Too many requests from one IP address',
            value: {
              msg: 'Too many requests from your IP address: at most 2000 per minute. Retry in 12 seconds.', retryAfterSeconds: 12, limit: 2000, windowSeconds: 60,
              error: 'rate_limit_exceeded', error_description: 'Too many requests from this IP address; retry in 12 seconds', retry_after: 12,
            },
          },
        },
      },
    },
  },
  '500': error('Unexpected server error; retry',
    one('Logged with the request id', { error: 'INTERNAL_ERROR', message: 'Unexpected server error; retry. Request id: 3f1c…' })),
  '503': error('Database unavailable, or the request collided with a concurrent one; nothing was stored; retry after Retry-After seconds',
    one('Database restarting', { error: 'SERVICE_UNAVAILABLE', message: 'The service is temporarily unavailable; retry shortly', retryAfter: 1 })),
};

/**
 * 403 of an endpoint that also needs a role (issue 41 finding 6): a key acts as its creator, so it can do
 * no more than the account pages let that person do, by their role now (libs/accounts ROLE_RULES).
 */
function forbiddenWithRole(roles: 'owners' | 'owners and admins', what: string): unknown {
  const requiredRoles = roles === 'owners' ? ['owner'] : ['owner', 'admin'];
  const member = roles === 'owners' ? 'an admin' : 'a member';
  return error(`The key lacks api:write, or the person who created it is not one of the workspace's ${roles} now (a key acts as its creator; checked on every request)`, {
    permission: { summary: 'A read-only key', value: { error: 'FORBIDDEN', message: 'This API key lacks the "api:write" permission' } },
    role: {
      summary: `A key whose creator is ${member}`,
      value: {
        error: 'FORBIDDEN',
        message: `Only ${roles} can ${what}: this API key acts as the person who created it, who is ${member} of this workspace. Ask one of the workspace's ${roles} to do it, or to create a key for it.`,
        details: { requiredRoles, creatorRole: roles === 'owners' ? 'admin' : 'member' },
      },
    },
  });
}

const RECORD_EXAMPLE = {
  _type: 'call_transcription', _schema_version: '1.0.0', _event_at: '2026-03-04T05:06:07Z', _vendor_ids: { gong: 'call-8812' },
  _product_id: 'prod_01h…', _project_ids: ['proj_01h…'], _nature: 'evidence',
  _participants: [{ id: 'ana@globex.test', role: 'external', name: 'Ana' }],
  data: { title: 'Call with Globex', transcript: [{ speaker: 'Ana', text: 'Exporting to Excel takes forever.' }] },
};
const BATCH_EXAMPLE = {
  batchId: 'bat_01m82…', status: 'COMPLETE', createdAt: 1772600767000, acceptedCount: 2, rejectedCount: 1, duplicateCount: 0,
  totalErrorCount: 1, errors: [{ index: 1, code: 'VALIDATION_ERROR', message: '_event_at: is not a real date and time' }],
  source: 'api', type: 'call_transcription', billing: { totalCreditsCharged: 2 },
};

/** DELETE of a source or a record: they go together, with everything that hangs off them. */
function deletion(object: 'source' | 'record') {
  const [noun, param, other, otherId] = object === 'source' ? ['Source', 'sourceId', 'recordId', 'rec_01m83…'] : ['Record', 'recordId', 'sourceId', 'src_01m84…'];
  const id = object === 'source' ? 'src_01m84…' : 'rec_01m83…';
  return {
    operationId: object === 'source' ? 'deleteSource' : 'deleteRecord',
    tags: ['Deletion'],
    summary: `Delete a ${object} and everything that hangs off it (needs api:write, and a key created by an owner or an admin)`,
    description:
      `Deletes the ${object} and the ${object === 'source' ? 'record it was built from' : 'source built from it'}: segments, search text, vector, attachments and their stored files, ` +
      'the signals taken from it (with their history) and its share of opportunities (counts change at once; an opportunity left without signals goes). ' +
      'Credits already charged stay charged; the batch keeps its counts and adds the record to `deletedCount`. ' +
      `Deleting again answers 404, as does an id of another workspace.`,
    parameters: [{ name: param, in: 'path', required: true, schema: { type: 'string', maxLength: LIMITS.batchIdLength } }],
    responses: {
      '200': { description: 'Deleted', content: { 'application/json': { schema: ref(object === 'source' ? 'DeletedSource' : 'DeletedRecord'), example: { id, object, deleted: true, [other]: otherId } } } },
      '400': error(`${param} longer than 128 characters`, one('Too long', { error: 'INVALID_REQUEST', message: `Path parameter "${param}" must be at most 128 characters` })),
      '404': error(`No such ${object} in this workspace (never there, another workspace's, or already deleted)`,
        one('Unknown, another workspace\'s or already deleted', { error: 'NOT_FOUND', message: `${noun} "${object === 'source' ? 'src_x' : 'rec_x'}" not found` })),
      ...common,
      '403': forbiddenWithRole('owners and admins', 'delete sources (or the records they were built from)'),
    },
  };
}

/** What the document is for, shown at the top of the API reference (CommonMark). */
function apiDescription(baseUrl: string): string {
  return [
    'The HTTP API of Loupe, which collects what customers say (calls, emails, meeting notes, support conversations) as evidence for product teams ' +
      'and serves it to their AI assistants over MCP (at `/api/mcp`, not described here). With it you **send records** (1 to 1,000 per request, ' +
      'JSON or NDJSON, up to 5 MB), follow their **batches**, **export** everything a workspace holds, **delete** sources and records, and ' +
      '**erase a person** and manage the suppressions that keep them out, and send the **companies and people** of your CRM (ARR, plan, ' +
      'segment, stage) that the evidence resolves to.',
    '**Authentication.** Every endpoint takes an API key in the `x-api-key` header. Keys are created on the account pages ' +
      `([${baseUrl}/account](${baseUrl}/account), API keys) and shown once. A key belongs to one workspace and holds permissions: \`api:write\` to send, ` +
      'delete and erase, `api:read` to read and export (either lists batches and erasures). A key acts as the person who created it: deleting ' +
      'needs that person to be an owner or an admin of the workspace, erasing an owner, checked on every request.',
    '**Rate limits.** 10 requests per second per API key. Every answer to an authenticated request carries `X-RateLimit-Limit` and ' +
      '`X-RateLimit-Remaining`; past the limit the answer is 429 `RATE_LIMITED` with `Retry-After` (seconds) and `retryAfter` in the body. ' +
      'Each client IP address is also limited across the whole service (2,000 requests a minute unless the operator sets another figure); that ' +
      '429 carries `Retry-After` and a body of its own (`msg`, `retryAfterSeconds`, `error: "rate_limit_exceeded"`).',
    '**Errors.** An error answers `{"error": CODE, "message": …}` (the ErrorResponse schema): the code is stable, the message says what was ' +
      'wrong and where, and ingestion lists each refused record with its index and code. A 503 means nothing was stored (the database is ' +
      'unavailable, or the request collided with a concurrent one): retry after `Retry-After` seconds. Every answer carries `X-Request-Id` ' +
      '(the one you sent, when it is 1 to 128 letters, digits or `_.:-`); a 500 names it, so quote it when you report one.',
    '**Retries.** Send an `Idempotency-Key` with `POST /api/v1/ingest`: the same key with the same body replays the first answer ' +
      '(with `Idempotent-Replayed: true`) instead of storing the records twice, the same key with another body is refused (422).',
    `The interactive reference is at [${baseUrl}/docs](${baseUrl}/docs); the JSON Schema of one record is at ` +
      `[${baseUrl}/api/v1/schemas/record.json](${baseUrl}/api/v1/schemas/record.json).`,
  ].join('\n\n');
}

const TAGS = [
  { name: 'Ingestion', description: 'Sending records: calls, emails, meeting notes and conversations, in batches of up to 1,000.' },
  { name: 'Batches', description: 'What became of each request: status, counts and per-record errors.' },
  { name: 'Export', description: 'Everything a workspace holds, as one resumable NDJSON stream.' },
  { name: 'Deletion', description: 'Deleting a source or a record, with everything built from it.' },
  { name: 'Privacy', description: 'Erasing a person (with a dry run to confirm first) and the suppressions that refuse their records afterwards.' },
  { name: 'Companies', description: 'Companies and people from your CRM (ARR, plan, segment, stage), upserted by your own ids: the evidence resolves to them, and opportunities are weighed by them.' },
  { name: 'Connections', description: 'Connections to your help desk and other vendors (Zendesk): the worker brings their conversations in on a schedule. Credentials go in and never come out.' },
  { name: 'Email forwarding', description: 'Each project\'s address to forward customer mail to: a forwarded mail or thread becomes a record of the project.' },
];

/** Response headers, described once and referred to from every answer that carries them. */
const HEADERS = {
  'X-Request-Id': { description: 'The request\'s id: the X-Request-Id sent (1 to 128 of letters, digits, _ . : -) or a new UUID. Quote it when reporting an error.', schema: { type: 'string' } },
  'X-RateLimit-Limit': { description: 'Requests allowed per second for this API key.', schema: { type: 'integer' } },
  'X-RateLimit-Remaining': { description: 'Requests left for this API key in the current second.', schema: { type: 'integer', minimum: 0 } },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 0 } },
  'Idempotent-Replayed': { description: '"true" when this is the stored answer of an earlier request with the same Idempotency-Key and body.', schema: { type: 'string', enum: ['true'] } },
};
const header = (name: keyof typeof HEADERS) => ({ $ref: `#/components/headers/${name}` });

/**
 * The headers each answer carries, as the code sets them: X-Request-Id on every answer (libs/http requestContext);
 * the key's X-RateLimit-* once the key is known and counted (so not on 401, nor on the 500 and 503 that can come
 * before it); Retry-After on 429, 503 and the ingestion's 409; Idempotent-Replayed on a replayed 202.
 */
function withResponseHeaders(paths: Record<string, Record<string, { operationId: string; responses: Record<string, Record<string, unknown>> }>>) {
  for (const operations of Object.values(paths)) {
    for (const op of Object.values(operations)) {
      for (const [status, response] of Object.entries(op.responses)) {
        const headers: Record<string, unknown> = { 'X-Request-Id': header('X-Request-Id') };
        if (!['401', '500', '503'].includes(status)) {
          headers['X-RateLimit-Limit'] = header('X-RateLimit-Limit');
          headers['X-RateLimit-Remaining'] = header('X-RateLimit-Remaining');
        }
        if (status === '429' || status === '503' || (status === '409' && op.operationId === 'submitRecords')) headers['Retry-After'] = header('Retry-After');
        if (status === '202' && op.operationId === 'submitRecords') headers['Idempotent-Replayed'] = header('Idempotent-Replayed');
        op.responses[status] = { ...response, headers };
      }
    }
  }
  return paths;
}

/**
 * OpenAPI 3.1 description of the HTTP API (ingestion, batches, export, deletion, erasure and suppressions, companies and people),
 * generated from the zod schemas.
 */
export function openApiDocument(baseUrl: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'Loupe API', version: '1.0.0', description: apiDescription(baseUrl) },
    servers: [{ url: baseUrl }],
    security: [{ apiKey: [] }],
    tags: TAGS,
    paths: withResponseHeaders({
      '/api/v1/ingest': {
        post: {
          operationId: 'submitRecords',
          tags: ['Ingestion'],
          summary: 'Submit 1 to 1,000 records as one batch',
          parameters: [
            { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: LIMITS.idempotencyKeyLength } },
            { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: [...FORMATS] } },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                example: [RECORD_EXAMPLE],
                schema: {
                  oneOf: [
                    { type: 'array', items: ref('Record'), minItems: 1, maxItems: LIMITS.recordsPerRequest },
                    {
                      type: 'object',
                      properties: { records: { type: 'array', items: ref('Record'), minItems: 1, maxItems: LIMITS.recordsPerRequest, description: 'The records, 1 to 1,000.' } },
                      required: ['records'],
                      additionalProperties: false,
                    },
                  ],
                },
              },
              'application/x-ndjson': { schema: { type: 'string', description: 'One Record object per line; blank lines are ignored.' } },
            },
          },
          responses: {
            '202': {
              description: 'Records received; accepted ones are stored and will be processed',
              content: { 'application/json': { schema: ref('SubmissionResponse'), examples: {
                partly: { summary: 'Two accepted, one rejected', value: { batchId: 'bat_01m82…', acceptedCount: 2, rejectedCount: 1, totalErrorCount: 1, duplicateCount: 0, errors: [{ index: 1, code: 'VALIDATION_ERROR', message: '_event_at: is not a real date and time' }] } },
              } } },
            },
            '400': error('No record was accepted, or the request breaks a request rule; `errors` lists the records concerned', {
              none: { summary: 'No record accepted', value: { error: 'VALIDATION_ERROR', message: 'No record was accepted: all 1 record(s) were rejected', errors: [{ index: 0, code: 'VALIDATION_ERROR', message: '_type: Invalid option: expected one of "email_thread"|"email"|…' }], details: { acceptedCount: 0, rejectedCount: 1, totalErrorCount: 1 } } },
              product: { summary: 'Unknown product', value: { error: 'UNKNOWN_PRODUCT', message: '_product_id: product "prod_x" not found in this workspace', errors: [{ index: 0, code: 'UNKNOWN_PRODUCT', message: '_product_id: product "prod_x" not found in this workspace' }], details: { totalErrorCount: 1 } } },
              mixed: { summary: 'Records of different types', value: { error: 'MIXED_REQUEST', message: 'All records of a request must share one _type; 1 record(s) differ from record 0', errors: [{ index: 1, code: 'TYPE_MISMATCH', message: '_type: "call" differs from "email" of record 0; all records of a request must share one _type' }], details: { totalErrorCount: 1 } } },
              json: { summary: 'Not JSON', value: { error: 'INVALID_JSON', message: 'The body is not valid JSON: Unexpected end of JSON input' } },
            }),
            '409': error('A request with this Idempotency-Key is still in progress',
              one('Retry in a second', { error: 'IDEMPOTENCY_KEY_IN_USE', message: 'A request with this Idempotency-Key is still being processed; retry shortly', retryAfter: 1 })),
            '413': error('Body larger than 5 MB',
              one('Too large', { error: 'PAYLOAD_TOO_LARGE', message: 'The body exceeds 5242880 bytes (5 MB); send fewer records per request' })),
            '415': error('Content-Type is neither application/json nor application/x-ndjson',
              one('Form data', { error: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json or application/x-ndjson, not "text/plain"' })),
            '422': error('This Idempotency-Key was used with a different body',
              one('Key reused', { error: 'IDEMPOTENCY_KEY_REUSED', message: 'This Idempotency-Key was already used with a different request body' })),
            ...common,
          },
        },
      },
      '/api/v1/ingest/batches': {
        get: {
          operationId: 'listBatches',
          tags: ['Batches'],
          summary: 'List batches, newest first',
          parameters: [
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: LIMITS.pageSizeMax, default: LIMITS.pageSizeDefault } },
            { name: 'cursor', in: 'query', required: false, schema: { type: 'string', maxLength: LIMITS.cursorLength } },
          ],
          responses: {
            '200': { description: 'One page', content: { 'application/json': { schema: ref('BatchList'), example: { batches: [BATCH_EXAMPLE], nextCursor: 'MTc3MjYwMDc2NzAwMC5iYXRf…' } } } },
            '400': error('Bad limit or cursor', one('limit out of range', { error: 'INVALID_REQUEST', message: 'Query parameter "limit" must be an integer from 1 to 100 (got "500")' })),
            ...common,
          },
        },
      },
      '/api/v1/ingest/batches/{batchId}': {
        get: {
          operationId: 'getBatch',
          tags: ['Batches'],
          summary: 'Status and counters of one batch',
          parameters: [{ name: 'batchId', in: 'path', required: true, schema: { type: 'string', maxLength: LIMITS.batchIdLength } }],
          responses: {
            '200': { description: 'The batch', content: { 'application/json': { schema: ref('Batch'), example: BATCH_EXAMPLE } } },
            '400': error('batchId longer than 128 characters', one('Too long', { error: 'INVALID_REQUEST', message: 'Path parameter "batchId" must be at most 128 characters' })),
            '404': error('No such batch in this workspace', one('Unknown or another workspace\'s', { error: 'NOT_FOUND', message: 'Batch "bat_x" not found' })),
            ...common,
          },
        },
      },
      '/api/v1/export': {
        get: {
          operationId: 'exportWorkspace',
          tags: ['Export'],
          summary: 'Everything the workspace holds, as NDJSON (needs api:read)',
          description:
            'Streams one JSON object per line: every source (with its segments and attachments), then every signal, opportunity (with its signal ids), shaping note ' +
            '(with every version), company and person, each kind by id. Each line is `{"kind", "cursor", <kind>: {…}}`; the last is `{"kind":"end","complete":true,"counts":{…}}`. ' +
            'A stream that ends without that line was cut short: ask again with `after` = the cursor of the last line received.',
          parameters: [{ name: 'after', in: 'query', required: false, description: 'The cursor of the last line received, to resume', schema: { type: 'string', maxLength: 512 } }],
          responses: {
            '200': {
              description: 'The export, streamed',
              content: {
                'application/x-ndjson': {
                  schema: { type: 'string' },
                  example: '{"kind":"source","cursor":"WzAsInNyY18xIl0","source":{"id":"src_1","title":"Call with Globex","segments":[…]}}\n{"kind":"end","complete":true,"resumed":false,"counts":{"source":1,"signal":0,"opportunity":0,"shaping_note":0,"company":0,"person":0}}\n',
                },
              },
            },
            '400': error('A cursor that is not one', one('Broken cursor', { error: 'INVALID_REQUEST', message: 'Query parameter "after": not a cursor of an export line: pass the "cursor" of the last line you received' })),
            ...common,
          },
        },
      },
      '/api/v1/sources/{sourceId}': { delete: deletion('source') },
      '/api/v1/records/{recordId}': { delete: deletion('record') },
      '/api/v1/records/{recordId}/attachments/{position}': {
        get: {
          operationId: 'downloadAttachment',
          tags: ['Export'],
          summary: 'The file downloaded for one of a record\'s attachments (needs api:read)',
          description:
            'Streams the file the worker downloaded (or that was uploaded) for the attachment at `position` in the record\'s `_attachments`, from wherever the ' +
            'service stores files (its disk or a bucket), so every instance serves what any worker stored. It is always a download ' +
            '(`Content-Disposition: attachment`, with the attachment\'s filename), typed as it was stored. An attachment not downloaded yet, or whose ' +
            'download failed, has no file: the 404 says its status.',
          parameters: [
            { name: 'recordId', in: 'path', required: true, schema: { type: 'string', maxLength: LIMITS.batchIdLength } },
            { name: 'position', in: 'path', required: true, description: 'The attachment\'s index in the record\'s `_attachments`, from 0', schema: { type: 'integer', minimum: 0, maximum: 10000 } },
          ],
          responses: {
            '200': { description: 'The file', content: { 'application/octet-stream': { schema: { type: 'string', format: 'binary' } } } },
            '400': error('recordId longer than 128 characters, or a position that is not a whole number from 0 to 10,000',
              one('Not a position', { error: 'INVALID_REQUEST', message: 'Path parameter "position" must be the attachment\'s index in the record\'s _attachments: a whole number from 0 to 10000' })),
            '404': error('No such record or position in this workspace, or no file for it (yet)', {
              unknown: { summary: 'Unknown record or position', value: { error: 'NOT_FOUND', message: 'Record "rec_x" has no attachment at position 2' } },
              pending: { summary: 'Not downloaded yet', value: { error: 'NOT_FOUND', message: 'Attachment 0 of record "rec_x" has no file: its status is PENDING (the worker has not finished downloading it)' } },
            }),
            ...common,
          },
        },
      },
      ...erasurePaths({ error, one, common, forbiddenWithRole }),
      ...companyPaths({ error, one, common }),
      ...connectionPaths({ error, one, common }),
      ...emailForwardingPaths({ common }),
    } as Parameters<typeof withResponseHeaders>[0]),
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key', description: 'An API key of the workspace, created on the account pages (API keys).' } },
      headers: HEADERS,
      schemas: components(),
    },
  };
}
