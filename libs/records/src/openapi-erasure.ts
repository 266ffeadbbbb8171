import { z } from 'zod';

// Erasing a person (libs/erasure): the request, its progress, its dry run's preview, and suppressions.
// Bodies name no one, but a preview, which names what it found so that the requester can confirm it.
const count = (what: string) => z.int().min(0).optional().meta({ description: what });
const counts = z.strictObject({
  records: count('Records redacted.'), attachments: count('Attachments deleted with their files.'), sources: count('Sources redacted.'),
  segments: count('Segments (turns, messages, paragraphs) redacted.'), signalsDeleted: count('Signals the person said, deleted.'),
  signalsRedacted: count('Signals that mention the person, redacted.'), signalChanges: count('Entries of signals\' history redacted.'),
  opportunities: count('Opportunities whose name or words named the person, renamed.'), shapingNotes: count('Shaping notes (and their versions) redacted.'),
  people: count('Entries of the workspace\'s people with the person\'s email, or their participant id as external_id, deleted (their company stays).'),
  other: count('Other copies redacted: errors kept with batches, replayed answers, skills, job payloads.'),
});

const shared = {
  shared: z.boolean().meta({ description: 'Another participant (with an address or id the person does not have) carries it too: never used.' }),
  sharedWith: z.int().min(0).max(10).meta({ description: 'How many other participants carry it (counted up to 10).' }),
};

export const erasurePreviewSchema = z.strictObject({
  counts: counts.meta({ description: 'What the erasure would redact or delete, by the addresses and ids alone.' }),
  samples: z.array(z.strictObject({
    kind: z.enum(['record', 'source', 'signal', 'signal_change', 'opportunity', 'shaping_note', 'other']).meta({ description: 'What the row is.' }),
    id: z.string().max(200).meta({ description: 'The row\'s id.' }),
    field: z.string().max(2000).meta({ description: 'Where in the row it first changes (a JSON path, or empty).' }),
    before: z.string().max(1000).meta({ description: 'The text around the change, as it is now.' }),
    after: z.string().max(1000).nullable().meta({ description: 'null: deleted (a signal the person said).' }),
  })).max(21).meta({ description: 'Up to 3 rows of each kind, cut around their first change.' }),
  identifiers: z.array(z.strictObject({
    kind: z.enum(['email', 'participant_id']).meta({ description: 'An email address or a participant id.' }),
    value: z.string().max(320).meta({ description: 'The address or id found.' }),
    ...shared,
  }))
    .meta({ description: 'Addresses and participant ids found in the participant entries carrying the given ones: erased and suppressed too, unless shared.' }),
  names: z.array(z.strictObject({
    name: z.string().max(256).meta({ description: 'A name found beside the person\'s addresses and ids.' }), ...shared,
    mentions: z.int().min(0).nullable().meta({ description: 'How many more rows confirming this name would change (null when shared).' }),
  })).max(20).meta({ description: 'Names found beside the addresses and ids: looked for only when confirmed (POST …/confirm), a shared one never.' }),
  expiresAt: z.int().meta({ description: 'Until when it can be confirmed (24 hours); then what it found of the person is dropped (status expired).' }),
});

export const erasureSchema = z.strictObject({
  id: z.string().max(128).meta({ description: 'The erasure request\'s id.' }),
  status: z.enum(['queued', 'running', 'previewed', 'complete', 'expired', 'failed']).meta({
    description: 'queued → running → complete; a dry run queued → running → previewed, then confirmed (queued again) or expired; ' +
      'failed: out of retries, it carries on when the person is asked to be erased again.',
  }),
  phase: z.string().max(64).meta({ description: 'Where the worker is: discover_records … other, then done.' }),
  subjectKind: z.enum(['email', 'participant_id']).meta({ description: 'Whether the person was named by an email or a participant id (the value itself is never shown).' }),
  dryRun: z.boolean().meta({ description: 'A dry run (a preview) until confirmed: it changes nothing and suppresses no one.' }),
  counts: counts.meta({ description: 'What was redacted or deleted so far (of a dry run: what would be).' }),
  requestedBy: z.string().max(400).meta({ description: 'Who asked: the API key, or the person on the privacy page.' }),
  createdAt: z.int().meta({ description: 'When it was asked, in milliseconds since 1970-01-01 UTC.' }),
  updatedAt: z.int().meta({ description: 'When it last moved on, in milliseconds since 1970-01-01 UTC.' }),
  completedAt: z.int().optional().meta({ description: 'When it ended (complete, previewed, failed), in milliseconds since 1970-01-01 UTC.' }),
  error: z.string().max(500).optional().meta({ description: 'Why it failed, when it did.' }),
  preview: erasurePreviewSchema.optional().meta({ description: 'Of a dry run once previewed (GET /api/v1/erasures/{erasureId} only).' }),
});

export const erasureRequestSchema = z.strictObject({
  email: z.string().max(320).optional().meta({ description: 'The person\'s email address, compared case-insensitively.' }),
  participant_id: z.string().min(3).max(256).optional().meta({ description: 'At least 3 characters: a shorter id is refused (give the email instead).' }),
  dry_run: z.boolean().optional().meta({ description: 'true: change nothing; find what would be erased and the names to confirm (status previewed), then POST …/confirm.' }),
}).meta({ description: 'The person to erase: their email, their participant id as sent in records, or both.', minProperties: 1 });

