import { z } from 'zod';

// Erasing a person (libs/erasure): the request, its progress, and suppressions. Bodies name no one.
const counts = z.strictObject({
  records: z.int().min(0).optional(), attachments: z.int().min(0).optional(), sources: z.int().min(0).optional(),
  segments: z.int().min(0).optional(), signalsDeleted: z.int().min(0).optional(), signalsRedacted: z.int().min(0).optional(),
  signalChanges: z.int().min(0).optional(), opportunities: z.int().min(0).optional(), shapingNotes: z.int().min(0).optional(),
  other: z.int().min(0).optional(),
});

export const erasureSchema = z.strictObject({
  id: z.string().max(128),
  status: z.enum(['queued', 'running', 'complete', 'failed']),
  phase: z.string().max(64).meta({ description: 'Where the worker is: discover_records … other, then done.' }),
  subjectKind: z.enum(['email', 'participant_id']),
  counts: counts.meta({ description: 'What was redacted or deleted so far.' }),
  requestedBy: z.string().max(400),
  createdAt: z.int(),
  updatedAt: z.int(),
  completedAt: z.int().optional(),
  error: z.string().max(500).optional(),
});

export const erasureRequestSchema = z.strictObject({
  email: z.string().max(320).optional(),
  participant_id: z.string().min(1).max(256).optional(),
}).meta({ description: 'The person to erase: their email, their participant id as sent in records, or both.', minProperties: 1 });

export const suppressionSchema = z.strictObject({
  id: z.string().max(128),
  kind: z.enum(['email', 'participant_id']),
  erasureId: z.string().max(128).optional(),
  createdBy: z.string().max(400),
  createdAt: z.int(),
  liftedAt: z.int().optional(),
  liftedBy: z.string().max(400).optional(),
});

type Helpers = {
  error: (description: string, examples: Record<string, { summary: string; value: unknown }>) => unknown;
  one: (summary: string, value: Record<string, unknown>) => Record<string, { summary: string; value: unknown }>;
  common: Record<string, unknown>;
  forbiddenWithRole: (roles: 'owners' | 'owners and admins', what: string) => unknown;
};

const json = (schema: z.ZodType) => z.toJSONSchema(schema, { target: 'draft-2020-12', io: 'output', reused: 'inline' }) as Record<string, unknown>;
const strip = (s: Record<string, unknown>) => {
  const { $schema: _s, ...rest } = s;
  return rest;
};

const ERASURE_EXAMPLE = {
  id: 'era_01m8a…', status: 'running', phase: 'sources', subjectKind: 'email', counts: { records: 12, attachments: 2, sources: 3 },
  requestedBy: 'API key key_01m7…', createdAt: 1772600767000, updatedAt: 1772600768000,
};
const SUPPRESSION_EXAMPLE = { id: 'sup_01m8a…', kind: 'email', erasureId: 'era_01m8a…', createdBy: 'API key key_01m7…', createdAt: 1772600767000 };

