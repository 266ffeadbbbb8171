import { intercomCredentialsSchema, intercomSettingsSchema, type IntercomCredentials, type IntercomSettings } from '@loupe/records';
import { z } from 'zod';
import type { Connector, ReadContext, VendorPage } from '../connector';
import { parseAnswer, parseEach } from '../parse';
import { VendorRequestError } from '../vendor-http';
import { contactPerson, conversationRecord, intercomCompany } from './map';
import {
  companySchema, contactSchema, contactSearchPageSchema, conversationPartSchema, conversationSchema, conversationSearchPageSchema, meSchema,
  type Conversation, type IntercomCompany, type IntercomContact,
} from './shapes';

export { intercomCredentialsSchema, intercomSettingsSchema, type IntercomCredentials, type IntercomSettings };

/** The API version the shapes in shapes.ts are read from, sent on every request as Intercom asks. */
export const INTERCOM_VERSION = '2.11';
export const INTERCOM_DEFAULT_BASE_URL = 'https://api.intercom.io';
/**
 * A window ends this long before the engine's clock: a conversation changed just before a window closes may not be in
 * Intercom's search yet, and the two clocks may differ. It is read by the next window (the next sync).
 */
export const INTERCOM_SETTLE_SECONDS = 120;
const DEFAULT_BACKFILL_DAYS = 90;
const DEFAULT_PAGE_SIZE = 50;
/** Ids per POST /contacts/search (an `IN` filter). */
const CONTACTS_PER_SEARCH = 100;

/**
 * Where the read is: every conversation with `since <= updated_at < until` is read in one window, page after page by
 * Intercom's `starting_after`; once the window is read, the next starts at its `until`. A window's bounds are fixed when
 * it starts, so a restart resumes the same search from the saved `starting_after`.
 */
const cursorSchema = z.strictObject({
  since: z.number().int().min(0),
  until: z.number().int().min(0).optional(),
  starting_after: z.string().min(1).max(4096).optional(),
});
type Cursor = z.infer<typeof cursorSchema>;

const url = (ctx: ReadContext<IntercomSettings>, path: string) => new URL(path, ctx.baseUrl).toString();

function firstWindow(ctx: ReadContext<IntercomSettings>): number {
  const start = ctx.settings.start_date ? Date.parse(`${ctx.settings.start_date}T00:00:00Z`) : ctx.createdAt.getTime() - DEFAULT_BACKFILL_DAYS * 86_400_000;
  return Math.floor(start / 1000);
}

/** The search of one window: `updated_at > since - 1 AND updated_at < until` (Intercom's operators on a timestamp are `>` and `<`). */
function searchBody(ctx: ReadContext<IntercomSettings>, cursor: Required<Pick<Cursor, 'since' | 'until'>> & Cursor) {
  return {
    query: {
      operator: 'AND',
      value: [
        { field: 'updated_at', operator: '>', value: cursor.since - 1 },
        { field: 'updated_at', operator: '<', value: cursor.until },
      ],
    },
    pagination: { per_page: ctx.settings.page_size ?? DEFAULT_PAGE_SIZE, ...(cursor.starting_after ? { starting_after: cursor.starting_after } : {}) },
  };
}

/** The contacts of a page, by POST /contacts/search on their ids, a hundred at a time. */
async function contactsOf(ctx: ReadContext<IntercomSettings>, ids: string[], refused: VendorPage['refused']): Promise<Map<string, IntercomContact>> {
  const found = new Map<string, IntercomContact>();
  for (let i = 0; i < ids.length; i += CONTACTS_PER_SEARCH) {
    const chunk = ids.slice(i, i + CONTACTS_PER_SEARCH);
    let startingAfter: string | undefined;
    for (;;) {
      const body = { query: { field: 'id', operator: 'IN', value: chunk }, pagination: { per_page: CONTACTS_PER_SEARCH, ...(startingAfter ? { starting_after: startingAfter } : {}) } };
      const page = parseAnswer(contactSearchPageSchema, await ctx.get(url(ctx, '/contacts/search'), body), '/contacts/search: the answer is not what Intercom documents');
      for (const c of parseEach(contactSchema, page.data, 'contact', refused)) found.set(c.id, c);
      const next = page.pages?.next?.starting_after;
      if (!next || next === startingAfter) break;
      startingAfter = next;
    }
  }
  return found;
}

/** Companies are few and shared by many contacts: each is asked once per read. A company Intercom no longer has is left out. */
async function companiesOf(
  ctx: ReadContext<IntercomSettings>, contacts: Iterable<IntercomContact>, cache: Map<string, IntercomCompany | null>, refused: VendorPage['refused'],
): Promise<IntercomCompany[]> {
  const wanted = new Set<string>();
  for (const c of contacts) for (const ref of c.companies?.data ?? []) wanted.add(ref.id);
  const out: IntercomCompany[] = [];
  for (const companyId of wanted) {
    if (!cache.has(companyId)) {
      const path = `/companies/${encodeURIComponent(companyId)}`;
      let body: unknown;
      try {
        body = await ctx.get(url(ctx, path));
      } catch (error) {
        if (error instanceof VendorRequestError && /: 404\b/.test(error.message)) {
          cache.set(companyId, null);
          continue;
        }
        throw error;
      }
      const parsed = parseEach(companySchema, [body], 'company', refused)[0];
      cache.set(companyId, parsed && parsed.id === companyId ? parsed : null);
    }
    const company = cache.get(companyId);
    if (company) out.push(company);
  }
  return out;
}