export const erasureConfirmSchema = z.strictObject({
  names: z.array(z.string().min(1).max(256)).max(20).optional()
    .meta({ description: 'Names the preview offered (not shared) to look for too, as whole words in every text. None: the addresses and ids only.' }),
});

export const suppressionSchema = z.strictObject({
  id: z.string().max(128).meta({ description: 'The suppression\'s id.' }),
  kind: z.enum(['email', 'participant_id']).meta({ description: 'What is suppressed: an email address or a participant id (stored as a hash, never shown).' }),
  erasureId: z.string().max(128).optional().meta({ description: 'The erasure that made it.' }),
  createdBy: z.string().max(400).meta({ description: 'Who asked for the erasure.' }),
  createdAt: z.int().meta({ description: 'Since when records naming the person are refused, in milliseconds since 1970-01-01 UTC.' }),
  liftedAt: z.int().optional().meta({ description: 'When it was lifted; records naming the person are accepted again.' }),
  liftedBy: z.string().max(400).optional().meta({ description: 'Who lifted it.' }),
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
  id: 'era_01m8a…', status: 'running', phase: 'sources', subjectKind: 'email', dryRun: false, counts: { records: 12, attachments: 2, sources: 3 },
  requestedBy: 'API key key_01m7…', createdAt: 1772600767000, updatedAt: 1772600768000,
};
const PREVIEW_EXAMPLE = {
  ...ERASURE_EXAMPLE, status: 'previewed', phase: 'done', subjectKind: 'participant_id', dryRun: true, counts: { records: 2, sources: 2, segments: 3, signalsDeleted: 1 },
  preview: {
    counts: { records: 2, sources: 2, segments: 3, signalsDeleted: 1 },
    samples: [
      { kind: 'source', id: 'src_01m8a…', field: 'segment', before: 'Customer: The export takes forever.', after: '[erased]: [erased]' },
      { kind: 'signal', id: 'sig_01m8a…', field: '', before: 'The export takes forever.', after: null },
    ],
    identifiers: [{ kind: 'email', value: 'ana@globex.test', shared: false, sharedWith: 0 }],
    names: [{ name: 'Ana Planted', shared: false, sharedWith: 0, mentions: 4 }, { name: 'Customer', shared: true, sharedWith: 3, mentions: null }],
    expiresAt: 1772687168000,
  },
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
        tags: ['Privacy'],
        summary: 'Erase a person from the workspace, in the background (needs api:write, and a key created by an owner)',
        description:
          'The person is who carries this email or participant id (compared exactly, case-insensitively), and the other address and id of the participant entries ' +
          'that carry it. Every record, source, segment, participant entry, signal, shaping note and attachment naming them is redacted in place ("[erased]") or ' +
          'deleted: their participant entries go, a turn or message whose speaker or sender is them is erased whole, signals they said are deleted, files of ' +
          'records naming them are deleted from storage; elsewhere their address and id are replaced. Names are never assumed: with "dry_run": true nothing ' +
          'changes and the request ends "previewed", its preview (GET /api/v1/erasures/{erasureId}) saying what would be erased and offering the names found ' +
          'beside the address or id, each marked shared when another participant carries it; POST /api/v1/erasures/{erasureId}/confirm then erases, with the ' +
          'names you confirm. Without a dry run a suppression of each identifier is added at once: records naming the person are refused (record error ' +
          'PERSON_SUPPRESSED) until it is lifted. Follow the progress with GET /api/v1/erasures/{erasureId}. Credits already charged stay charged.',
        requestBody: {
          required: true,
          content: { 'application/json': { schema: strip(json(erasureRequestSchema)), examples: {
            erase: { summary: 'Erase by address (addresses and ids only)', value: { email: 'ana@globex.test' } },
            preview: { summary: 'A dry run first', value: { participant_id: 'cust-1', dry_run: true } },
          } } },
        },
        responses: {
          '202': { description: 'Accepted: the request, queued (a dry run: dryRun true)', content: { 'application/json': { schema: erasure, example: { ...ERASURE_EXAMPLE, status: 'queued', phase: 'discover_records', counts: {} } } } },
          '400': error('Neither email nor participant_id, an invalid email, a participant id shorter than 3 characters, dry_run not a boolean, or an unknown field', {
            nothing: { summary: 'Nothing to erase', value: { error: 'INVALID_REQUEST', message: 'Give the person to erase: "email" or "participant_id" (or both)' } },
            short: { summary: 'An id too short to erase by', value: { error: 'INVALID_REQUEST', message: 'participant_id: must be at least 3 characters (this one has 2); an id that short is not specific enough to erase by: give the person\'s email instead' } },
          }),
          '413': error('Body over 4096 bytes', one('Too large', { error: 'PAYLOAD_TOO_LARGE', message: 'The body exceeds 4096 bytes' })),
          '415': error('Not JSON', one('Wrong content type', { error: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json' })),
          ...common,
          '403': forbiddenWithRole('owners', 'erase a person'),
        },
      },
      get: {
        operationId: 'listErasures',
        tags: ['Privacy'],
        summary: 'The workspace\'s erasure requests, newest first: who asked and when (the audit log)',
        responses: {
          '200': { description: 'Up to 100 requests', content: { 'application/json': { schema: { type: 'object', properties: { erasures: { type: 'array', items: erasure, description: 'The workspace\'s erasure requests, newest first.' } }, required: ['erasures'], additionalProperties: false }, example: { erasures: [ERASURE_EXAMPLE] } } } },
          ...common,
        },
      },
    },
    '/api/v1/erasures/{erasureId}': {
      get: {
        operationId: 'getErasure',
        tags: ['Privacy'],
        summary: 'An erasure\'s progress: status, phase and counts; of a finished dry run, its preview',
        parameters: [{ name: 'erasureId', in: 'path', required: true, schema: { type: 'string', maxLength: 128 } }],
        responses: {
          '200': { description: 'The request', content: { 'application/json': { schema: erasure, examples: {
            complete: { summary: 'An erasure that ended', value: { ...ERASURE_EXAMPLE, status: 'complete', phase: 'done', completedAt: 1772600769000 } },
            previewed: { summary: 'A dry run, previewed', value: PREVIEW_EXAMPLE },
          } } } },
          '400': tooLong('erasureId'),
          '404': notFound('erasure', 'Erasure "era_x"'),
          ...common,
        },
      },
    },
    '/api/v1/erasures/{erasureId}/confirm': {
      post: {
        operationId: 'confirmErasure',
        tags: ['Privacy'],
        summary: 'Confirm a dry run: the same request erases the person, with the names you tick (needs api:write, and a key created by an owner)',
        description:
          'Only a request whose status is "previewed", within 24 hours. "names" are looked for too, as whole words in every text, and a speaker, sender or ' +
          'who said a signal equal to one is the person; each must be one the preview offered and not shared. The request is queued again (dryRun false, ' +
          'counts from zero) and its identifiers are suppressed at once; whoever confirms is the requester in the audit.',
        parameters: [{ name: 'erasureId', in: 'path', required: true, schema: { type: 'string', maxLength: 128 } }],
        requestBody: { required: true, content: { 'application/json': { schema: strip(json(erasureConfirmSchema)), example: { names: ['Ana Planted'] } } } },
        responses: {
          '202': { description: 'Accepted: the erasure, queued', content: { 'application/json': { schema: erasure, example: { ...ERASURE_EXAMPLE, status: 'queued', phase: 'discover_records', subjectKind: 'participant_id', counts: {} } } } },
          '400': error('A name the preview did not offer or offered as shared, names not a list of strings, an unknown field, or erasureId too long', {
            shared: { summary: 'A shared name', value: { error: 'INVALID_REQUEST', message: 'names[0]: "Customer" is shared with 3 other participants and is never looked for' } },
            unknown: { summary: 'A name not offered', value: { error: 'INVALID_REQUEST', message: 'names[0]: "Bob" was not offered by this preview (only names found beside the person\'s address or id can be confirmed)' } },
          }),
          '404': notFound('erasure', 'Erasure "era_x"'),
          '409': error('Not a finished preview: still being prepared, confirmed already, not a dry run, or expired', {
            expired: { summary: 'Expired', value: { error: 'CONFLICT', message: 'Erasure "era_01m8a…" is a preview that expired (previews can be confirmed for 24 hours): ask for a new one' } },
            running: { summary: 'Not previewed yet', value: { error: 'CONFLICT', message: 'Erasure "era_01m8a…" is a preview still being prepared: confirm it once its status is "previewed"' } },
          }),
          '413': error('Body over 4096 bytes', one('Too large', { error: 'PAYLOAD_TOO_LARGE', message: 'The body exceeds 4096 bytes' })),
          '415': error('Not JSON', one('Wrong content type', { error: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json' })),
          ...common,
          '403': forbiddenWithRole('owners', 'erase a person'),
        },
      },
    },
    '/api/v1/suppressions': {
      get: {
        operationId: 'listSuppressions',
        tags: ['Privacy'],
        summary: 'Active suppressions (with include=lifted, lifted ones too): people whose records are refused',
        parameters: [{ name: 'include', in: 'query', required: false, schema: { type: 'string', enum: ['lifted'] } }],
        responses: {
          '200': { description: 'Newest first; a suppression names its person only by a salted hash, never shown', content: { 'application/json': { schema: { type: 'object', properties: { suppressions: { type: 'array', items: suppression, description: 'The workspace\'s suppressions, newest first.' } }, required: ['suppressions'], additionalProperties: false }, example: { suppressions: [SUPPRESSION_EXAMPLE] } } } },
          '400': error('include other than lifted', one('Bad include', { error: 'INVALID_REQUEST', message: 'Query parameter "include" can only be "lifted"' })),
          ...common,
        },
      },
    },
    '/api/v1/suppressions/{suppressionId}': {
      delete: {
        operationId: 'liftSuppression',
        tags: ['Privacy'],
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