/** The erasure and suppression paths of the OpenAPI document. */
export function erasurePaths({ error, one, common, forbiddenWithRole }: Helpers): Record<string, unknown> {
  const erasure = strip(json(erasureSchema));
  const suppression = strip(json(suppressionSchema));
  const notFound = (what: string, id: string) => error(`No such ${what} in this workspace`, one('Unknown or another workspace\'s', { error: 'NOT_FOUND', message: `${id} not found` }));
  const tooLong = (param: string) => error(`${param} longer than 128 characters`, one('Too long', { error: 'INVALID_REQUEST', message: `Path parameter "${param}" must be at most 128 characters` }));
  return {
    '/api/v1/erasures': {
      post: {
        operationId: 'requestErasure',
        summary: 'Erase a person from the workspace, in the background (needs api:write, and a key created by an owner)',
        description:
          'Every record, source, segment, participant entry, signal, shaping note and attachment naming the person (by this email or participant id, and the names ' +
          'recorded with them) is redacted in place ("[erased]") or deleted: their own turns and quotes are erased whole, signals they said are deleted, files of ' +
          'records naming them are deleted from storage. A suppression of each identifier is added at once: records naming the person are refused ' +
          '(record error PERSON_SUPPRESSED) until it is lifted. Follow the progress with GET /api/v1/erasures/{erasureId}. Credits already charged stay charged.',
        requestBody: { required: true, content: { 'application/json': { schema: strip(json(erasureRequestSchema)), example: { email: 'ana@globex.test' } } } },
        responses: {
          '202': { description: 'Accepted: the request, queued', content: { 'application/json': { schema: erasure, example: { ...ERASURE_EXAMPLE, status: 'queued', phase: 'discover_records', counts: {} } } } },
          '400': error('Neither email nor participant_id, an invalid email, or an unknown field',
            one('Nothing to erase', { error: 'INVALID_REQUEST', message: 'Give the person to erase: "email" or "participant_id" (or both)' })),
          '413': error('Body over 4096 bytes', one('Too large', { error: 'PAYLOAD_TOO_LARGE', message: 'The body exceeds 4096 bytes' })),
          '415': error('Not JSON', one('Wrong content type', { error: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json' })),
          ...common,
          '403': forbiddenWithRole('owners', 'erase a person'),
        },
      },
      get: {
        operationId: 'listErasures',
        summary: 'The workspace\'s erasure requests, newest first: who asked and when (the audit log)',
        responses: {
          '200': { description: 'Up to 100 requests', content: { 'application/json': { schema: { type: 'object', properties: { erasures: { type: 'array', items: erasure } }, required: ['erasures'], additionalProperties: false }, example: { erasures: [ERASURE_EXAMPLE] } } } },
          ...common,
        },
      },
    },
    '/api/v1/erasures/{erasureId}': {
      get: {
        operationId: 'getErasure',
        summary: 'An erasure\'s progress: status, phase and counts',
        parameters: [{ name: 'erasureId', in: 'path', required: true, schema: { type: 'string', maxLength: 128 } }],
        responses: {
          '200': { description: 'The request', content: { 'application/json': { schema: erasure, example: { ...ERASURE_EXAMPLE, status: 'complete', phase: 'done', completedAt: 1772600769000 } } } },
          '400': tooLong('erasureId'),
          '404': notFound('erasure', 'Erasure "era_x"'),
          ...common,
        },
      },
    },
    '/api/v1/suppressions': {
      get: {
        operationId: 'listSuppressions',
        summary: 'Active suppressions (with include=lifted, lifted ones too): people whose records are refused',
        parameters: [{ name: 'include', in: 'query', required: false, schema: { type: 'string', enum: ['lifted'] } }],
        responses: {
          '200': { description: 'Newest first; a suppression names its person only by a salted hash, never shown', content: { 'application/json': { schema: { type: 'object', properties: { suppressions: { type: 'array', items: suppression } }, required: ['suppressions'], additionalProperties: false }, example: { suppressions: [SUPPRESSION_EXAMPLE] } } } },
          '400': error('include other than lifted', one('Bad include', { error: 'INVALID_REQUEST', message: 'Query parameter "include" can only be "lifted"' })),
          ...common,
        },
      },
    },
    '/api/v1/suppressions/{suppressionId}': {
      delete: {
        operationId: 'liftSuppression',
        summary: 'Lift a suppression: records naming the person are accepted again (needs api:write, and a key created by an owner)',
        parameters: [{ name: 'suppressionId', in: 'path', required: true, schema: { type: 'string', maxLength: 128 } }],
        responses: {
          '200': { description: 'Lifted (kept, with who lifted it)', content: { 'application/json': { schema: suppression, example: { ...SUPPRESSION_EXAMPLE, liftedAt: 1772600800000, liftedBy: 'API key key_01m7…' } } } },
          '400': tooLong('suppressionId'),
          '404': notFound('active suppression', 'Suppression "sup_x" not found or already lifted'),
          ...common,
          '403': forbiddenWithRole('owners', 'lift a suppression'),
        },
      },
    },
  };
}
