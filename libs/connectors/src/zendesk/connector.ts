import { zendeskCredentialsSchema, zendeskSettingsSchema, type ZendeskCredentials, type ZendeskSettings } from '@loupe/records';
import { z } from 'zod';
import type { Connector, ReadContext, VendorPage } from '../connector';
import { parseAnswer, parseEach } from '../parse';
import { VendorRequestError } from '../vendor-http';
import { endUserPerson, organizationCompany, ticketRecord } from './map';
import {
  commentSchema, commentsPageSchema, organizationSchema, ticketExportPageSchema, ticketSchema, userSchema,
  type Comment, type Organization, type Ticket, type ZendeskUser,
} from './shapes';

export { zendeskCredentialsSchema, zendeskSettingsSchema, type ZendeskCredentials, type ZendeskSettings };

/** Where the export resumes: Zendesk's `after_cursor`, kept even at the end of the stream (the next poll starts from it). */
const cursorSchema = z.strictObject({ after_cursor: z.string().min(1) });

const DEFAULT_BACKFILL_DAYS = 90;

function exportUrl(ctx: ReadContext<ZendeskSettings>, cursor: string | undefined): string {
  const url = new URL('/api/v2/incremental/tickets/cursor.json', ctx.baseUrl);
  if (cursor) url.searchParams.set('cursor', cursor);
  else {
    const start = ctx.settings.start_date ? Date.parse(`${ctx.settings.start_date}T00:00:00Z`) : ctx.createdAt.getTime() - DEFAULT_BACKFILL_DAYS * 86_400_000;
    url.searchParams.set('start_time', String(Math.floor(start / 1000)));
  }
  url.searchParams.set('include', 'users,organizations');
  url.searchParams.set('exclude_deleted', 'true');
  if (ctx.settings.page_size) url.searchParams.set('per_page', String(ctx.settings.page_size));
  return url.toString();
}

/**
 * Every comment of a ticket, public replies and private notes, with their authors side-loaded. Pages are
 * followed by `after_cursor` on the connection's own base URL: a `links.next` the vendor sends is never
 * fetched, so the credentials only ever go to the address the connection names.
 */
async function commentsOf(ctx: ReadContext<ZendeskSettings>, ticketId: number, users: Map<number, ZendeskUser>, refused: VendorPage['refused']): Promise<Comment[]> {
  const comments: Comment[] = [];
  let after: string | undefined;
  for (;;) {
    const url = new URL(`/api/v2/tickets/${ticketId}/comments.json`, ctx.baseUrl);
    url.searchParams.set('page[size]', '100');
    url.searchParams.set('include', 'users');
    if (after) url.searchParams.set('page[after]', after);
    const page = parseAnswer(commentsPageSchema, await ctx.get(url.toString()), `${url.pathname}: the answer is not a page Zendesk documents`);
    for (const u of parseEach(userSchema, page.users, 'user', refused)) users.set(u.id, u);
    comments.push(...parseEach(commentSchema, page.comments, `comment of ticket ${ticketId}`, refused));
    if (!page.meta?.has_more || !page.meta.after_cursor) return comments;
    after = page.meta.after_cursor;
  }
}

function wanted(settings: ZendeskSettings, ticket: Ticket): boolean {
  if (ticket.status === 'deleted') return false;
  if (settings.brand_ids?.length && (ticket.brand_id == null || !settings.brand_ids.includes(ticket.brand_id))) return false;
  if (settings.tags?.length && !ticket.tags.some((t) => settings.tags!.includes(t))) return false;
  return true;
}

async function mapPage(ctx: ReadContext<ZendeskSettings>, body: unknown): Promise<VendorPage> {
  const page = parseAnswer(ticketExportPageSchema, body, '/api/v2/incremental/tickets/cursor.json: the answer is not a page Zendesk documents');
  const host = new URL(ctx.baseUrl).host;
  const refused: VendorPage['refused'] = [];
  const users = new Map(parseEach(userSchema, page.users, 'user', refused).map((u) => [u.id, u]));
  const organizations: Organization[] = parseEach(organizationSchema, page.organizations, 'organization', refused);
  const tickets = parseEach(ticketSchema, page.tickets, 'ticket', refused).filter((t) => wanted(ctx.settings, t));
  const records = [];
  for (const ticket of tickets) {
    const comments = await commentsOf(ctx, ticket.id, users, refused);
    records.push(ticketRecord(host, ctx.routing, ticket, comments, users));
  }
  const orgIds = new Set(organizations.map((o) => o.id));
  const people = [...users.values()].map((u) => endUserPerson(host, u, orgIds)).filter((p) => p !== undefined);
  if (!page.end_of_stream && !page.after_cursor) throw new VendorRequestError('/api/v2/incremental/tickets/cursor.json: a page that is not the last has no after_cursor');
  return {
    records, companies: organizations.map((o) => organizationCompany(host, o)), people, refused,
    cursor: page.after_cursor ? { after_cursor: page.after_cursor } : null,
    done: page.end_of_stream,
  };
}

export const zendeskConnector: Connector<ZendeskCredentials, ZendeskSettings> = {
  kind: 'zendesk',
  credentialsSchema: zendeskCredentialsSchema,
  settingsSchema: zendeskSettingsSchema,
  authHeaders(credentials) {
    if ('access_token' in credentials) return { authorization: `Bearer ${credentials.access_token}` };
    return { authorization: `Basic ${Buffer.from(`${credentials.email}/token:${credentials.api_token}`).toString('base64')}` };
  },
  async *read(ctx, stored) {
    const resume = cursorSchema.safeParse(stored);
    let cursor = resume.success ? resume.data.after_cursor : undefined;
    for (;;) {
      const page = await mapPage(ctx, await ctx.get(exportUrl(ctx, cursor)));
      // An empty last page without a cursor keeps the one we had: the next poll starts from there.
      if (page.cursor === null && cursor) page.cursor = { after_cursor: cursor };
      yield page;
      if (page.done) return;
      cursor = (page.cursor as { after_cursor: string }).after_cursor;
    }
  },
};
