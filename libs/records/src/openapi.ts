import { z } from 'zod';
import {
  FORMATS, LIMITS, attachmentSchema, batchListSchema, batchSchema, errorResponseSchema, participantSchema,
  piiEntitySchema, piiSchema, recordErrorSchema, recordSchema, submissionResponseSchema,
} from './schemas';

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
const error = (description: string) => ({ description, content: { 'application/json': { schema: ref('ErrorResponse') } } });
const common = {
  '401': error('API key missing, unknown or revoked'),
  '403': error('The key lacks the permission this endpoint needs'),
  '429': error('Rate limit exceeded (10 requests per second per key); see retryAfter and the Retry-After header'),
  '500': error('Unexpected server error; retry'),
  '503': error('Database unavailable; retry after Retry-After seconds'),
};

/** OpenAPI 3.1 description of the three ingestion endpoints, generated from the zod schemas. */
export function openApiDocument(baseUrl: string): Record<string, unknown> {
  return {
    openapi: '3.1.0',
    info: { title: 'Loupe Record Ingestion API', version: '1.0.0' },
    servers: [{ url: baseUrl }],
    security: [{ apiKey: [] }],
    paths: {
      '/api/v1/ingest': {
        post: {
          operationId: 'submitRecords',
          summary: 'Submit 1 to 1,000 records as one batch',
          parameters: [
            { name: 'Idempotency-Key', in: 'header', required: false, schema: { type: 'string', maxLength: LIMITS.idempotencyKeyLength } },
            { name: 'format', in: 'query', required: false, schema: { type: 'string', enum: [...FORMATS] } },
          ],
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  oneOf: [
                    { type: 'array', items: ref('Record'), minItems: 1, maxItems: LIMITS.recordsPerRequest },
                    {
                      type: 'object',
                      properties: { records: { type: 'array', items: ref('Record'), minItems: 1, maxItems: LIMITS.recordsPerRequest } },
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
            '202': { description: 'Records received; accepted ones are stored and will be processed', content: { 'application/json': { schema: ref('SubmissionResponse') } } },
            '400': error('No record was accepted, or the request breaks a request rule; `errors` lists the rejected records'),
            '409': error('A request with this Idempotency-Key is still in progress'),
            '413': error('Body larger than 5 MB'),
            '415': error('Content-Type is neither application/json nor application/x-ndjson'),
            '422': error('This Idempotency-Key was used with a different body'),
            ...common,
          },
        },
      },
      '/api/v1/ingest/batches': {
        get: {
          operationId: 'listBatches',
          summary: 'List batches, newest first',
          parameters: [
            { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: LIMITS.pageSizeMax, default: LIMITS.pageSizeDefault } },
            { name: 'cursor', in: 'query', required: false, schema: { type: 'string', maxLength: LIMITS.cursorLength } },
          ],
          responses: { '200': { description: 'One page', content: { 'application/json': { schema: ref('BatchList') } } }, '400': error('Bad limit or cursor'), ...common },
        },
      },
      '/api/v1/ingest/batches/{batchId}': {
        get: {
          operationId: 'getBatch',
          summary: 'Status and counters of one batch',
          parameters: [{ name: 'batchId', in: 'path', required: true, schema: { type: 'string', maxLength: LIMITS.batchIdLength } }],
          responses: { '200': { description: 'The batch', content: { 'application/json': { schema: ref('Batch') } } }, '404': error('No such batch in this workspace'), ...common },
        },
      },
    },
    components: {
      securitySchemes: { apiKey: { type: 'apiKey', in: 'header', name: 'x-api-key' } },
      schemas: components(),
    },
  };
}
