import { z } from 'zod';

// Zendesk Support's objects as its API reference documents them (and node-zendesk's types), reduced to the
// fields the connector reads. Objects are parsed one by one: one malformed ticket is refused, not the page.

const id = z.number().int();
const stamp = z.string().refine((s) => !Number.isNaN(Date.parse(s)), 'is not a date and time');

export const ticketSchema = z.looseObject({
  id,
  subject: z.string().nullish(),
  description: z.string().nullish(),
  status: z.string(),
  priority: z.string().nullish(),
  type: z.string().nullish(),
  requester_id: id.nullish(),
  organization_id: id.nullish(),
  brand_id: id.nullish(),
  tags: z.array(z.string()).default([]),
  via: z.looseObject({ channel: z.union([z.string(), z.number()]).nullish() }).nullish(),
  created_at: stamp,
  updated_at: stamp,
});

export const userSchema = z.looseObject({
  id,
  name: z.string().nullish(),
  email: z.string().nullish(),
  role: z.string().nullish(),
  organization_id: id.nullish(),
});

export const organizationSchema = z.looseObject({
  id,
  name: z.string(),
  domain_names: z.array(z.string()).default([]),
  external_id: z.string().nullish(),
});

export const attachmentSchema = z.looseObject({
  id,
  file_name: z.string().nullish(),
  content_url: z.string().nullish(),
  content_type: z.string().nullish(),
  size: z.number().int().nullish(),
});

export const commentSchema = z.looseObject({
  id,
  author_id: id.nullish(),
  body: z.string().nullish(),
  plain_body: z.string().nullish(),
  html_body: z.string().nullish(),
  public: z.boolean().default(true),
  created_at: stamp,
  attachments: z.array(attachmentSchema).default([]),
});

/** GET /api/v2/incremental/tickets/cursor.json: the page itself must have this shape; its items are checked one by one. */
export const ticketExportPageSchema = z.looseObject({
  tickets: z.array(z.unknown()),
  users: z.array(z.unknown()).default([]),
  organizations: z.array(z.unknown()).default([]),
  after_cursor: z.string().nullish(),
  end_of_stream: z.boolean(),
});

/** GET /api/v2/tickets/{id}/comments.json with cursor pagination (`page[size]`). */
export const commentsPageSchema = z.looseObject({
  comments: z.array(z.unknown()),
  users: z.array(z.unknown()).default([]),
  meta: z.looseObject({ has_more: z.boolean(), after_cursor: z.string().nullish() }).optional(),
});

export type Ticket = z.infer<typeof ticketSchema>;
export type ZendeskUser = z.infer<typeof userSchema>;
export type Organization = z.infer<typeof organizationSchema>;
export type Comment = z.infer<typeof commentSchema>;
