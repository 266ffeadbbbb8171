import { z } from 'zod';

/**
 * Companies and people a workspace sends (issue 44): the request and answer bodies of
 * /api/v1/companies and /api/v1/people, as zod schemas. They are the validator (libs/companies parses
 * with them), the TypeScript types and the published OpenAPI document (openapi-companies.ts).
 */
export const COMPANY_LIMITS = {
  itemsPerRequest: 1000,
  bodyBytes: 5 * 1024 * 1024,
  /** A single PUT body: one company or person. */
  singleBodyBytes: 256 * 1024,
  externalIdLength: 256,
  nameLength: 512,
  labelLength: 128,
  domainsPerCompany: 50,
  domainLength: 253,
  emailLength: 320,
  attributesPerItem: 100,
  attributeKeyLength: 128,
  attributeValueLength: 1000,
  /** NUMERIC(20, 2) holds up to 10^18: a bound well inside it. */
  arrMax: 1e15,
  errorsPerResponse: 20,
  pageSizeMax: 100,
  pageSizeDefault: 20,
  cursorLength: 256,
} as const;

const L = COMPANY_LIMITS;

const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;
const storable = (s: string) => !UNSTORABLE.test(s);
const STORABLE_MESSAGE = 'must not contain NUL characters or unpaired surrogates';

/** A string PostgreSQL can store, of `min` to `max` characters. */
const text = (max: number, min = 0) => z.string().min(min).max(max).refine(storable, STORABLE_MESSAGE);

/** An id the team gives: 1 to 256 characters, no control characters (it appears in URLs). */
export const externalIdSchema = z.string().min(1).max(L.externalIdLength)
  .refine((s) => !/[\u0000-\u001f\u007f]/.test(s), 'must not contain control characters')
  .refine(storable, STORABLE_MESSAGE);

/** `acme.com`, `mail.acme.co.uk`, `xn--bcher-kva.example`: labels of letters, digits and hyphens, a TLD of 2 to 63. */
export const DOMAIN_PATTERN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+(?:[a-z]{2,63}|xn--[a-z0-9-]{1,59})$/;

export const domainSchema = z.string().max(L.domainLength)
  .transform((s) => s.trim().toLowerCase().replace(/\.$/, ''))
  .refine((s) => DOMAIN_PATTERN.test(s), 'must be an email domain such as "acme.com" (letters, digits, hyphens and dots)');

/** `YYYY-MM-DD`, a date that exists (year 0001–9999). */
export const calendarDateSchema = z.string().regex(/^\d{4}-\d{2}-\d{2}$/, 'must be a date as YYYY-MM-DD')
  .refine((s) => {
    const [y, m, d] = s.split('-').map(Number) as [number, number, number];
    const date = new Date(Date.UTC(y, m - 1, d));
    return y >= 1 && date.getUTCFullYear() === y && date.getUTCMonth() === m - 1 && date.getUTCDate() === d;
  }, 'is not a real date');

export const attributesSchema = z.record(
  text(L.attributeKeyLength, 1),
  z.union([text(L.attributeValueLength), z.number().finite(), z.boolean()]),
).refine((a) => Object.keys(a).length <= L.attributesPerItem, `must have at most ${L.attributesPerItem} entries`)
  .meta({ description: `Free attributes: up to ${L.attributesPerItem} names (1 to ${L.attributeKeyLength} characters) each with a string (up to ${L.attributeValueLength} characters), a number or a boolean.` });

export const emailSchema = z.string().max(L.emailLength)
  .transform((s) => s.trim().toLowerCase())
  .refine((s) => /^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(s) && storable(s), 'must be an email address such as "ana@acme.com"');

const companyFields = {
  name: text(L.nameLength, 1).meta({ description: 'The company\'s name.' }),
  domains: z.array(domainSchema).max(L.domainsPerCompany).optional().meta({
    description: `Email domains that identify it (up to ${L.domainsPerCompany}), stored lower case and once each. A domain names one company of a workspace; free-mail domains (gmail.com…) are refused.`,
  }),
  arr: z.number().min(0).max(L.arrMax).nullable().optional().meta({ description: 'Annual recurring revenue from it, in the workspace\'s currency (≥ 0, kept to 2 decimals).' }),
  plan: text(L.labelLength).nullable().optional().meta({ description: 'Its plan, as the team names it (e.g. "enterprise").' }),
  segment: text(L.labelLength).nullable().optional().meta({ description: 'Its segment (e.g. "mid-market").' }),
  stage: text(L.labelLength).nullable().optional().meta({ description: 'Its stage: trial, customer, churned… as the team names them.' }),
  renewal_date: calendarDateSchema.nullable().optional().meta({ description: 'Its next renewal, as YYYY-MM-DD.' }),
  attributes: attributesSchema.optional(),
};

/** The body of PUT /api/v1/companies/{external_id}: the whole company (a field left out is cleared). */
export const companyBodySchema = z.strictObject({
  external_id: externalIdSchema.optional().meta({ description: 'The team\'s own id (e.g. the CRM\'s); in a PUT it may be left out, and must equal the path\'s when given.' }),
  ...companyFields,
});

/** One item of POST /api/v1/companies:batch. */
export const companyInputSchema = z.strictObject({
  external_id: externalIdSchema.meta({ description: 'The team\'s own id (e.g. the CRM\'s): the company is upserted by it.' }),
  ...companyFields,
});

