import { z } from 'zod';
import {
  COMPANY_LIMITS, companyBodySchema, companyInputSchema, companyListSchema, companySchema, deletedCompanySchema, deletedPersonSchema, importResultSchema,
  personBodySchema, personInputSchema, personListSchema, personSchema,
} from './company-schemas';

// Companies and people (libs/companies): the team's CRM, upserted by its own ids, one by one or in batches.

type Helpers = {
  error: (description: string, examples: Record<string, { summary: string; value: unknown }>) => unknown;
  one: (summary: string, value: Record<string, unknown>) => Record<string, { summary: string; value: unknown }>;
  common: Record<string, unknown>;
};

const json = (schema: z.ZodType, io: 'input' | 'output') => {
  const { $schema: _s, ...rest } = z.toJSONSchema(schema, { target: 'draft-2020-12', io, reused: 'inline' }) as Record<string, unknown>;
  return rest;
};

const COMPANY_EXAMPLE = {
  external_id: 'crm-0017', name: 'Globex', domains: ['globex.com', 'globex.co.uk'], arr: 120000, plan: 'enterprise', segment: 'mid-market', stage: 'customer',
  renewal_date: '2027-03-31', attributes: { region: 'EMEA', seats: 240, strategic: true }, created_at: '2026-11-27T10:00:00.000Z', updated_at: '2026-11-27T10:00:00.000Z',
};
const PERSON_EXAMPLE = {
  external_id: 'contact-88', email: 'ana@globex.com', name: 'Ana Planted', company_external_id: 'crm-0017', attributes: { role: 'Head of Finance' },
  created_at: '2026-11-27T10:00:00.000Z', updated_at: '2026-11-27T10:00:00.000Z',
};
const { external_id: _c, created_at: _cc, updated_at: _cu, ...COMPANY_BODY } = COMPANY_EXAMPLE;
const { external_id: _p, created_at: _pc, updated_at: _pu, ...PERSON_BODY } = PERSON_EXAMPLE;

interface KindDoc {
  object: 'company' | 'person';
  noun: 'companies' | 'people';
  Noun: 'Company' | 'Person';
  Nouns: 'Companies' | 'People';
  view: Record<string, unknown>;
  body: Record<string, unknown>;
  item: Record<string, unknown>;
  list: Record<string, unknown>;
  deleted: Record<string, unknown>;
  example: Record<string, unknown>;
  bodyExample: Record<string, unknown>;
  refusals: Record<string, { summary: string; value: unknown }>;
  conflicts: Record<string, { summary: string; value: unknown }>;
  itemErrors: Array<{ index: number; code: string; message: string }>;
  deleteDescription: string;
}