/** GET /conversations/{id}: the conversation with its parts. One that is malformed, or not the one asked for, is refused alone. */
async function fullConversation(ctx: ReadContext<IntercomSettings>, listed: Conversation, refused: VendorPage['refused']) {
  const path = `/conversations/${encodeURIComponent(listed.id)}`;
  let body: unknown;
  try {
    body = await ctx.get(url(ctx, path));
  } catch (error) {
    // Deleted between the search and now: nothing to bring.
    if (error instanceof VendorRequestError && /: 404\b/.test(error.message)) return undefined;
    throw error;
  }
  const [conversation] = parseEach(conversationSchema, [body], 'conversation', refused);
  if (!conversation) return undefined;
  if (conversation.id !== listed.id) {
    refused.push({ object: `conversation ${listed.id}`, reason: `${path} answered with conversation ${conversation.id.slice(0, 64)}` });
    return undefined;
  }
  const parts = parseEach(conversationPartSchema, conversation.conversation_parts?.conversation_parts ?? [], `part of conversation ${listed.id}`, refused);
  return { conversation, parts };
}

async function mapPage(
  ctx: ReadContext<IntercomSettings>, app: string, body: unknown, cursor: Cursor & { until: number }, companyCache: Map<string, IntercomCompany | null>,
): Promise<VendorPage> {
  const page = parseAnswer(conversationSearchPageSchema, body, '/conversations/search: the answer is not what Intercom documents');
  const refused: VendorPage['refused'] = [];
  const listed = parseEach(conversationSchema, page.conversations, 'conversation', refused);
  const read = [];
  for (const c of listed) {
    const full = await fullConversation(ctx, c, refused);
    if (full) read.push(full);
  }
  const contactIds = [...new Set(read.flatMap((r) => [
    ...(r.conversation.contacts?.contacts ?? []).map((c) => c.id),
    ...[r.conversation.source?.author, ...r.parts.map((p) => p.author)].flatMap((a) => (a?.id && (a.type === 'user' || a.type === 'lead') ? [a.id] : [])),
  ]))];
  const contacts = await contactsOf(ctx, contactIds, refused);
  const companies = await companiesOf(ctx, contacts.values(), companyCache, refused);
  const known = new Set(companies.map((c) => c.id));
  const next = page.pages?.next?.starting_after ?? undefined;
  if (next && next === cursor.starting_after) throw new VendorRequestError('/conversations/search: the next page\'s starting_after is the one just asked for');
  return {
    records: read.map((r) => conversationRecord(app, ctx.routing, r.conversation, r.parts, contacts)),
    companies: companies.map((c) => intercomCompany(app, c)),
    people: [...contacts.values()].map((c) => contactPerson(app, c, known)),
    refused,
    cursor: next ? { since: cursor.since, until: cursor.until, starting_after: next } : { since: cursor.until },
    done: !next,
  };
}

export const intercomConnector: Connector<IntercomCredentials, IntercomSettings> = {
  kind: 'intercom',
  credentialsSchema: intercomCredentialsSchema,
  settingsSchema: intercomSettingsSchema,
  defaultBaseUrl: INTERCOM_DEFAULT_BASE_URL,
  authHeaders(credentials) {
    return { authorization: `Bearer ${credentials.access_token}`, 'intercom-version': INTERCOM_VERSION };
  },
  async *read(ctx, stored) {
    // The workspace the token belongs to names every id; asking it first also checks the token before any search.
    const me = parseAnswer(meSchema, await ctx.get(url(ctx, '/me')), '/me: the answer is not what Intercom documents');
    const app = me.app.id_code;
    const resume = cursorSchema.safeParse(stored);
    let cursor: Cursor = resume.success ? resume.data : { since: firstWindow(ctx) };
    const now = Math.floor((ctx.now?.() ?? Date.now()) / 1000);
    const window = { ...cursor, until: cursor.until ?? Math.max(cursor.since, now - INTERCOM_SETTLE_SECONDS) };
    if (window.until <= window.since) {
      // Nothing can have settled since the last window: nothing to ask.
      yield { records: [], companies: [], people: [], refused: [], cursor: { since: cursor.since }, done: true };
      return;
    }
    const companyCache = new Map<string, IntercomCompany | null>();
    for (;;) {
      let body: unknown;
      try {
        body = await ctx.get(url(ctx, '/conversations/search'), searchBody(ctx, window));
      } catch (error) {
        // A saved starting_after Intercom no longer takes (expired, or a hostile page's): the window is read again from its
        // start, which brings back what was read as duplicates and loses nothing.
        if (!(window.starting_after && error instanceof VendorRequestError && /: 400\b/.test(error.message))) throw error;
        delete window.starting_after;
        body = await ctx.get(url(ctx, '/conversations/search'), searchBody(ctx, window));
      }
      const page = await mapPage(ctx, app, body, window, companyCache);
      yield page;
      if (page.done) return;
      cursor = page.cursor as Cursor;
      window.starting_after = cursor.starting_after;
    }
  },
};