const personFields = {
  email: emailSchema.nullable().optional().meta({ description: 'Their email address, stored lower case; unique in the workspace. Matched against a record participant\'s email or id.' }),
  name: text(L.nameLength).nullable().optional().meta({ description: 'Their name.' }),
  company_external_id: externalIdSchema.nullable().optional().meta({ description: 'The external_id of the company they belong to (it must exist): wins over their email\'s domain.' }),
  attributes: attributesSchema.optional(),
};

export const personBodySchema = z.strictObject({
  external_id: externalIdSchema.optional().meta({ description: 'The team\'s own id; in a PUT it may be left out, and must equal the path\'s when given.' }),
  ...personFields,
});

export const personInputSchema = z.strictObject({
  external_id: externalIdSchema.meta({ description: 'The team\'s own id (e.g. the CRM\'s contact id): the person is upserted by it.' }),
  ...personFields,
});

export type CompanyInput = z.output<typeof companyInputSchema>;
export type PersonInput = z.output<typeof personInputSchema>;

const stamp = (what: string) => z.string().max(40).meta({ description: `When it was ${what}, as an ISO 8601 UTC time.` });

/** A company as stored. */
export const companySchema = z.strictObject({
  external_id: z.string().max(L.externalIdLength).meta({ description: 'The team\'s own id.' }),
  name: z.string().max(L.nameLength).meta({ description: 'The company\'s name.' }),
  domains: z.array(z.string().max(L.domainLength)).max(L.domainsPerCompany).meta({ description: 'Email domains that identify it, lower case.' }),
  arr: z.number().nullable().meta({ description: 'Annual recurring revenue, or null.' }),
  plan: z.string().max(L.labelLength).nullable().meta({ description: 'Its plan, or null.' }),
  segment: z.string().max(L.labelLength).nullable().meta({ description: 'Its segment, or null.' }),
  stage: z.string().max(L.labelLength).nullable().meta({ description: 'Its stage, or null.' }),
  renewal_date: z.string().max(10).nullable().meta({ description: 'Its next renewal (YYYY-MM-DD), or null.' }),
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).meta({ description: 'Its free attributes.' }),
  created_at: stamp('first stored'),
  updated_at: stamp('last changed'),
});

/** A person as stored. */
export const personSchema = z.strictObject({
  external_id: z.string().max(L.externalIdLength).meta({ description: 'The team\'s own id.' }),
  email: z.string().max(L.emailLength).nullable().meta({ description: 'Their email address, lower case, or null.' }),
  name: z.string().max(L.nameLength).nullable().meta({ description: 'Their name, or null.' }),
  company_external_id: z.string().max(L.externalIdLength).nullable().meta({ description: 'The external_id of their company, or null (none given, or the company was deleted).' }),
  attributes: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).meta({ description: 'Their free attributes.' }),
  created_at: stamp('first stored'),
  updated_at: stamp('last changed'),
});

export type CompanyView = z.infer<typeof companySchema>;
export type PersonView = z.infer<typeof personSchema>;

export const itemErrorSchema = z.strictObject({
  index: z.int().min(0).meta({ description: 'Position of the item in the request, from 0.' }),
  code: z.string().max(64).meta({ description: 'Stable error code: VALIDATION_ERROR, DOMAIN_TAKEN, FREE_MAIL_DOMAIN, EMAIL_TAKEN, UNKNOWN_COMPANY, PERSON_SUPPRESSED, INVALID_JSON, TOO_MANY_ITEMS.' }),
  message: z.string().max(2048).meta({ description: 'What was wrong and where, e.g. "domains[0]: \\"acme.com\\" is already a domain of company \\"crm-17\\"".' }),
});

export const importResultSchema = z.strictObject({
  createdCount: z.int().min(0).meta({ description: 'Items stored that were new.' }),
  updatedCount: z.int().min(0).meta({ description: 'Items that replaced one of the same external_id.' }),
  rejectedCount: z.int().min(0).meta({ description: 'Items refused; nothing of them was stored.' }),
  errors: z.array(itemErrorSchema).max(L.errorsPerResponse).meta({ description: 'The first 20 errors, each with the item\'s index.' }),
});

export type ItemError = z.infer<typeof itemErrorSchema>;
export type ImportResult = z.infer<typeof importResultSchema>;

export const companyListSchema = z.strictObject({
  companies: z.array(companySchema).max(L.pageSizeMax).meta({ description: 'One page of companies, newest first.' }),
  nextCursor: z.string().max(L.cursorLength).optional().meta({ description: 'Pass as `cursor` for the next page; absent on the last.' }),
});

export const personListSchema = z.strictObject({
  people: z.array(personSchema).max(L.pageSizeMax).meta({ description: 'One page of people, newest first.' }),
  nextCursor: z.string().max(L.cursorLength).optional().meta({ description: 'Pass as `cursor` for the next page; absent on the last.' }),
});

export const deletedCompanySchema = z.strictObject({
  external_id: z.string().max(L.externalIdLength).meta({ description: 'The deleted company\'s external_id.' }),
  object: z.literal('company').meta({ description: 'What was deleted.' }),
  deleted: z.literal(true).meta({ description: 'Always true.' }),
});

export const deletedPersonSchema = z.strictObject({
  external_id: z.string().max(L.externalIdLength).meta({ description: 'The deleted person\'s external_id.' }),
  object: z.literal('person').meta({ description: 'What was deleted.' }),
  deleted: z.literal(true).meta({ description: 'Always true.' }),
});