function kindPaths(k: KindDoc, { error, one, common }: Helpers): Record<string, unknown> {
  const base = `/api/v1/${k.noun}`;
  const idParam = { name: 'external_id', in: 'path', required: true, description: `The ${k.object}'s external_id, URL-encoded.`, schema: { type: 'string', minLength: 1, maxLength: COMPANY_LIMITS.externalIdLength } };
  const badId = error(`external_id longer than ${COMPANY_LIMITS.externalIdLength} characters or holding control characters`,
    one('Too long', { error: 'INVALID_REQUEST', message: `Path parameter "external_id": Too big: expected string to have <=${COMPANY_LIMITS.externalIdLength} characters` }));
  const notFound = error(`No such ${k.object} in this workspace (never there, another workspace's, or deleted)`,
    one('Unknown, another workspace\'s or deleted', { error: 'NOT_FOUND', message: `${k.Noun} "crm-x" not found` }));
  const tooLarge = (bytes: number) => error(`Body over ${bytes} bytes`, one('Too large', { error: 'PAYLOAD_TOO_LARGE', message: `The body exceeds ${bytes} bytes` }));
  const tag = ['Companies'];
  return {
    [base]: {
      get: {
        operationId: `list${k.Nouns}`,
        tags: tag,
        summary: `The workspace's ${k.noun}, newest first (needs api:read or api:write)`,
        parameters: [
          { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1, maximum: COMPANY_LIMITS.pageSizeMax, default: COMPANY_LIMITS.pageSizeDefault } },
          { name: 'cursor', in: 'query', required: false, schema: { type: 'string', maxLength: COMPANY_LIMITS.cursorLength } },
        ],
        responses: {
          '200': { description: 'One page', content: { 'application/json': { schema: k.list, example: { [k.noun]: [k.example], nextCursor: 'MTc3MjYwMDc2NzAwMC5jbXBf…' } } } },
          '400': error('Bad limit or cursor', one('limit out of range', { error: 'INVALID_REQUEST', message: `Query parameter "limit" must be an integer from 1 to ${COMPANY_LIMITS.pageSizeMax} (got "500")` })),
          ...common,
        },
      },
    },
    [`${base}:batch`]: {
      post: {
        operationId: `import${k.Nouns}`,
        tags: tag,
        summary: `Upsert 1 to 1,000 ${k.noun} by external_id, each validated and stored alone (needs api:write)`,
        description:
          `A JSON array of ${k.noun}, \`{"${k.noun}": [...]}\`, or NDJSON (one per line), up to 5 MB. Each item is the whole ${k.object}: it is created, or ` +
          'replaces the one of the same external_id (a field left out is cleared). Items are stored in order, so a later item sees the earlier ones. ' +
          'The answer counts what was created, updated and refused, and lists the first 20 refusals with their index; a body with no valid item answers ' +
          '200 too, with its errors. The workspace\'s evidence is then resolved to its companies again, in the background.',
        requestBody: {
          required: true,
          content: {
            'application/json': {
              schema: {
                oneOf: [
                  { type: 'array', items: k.item, minItems: 1, maxItems: COMPANY_LIMITS.itemsPerRequest },
                  { type: 'object', properties: { [k.noun]: { type: 'array', items: k.item, minItems: 1, maxItems: COMPANY_LIMITS.itemsPerRequest, description: `The ${k.noun}, 1 to 1,000.` } }, required: [k.noun], additionalProperties: false },
                ],
              },
              example: [{ external_id: k.example.external_id, ...k.bodyExample }],
            },
            'application/x-ndjson': { schema: { type: 'string', description: `One ${k.object} object per line; blank lines are ignored.` } },
          },
        },
        responses: {
          '200': { description: 'What was stored and what was refused', content: { 'application/json': { schema: json(importResultSchema, 'output'), example: { createdCount: 2, updatedCount: 1, rejectedCount: k.itemErrors.length, errors: k.itemErrors } } } },
          '400': error('The body is not one: not JSON, no items, more than 1,000 (`errors` lists those beyond), or not an array or a wrapper object', {
            json: { summary: 'Not JSON', value: { error: 'INVALID_JSON', message: 'The body is not valid JSON: Unexpected end of JSON input' } },
            many: { summary: 'Too many', value: { error: 'TOO_MANY_ITEMS', message: `The body holds 1001 ${k.noun}; at most 1000 are allowed per request`, errors: [{ index: 1000, code: 'TOO_MANY_ITEMS', message: 'item 1000: beyond the first 1000 of the request (it holds 1001); send it in another request' }] } },
            empty: { summary: 'Empty', value: { error: 'NO_ITEMS', message: `The body holds no ${k.noun}; send 1 to 1000` } },
          }),
          '413': error('Body larger than 5 MB', one('Too large', { error: 'PAYLOAD_TOO_LARGE', message: `The body exceeds 5242880 bytes (5 MB); send fewer ${k.noun} per request` })),
          '415': error('Content-Type is neither application/json nor application/x-ndjson', one('CSV', { error: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json or application/x-ndjson, not "text/csv"' })),
          ...common,
        },
      },
    },
    [`${base}/{external_id}`]: {
      put: {
        operationId: `upsert${k.Noun}`,
        tags: tag,
        summary: `Create or replace one ${k.object} by its external_id (needs api:write)`,
        description: `The body is the whole ${k.object}: a field left out is cleared. 201 when it was created, 200 when it replaced one. The workspace's evidence is then resolved to its companies again, in the background.`,
        parameters: [idParam],
        requestBody: { required: true, content: { 'application/json': { schema: k.body, example: k.bodyExample } } },
        responses: {
          '200': { description: 'Replaced: the stored object', content: { 'application/json': { schema: k.view, example: k.example } } },
          '201': { description: 'Created: the stored object (Location names it)', content: { 'application/json': { schema: k.view, example: k.example } } },
          '400': error('A field that is wrong (named), an unknown field, not JSON, or a bad external_id', k.refusals),
          '409': error(`Clashes with another ${k.object} of the workspace`, k.conflicts),
          '413': tooLarge(COMPANY_LIMITS.singleBodyBytes),
          '415': error('Not JSON', one('Wrong content type', { error: 'UNSUPPORTED_MEDIA_TYPE', message: 'Content-Type must be application/json, not "text/plain"' })),
          ...common,
        },
      },
      get: {
        operationId: `get${k.Noun}`,
        tags: tag,
        summary: `One ${k.object} (needs api:read or api:write)`,
        parameters: [idParam],
        responses: {
          '200': { description: `The ${k.object}`, content: { 'application/json': { schema: k.view, example: k.example } } },
          '400': badId,
          '404': notFound,
          ...common,
        },
      },
      delete: {
        operationId: `delete${k.Noun}`,
        tags: tag,
        summary: `Delete one ${k.object} (needs api:write)`,
        description: k.deleteDescription,
        parameters: [idParam],
        responses: {
          '200': { description: 'Deleted', content: { 'application/json': { schema: k.deleted, example: { external_id: k.example.external_id, object: k.object, deleted: true } } } },
          '400': badId,
          '404': notFound,
          ...common,
        },
      },
    },
  };
}

/** The company and people paths of the OpenAPI document. */
export function companyPaths(helpers: Helpers): Record<string, unknown> {
  return {
    ...kindPaths({
      object: 'company', noun: 'companies', Noun: 'Company', Nouns: 'Companies',
      view: json(companySchema, 'output'), body: json(companyBodySchema, 'input'), item: json(companyInputSchema, 'input'), list: json(companyListSchema, 'output'),
      deleted: json(deletedCompanySchema, 'output'), example: COMPANY_EXAMPLE, bodyExample: COMPANY_BODY,
      refusals: {
        field: { summary: 'A wrong field', value: { error: 'VALIDATION_ERROR', message: 'arr: Too small: expected number to be >=0' } },
        unknown: { summary: 'An unknown field', value: { error: 'VALIDATION_ERROR', message: 'company: unknown field "colour"' } },
        freeMail: { summary: 'A free-mail domain', value: { error: 'FREE_MAIL_DOMAIN', message: 'domains[0]: "gmail.com" is a free-mail domain: anyone can have an address there, so it never identifies a company' } },
      },
      conflicts: {
        domain: { summary: 'A domain another company lists', value: { error: 'DOMAIN_TAKEN', message: 'domains[0]: "globex.com" is already a domain of company "crm-0009"; a domain names one company: remove it there first' } },
      },
      itemErrors: [{ index: 3, code: 'DOMAIN_TAKEN', message: 'domains[0]: "globex.com" is already a domain of company "crm-0017"; a domain names one company: remove it there first' }],
      deleteDescription: 'Its domains are freed; its people and the signals that resolved to it stay, unlinked, and the workspace\'s evidence is resolved again in the background. Deleting again answers 404.',
    }, helpers),
    ...kindPaths({
      object: 'person', noun: 'people', Noun: 'Person', Nouns: 'People',
      view: json(personSchema, 'output'), body: json(personBodySchema, 'input'), item: json(personInputSchema, 'input'), list: json(personListSchema, 'output'),
      deleted: json(deletedPersonSchema, 'output'), example: PERSON_EXAMPLE, bodyExample: PERSON_BODY,
      refusals: {
        field: { summary: 'A wrong field', value: { error: 'VALIDATION_ERROR', message: 'email: must be an email address such as "ana@acme.com"' } },
        company: { summary: 'An unknown company', value: { error: 'UNKNOWN_COMPANY', message: 'company_external_id: no company "crm-x" in this workspace; send the company first' } },
        erased: { summary: 'A person erased from the workspace', value: { error: 'PERSON_SUPPRESSED', message: 'email: names a person erased from this workspace (suppression sup_01m8a…); they are refused until the suppression is lifted' } },
      },
      conflicts: {
        email: { summary: 'An email another person has', value: { error: 'EMAIL_TAKEN', message: 'email: "ana@globex.com" is already the email of person "contact-12"; an email names one person of a workspace' } },
      },
      itemErrors: [{ index: 0, code: 'UNKNOWN_COMPANY', message: 'company_external_id: no company "crm-x" in this workspace; send the company first' }],
      deleteDescription: 'Their company stays. The workspace\'s evidence is resolved again in the background. Deleting again answers 404.',
    }, helpers),
  };
}
