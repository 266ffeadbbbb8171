import { z } from 'zod';

// Intercom's objects, reduced to the fields the connector reads, as Intercom's REST API reference (API version 2.11,
// developers.intercom.com/docs/references/rest-api) and the official `intercom-client` package's generated types
// (6.x, `api/types/*.d.ts`) describe them:
// - GET /me: the admin the token belongs to, with `app.id_code`, the workspace's id (every object id is unique
//   within one workspace only, so it prefixes ours).
// - POST /conversations/search: `SearchRequest { query: SingleFilterSearchRequest | MultipleFilterSearchRequest,
//   pagination?: StartingAfterPaging { per_page, starting_after } }`; the answer is a `conversation.list` with
//   `conversations`, `total_count` and `pages { type: 'pages', page, per_page, total_pages, next?: { page, starting_after } }`
//   ("Pagination for Search APIs": the next page is asked with `pages.next.starting_after`; no `next` on the last).
//   Timestamps (`created_at`, `updated_at`) are Unix seconds; `updated_at` takes the `>` and `<` operators.
// - GET /conversations/{id}: the conversation with `conversation_parts { type: 'conversation_part.list',
//   conversation_parts: ConversationPart[], total_count }` (up to 500 parts), and `source` (ConversationSource: the
//   first message, with its `author`, `subject`, `body` and `attachments`).
// - ConversationPart: `{ type: 'conversation_part', id, part_type ('comment', 'note', 'assignment', 'open', 'close', …),
//   body (HTML, or null), created_at, updated_at, author: ConversationPartAuthor { type, id, name, email }, attachments:
//   PartAttachment[] { type: 'upload', name, url, content_type, filesize, width, height }, redacted }`. Author types are
//   `admin` (a teammate), `user` and `lead` (contacts: a signed-up user or an anonymous lead), `bot` (Fin, workflows)
//   and `team`.
// - ConversationContacts `{ type: 'contact.list', contacts: ContactReference[] { type: 'contact', id, external_id } }`.
// - POST /contacts/search (field `id`, operator `IN`): `{ type: 'list', data: Contact[], total_count, pages }`; a
//   Contact is `{ type: 'contact', id, workspace_id, external_id, role: 'user' | 'lead', email, name, companies:
//   ContactCompanies { type: 'list', data: { type: 'company', id, url }[], total_count, has_more } }`.
// - GET /companies/{id}: Company `{ type: 'company', id, name, company_id, website, … }`.
// - Errors: `{ type: 'error.list', request_id, errors: [{ code, message }] }` (401 `unauthorized`, 429 `rate_limit_exceeded`
//   with X-RateLimit-Limit / -Remaining / -Reset, the reset a Unix timestamp: "Rate Limiting" in the reference).
// Objects are parsed one by one: one malformed conversation is refused, not its page.

/** Intercom's ids are short strings of letters, digits and a few marks (or numbers); anything else is refused, naming the field. */
const id = z.union([z.string().min(1).max(128).regex(/^[\w.:@+-]+$/, 'is not an Intercom id'), z.number().int()]).transform(String);
/** Unix seconds, as every Intercom timestamp. */
const unix = z.number().int().min(0).max(253402300799);

export const meSchema = z.looseObject({
  type: z.literal('admin'),
  id,
  app: z.looseObject({ id_code: z.string().min(1).max(128).regex(/^[A-Za-z0-9_-]+$/, 'is not an Intercom workspace id'), name: z.string().nullish() }),
});

export const authorSchema = z.looseObject({
  type: z.string().min(1).max(32),
  id: id.nullish(),
  name: z.string().nullish(),
  email: z.string().nullish(),
});

export const partAttachmentSchema = z.looseObject({
  type: z.string().nullish(),
  name: z.string().nullish(),
  url: z.string().nullish(),
  content_type: z.string().nullish(),
  filesize: z.number().int().nullish(),
});

export const conversationPartSchema = z.looseObject({
  id,
  part_type: z.string().min(1).max(64),
  body: z.string().nullish(),
  created_at: unix,
  author: authorSchema.nullish(),
  attachments: z.array(partAttachmentSchema).nullish().transform((a) => a ?? []),
  redacted: z.boolean().nullish(),
});

export const sourceSchema = z.looseObject({
  type: z.string().nullish(),
  id: id.nullish(),
  delivered_as: z.string().nullish(),
  subject: z.string().nullish(),
  body: z.string().nullish(),
  author: authorSchema.nullish(),
  attachments: z.array(partAttachmentSchema).nullish().transform((a) => a ?? []),
  url: z.string().nullish(),
});

export const conversationSchema = z.looseObject({
  type: z.literal('conversation'),
  id,
  title: z.string().nullish(),
  created_at: unix,
  updated_at: unix,
  state: z.string().nullish(),
  source: sourceSchema.nullish(),
  contacts: z.looseObject({ contacts: z.array(z.looseObject({ id, external_id: z.string().nullish() })) }).nullish(),
  tags: z.looseObject({ tags: z.array(z.looseObject({ name: z.string() })) }).nullish(),
  conversation_parts: z.looseObject({ conversation_parts: z.array(z.unknown()), total_count: z.number().int().nullish() }).nullish(),
});

export const contactSchema = z.looseObject({
  type: z.literal('contact'),
  id,
  role: z.string().nullish(),
  email: z.string().nullish(),
  name: z.string().nullish(),
  external_id: z.string().nullish(),
  companies: z.looseObject({ data: z.array(z.looseObject({ id })).nullish() }).nullish(),
});

export const companySchema = z.looseObject({
  type: z.literal('company'),
  id,
  name: z.string().nullish(),
  company_id: z.string().nullish(),
  website: z.string().nullish(),
});

const pagesSchema = z.looseObject({
  next: z.looseObject({ starting_after: z.string().min(1).max(4096) }).nullish(),
}).nullish();

/** POST /conversations/search: the page itself must have this shape; its conversations are checked one by one. */
export const conversationSearchPageSchema = z.looseObject({
  type: z.literal('conversation.list'),
  conversations: z.array(z.unknown()),
  pages: pagesSchema,
});

/** POST /contacts/search. */
export const contactSearchPageSchema = z.looseObject({
  type: z.literal('list'),
  data: z.array(z.unknown()),
  pages: pagesSchema,
});

export type IntercomMe = z.infer<typeof meSchema>;
export type Conversation = z.infer<typeof conversationSchema>;
export type ConversationPart = z.infer<typeof conversationPartSchema>;
export type IntercomContact = z.infer<typeof contactSchema>;
export type IntercomCompany = z.infer<typeof companySchema>;
export type PartAttachment = z.infer<typeof partAttachmentSchema>;
