import type http from 'node:http';
import { FakeVendorServer } from './fake-vendor-server';

/**
 * An Intercom that a test starts on 127.0.0.1, following the documented endpoints the connector reads (API 2.11):
 * GET /me (the admin and its `app.id_code`), POST /conversations/search (`updated_at` filters with `>` and `<`, AND/OR,
 * cursor pagination by `pagination.per_page` and `starting_after`, `pages.next.starting_after` on every page but the
 * last), GET /conversations/{id} with its `conversation_parts`, POST /contacts/search (`id` IN …), GET /companies/{id};
 * Bearer access tokens (401 `unauthorized` in an `error.list` when refused); every authenticated answer carries
 * X-RateLimit-Limit / -Remaining / -Reset, and a 429 `rate_limit_exceeded` when told to limit, its reset a Unix
 * timestamp, with Retry-After too when asked.
 */
export interface FakeIntercomPart {
  id: string;
  part_type: 'comment' | 'note' | 'assignment' | 'close' | 'open';
  body: string | null;
  created_at: number;
  author: { type: 'admin' | 'user' | 'lead' | 'bot' | 'team'; id: string; name: string; email: string };
  attachments: { type: 'upload'; name: string; url: string; content_type: string; filesize: number }[];
}

export interface FakeIntercomConversation {
  id: string;
  title: string | null;
  created_at: number;
  updated_at: number;
  state: 'open' | 'closed' | 'snoozed';
  contact_id: string;
  source_body: string;
  parts: FakeIntercomPart[];
  tags: string[];
  /** Served as is instead of the conversation (in the search and when retrieved): a malformed object the connector must refuse alone. */
  malformed?: Record<string, unknown>;
  /** Listed by the search but deleted before it is retrieved (404 then). */
  deletedBeforeRead?: boolean;
}

export interface FakeIntercomContact { id: string; role: 'user' | 'lead'; name: string; email: string | null; company_ids: string[] }
export interface FakeIntercomCompany { id: string; name: string; company_id: string; website: string | null }

export interface FakeIntercomOptions {
  accessToken: string;
  appId?: string;
  /** The time the fake lives in (ms): the real clock by default. A test's sleep adds to `virtualNowMs` on top of it. */
  now?: () => number;
}

export interface FakeIntercomRequest { method: string; path: string; body: unknown; authorization: string | undefined; version: string | undefined; status: number }

const ADMIN = { type: 'admin' as const, id: '814860', name: 'Alex Admin', email: 'alex@support.example' };
const BOT = { type: 'bot' as const, id: '990001', name: 'Fin', email: 'operator+app@intercom.io' };
const encode = (updatedAt: number, id: string) => Buffer.from(JSON.stringify([updatedAt, id])).toString('base64url');
function decode(cursor: string): [number, string] | undefined {
  try {
    const v = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as unknown;
    return Array.isArray(v) && typeof v[0] === 'number' && typeof v[1] === 'string' ? [v[0], v[1]] : undefined;
  } catch {
    return undefined;
  }
}

type Filter = { field?: unknown; operator?: unknown; value?: unknown };

export class FakeIntercom extends FakeVendorServer<FakeIntercomRequest> {
  readonly conversations = new Map<string, FakeIntercomConversation>();
  readonly contacts = new Map<string, FakeIntercomContact>();
  readonly companies = new Map<string, FakeIntercomCompany>();
  /** Called on each request before it is answered (a test aborts a sync mid-page from here). */
  onRequest: ((path: string, query: URLSearchParams, method?: string) => void) | undefined;
  private limitWithRetryAfter = false;
  private revoked = false;
  private nextPartId = 1;

  constructor(readonly options: FakeIntercomOptions) {
    super();
    this.retryAfterSeconds = 10;
  }

  get appId(): string {
    return this.options.appId ?? 'abc123de';
  }

  /** The time the fake lives in (ms): the real clock by default, the test's sleeps (`virtualNowMs`) added on top. */
  override now(): number {
    return (this.options.now ? this.options.now() : Date.now()) + this.virtualNowMs;
  }

  /**
   * `count` conversations from 2026-01-01 on, one a minute, each started by a contact (users in one of ten companies,
   * every third a lead without one) and answered with `partsEach` parts: an admin's reply, a private note, Fin's answer
   * in turn, and an assignment (no body) at the end.
   */
  seed(count: number, partsEach = 2): void {
    for (let o = 1; o <= 10; o++) this.companies.set(`c${o}`, { id: `c${o}`, name: `Customer ${o}`, company_id: `cust-${o}`, website: `https://www.customer${o}.example` });
    const base = Date.parse('2026-01-01T00:00:00Z') / 1000;
    for (let i = 1; i <= count; i++) {
      const lead = i % 3 === 0;
      const contact: FakeIntercomContact = {
        id: `ct${i}`, role: lead ? 'lead' : 'user', name: lead ? `Lead ${i}` : `Customer person ${i}`, email: `person${i}@customer${(i % 10) + 1}.example`,
        company_ids: lead ? [] : [`c${(i % 10) + 1}`],
      };
      this.contacts.set(contact.id, contact);
      const created = base + i * 60;
      const parts: FakeIntercomPart[] = [];
      for (let p = 0; p < partsEach; p++) {
        const kind = p % 3;
        parts.push({
          id: String(this.nextPartId++), part_type: kind === 1 ? 'note' : 'comment', created_at: created + (p + 1) * 10, attachments: [],
          author: kind === 2 ? BOT : ADMIN,
          body: kind === 0 ? `<p>Thanks, we are looking at export ${i} (${p}).</p>` : kind === 1 ? `<p>Internal: export ${i} needs engineering</p>` : `<p>Fin: here is an article about exports (${p})</p>`,
        });
      }
      parts.push({ id: String(this.nextPartId++), part_type: 'assignment', body: null, created_at: created + (partsEach + 1) * 10, author: ADMIN, attachments: [] });
      this.conversations.set(String(i), {
        id: String(i), title: null, created_at: created, updated_at: created + (partsEach + 1) * 10, state: 'open', contact_id: contact.id,
        source_body: `<p>Exporting report ${i} to CSV fails &amp; I get an error</p>`, parts, tags: ['export'],
      });
    }
  }

  /** A new message in a conversation, by its contact unless told: the conversation is updated then. */
  reply(conversationId: string, body: string, atSeconds = Math.floor(this.now() / 1000), author?: FakeIntercomPart['author']): void {
    const c = this.conversations.get(conversationId)!;
    const contact = this.contacts.get(c.contact_id)!;
    c.parts.push({
      id: String(this.nextPartId++), part_type: 'comment', body, created_at: atSeconds, attachments: [],
      author: author ?? { type: contact.role, id: contact.id, name: contact.name, email: contact.email ?? '' },
    });
    c.updated_at = atSeconds;
  }

  /** A change without a message (closing it): the conversation is updated, with nothing new to say. */
  close(conversationId: string, atSeconds = Math.floor(this.now() / 1000)): void {
    const c = this.conversations.get(conversationId)!;
    c.state = 'closed';
    c.parts.push({ id: String(this.nextPartId++), part_type: 'close', body: null, created_at: atSeconds, author: ADMIN, attachments: [] });
    c.updated_at = atSeconds;
  }

  /** The next `count` requests are answered 429, the window resetting `seconds` later (X-RateLimit-Reset), with Retry-After too when `retryAfter`. */
  override rateLimit(count: number, seconds: number, retryAfter = false): void {
    super.rateLimit(count, seconds);
    this.limitWithRetryAfter = retryAfter;
  }

  /** Every request is refused from now on, as Intercom refuses a revoked token, until `restore`. */
  revoke(): void {
    this.revoked = true;
  }

  restore(accessToken: string): void {
    this.revoked = false;
    this.options.accessToken = accessToken;
  }

  protected answer(req: http.IncomingMessage, text: string, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    const method = req.method ?? 'GET';
    let body: unknown;
    try {
      body = text ? JSON.parse(text) : undefined;
    } catch {
      body = text;
    }
    const version = req.headers['intercom-version'];
    const log: FakeIntercomRequest = { method, path: url.pathname, body, authorization: req.headers.authorization, version: Array.isArray(version) ? version[0] : version, status: 200 };
    this.requests.push(log);
    const resetAt = Math.ceil(Date.now() / 1000) + 10;
    const limits = { 'x-ratelimit-limit': '167', 'x-ratelimit-remaining': '100', 'x-ratelimit-reset': String(resetAt) };
    const send = (status: number, payload: unknown, headers: Record<string, string> = {}) => this.sendJson(res, log, status, payload, headers);
    const errors = (status: number, code: string, message: string, headers: Record<string, string> = {}) =>
      send(status, { type: 'error.list', request_id: `req-${this.requests.length}`, errors: [{ code, message }] }, headers);
    if (this.cutBy(res, () => this.onRequest?.(url.pathname, url.searchParams, method))) return;
    // The reset is told on the real clock (what a client compares it with); the fake's own time has the test's clock moves and sleeps on top.
    const real = Date.now();
    const reset = Math.ceil((real + this.retryAfterSeconds * 1000) / 1000);
    // With Retry-After, that is the wait asked for; without, the reset.
    if (this.rateLimitedNow(this.limitWithRetryAfter ? this.retryAfterSeconds * 1000 : reset * 1000 - real)) {
      return errors(429, 'rate_limit_exceeded', `Exceeded rate limit of 167 in 10_seconds`, {
        'x-ratelimit-limit': '167', 'x-ratelimit-remaining': '0', 'x-ratelimit-reset': String(reset),
        ...(this.limitWithRetryAfter ? { 'retry-after': String(this.retryAfterSeconds) } : {}),
      });
    }
    if (this.revoked || req.headers.authorization !== `Bearer ${this.options.accessToken}`) return errors(401, 'unauthorized', 'Access Token Invalid');
    if (method === 'GET' && url.pathname === '/me') {
      return send(200, { ...ADMIN, email_verified: true, app: { type: 'app', id_code: this.appId, name: 'Acme', region: 'US', timezone: 'UTC' } }, limits);
    }
    if (method === 'POST' && url.pathname === '/conversations/search') {
      if (this.sendRaw(res, log, this.raw.shift(), limits)) return;
      const page = this.searchConversations(body);
      return typeof page === 'string' ? errors(400, 'parameter_invalid', page) : send(200, page, limits);
    }
    const conversation = /^\/conversations\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && conversation) {
      const c = this.conversations.get(decodeURIComponent(conversation[1]!));
      return c && !c.deletedBeforeRead ? send(200, c.malformed ?? this.conversationJson(c, true), limits) : errors(404, 'conversation_not_found', 'Conversation Not Found');
    }
    if (method === 'POST' && url.pathname === '/contacts/search') {
      const page = this.searchContacts(body);
      return typeof page === 'string' ? errors(400, 'parameter_invalid', page) : send(200, page, limits);
    }
    const company = /^\/companies\/([^/]+)$/.exec(url.pathname);
    if (method === 'GET' && company) {
      const c = this.companies.get(decodeURIComponent(company[1]!));
      return c ? send(200, { type: 'company', ...c, app_id: this.appId, created_at: 1700000000, updated_at: 1700000000, user_count: 1, session_count: 0, custom_attributes: {}, tags: { type: 'tag.list', tags: [] } }, limits)
        : errors(404, 'company_not_found', 'Company Not Found');
    }
    errors(404, 'not_found', 'Resource Not Found');
  }

  private matches(c: FakeIntercomConversation, filter: Filter): boolean | string {
    if (filter.operator === 'AND' || filter.operator === 'OR') {
      if (!Array.isArray(filter.value)) return `${String(filter.operator)} needs a list of filters`;
      const each = (filter.value as Filter[]).map((f) => this.matches(c, f));
      const bad = each.find((r) => typeof r === 'string');
      if (bad !== undefined) return bad;
      return filter.operator === 'AND' ? each.every(Boolean) : each.some(Boolean);
    }
    if (filter.field !== 'updated_at' && filter.field !== 'created_at') return `the fake searches by updated_at and created_at only, not ${String(filter.field)}`;
    if (typeof filter.value !== 'number') return `${filter.field} needs a Unix timestamp`;
    const v = filter.field === 'updated_at' ? c.updated_at : c.created_at;
    if (filter.operator === '>') return v > filter.value;
    if (filter.operator === '<') return v < filter.value;
    if (filter.operator === '=') return v === filter.value;
    return `operator ${String(filter.operator)} is not one the fake knows`;
  }

  /** Sorted by updated_at then id; `starting_after` is the position after the last one served (as a search_after). */
  private searchConversations(body: unknown): Record<string, unknown> | string {
    const request = body as { query?: Filter; pagination?: { per_page?: unknown; starting_after?: unknown } } | undefined;
    if (!request?.query) return 'query is required';
    const perPage = Number(request.pagination?.per_page ?? 20);
    if (!Number.isInteger(perPage) || perPage < 1 || perPage > 150) return 'per_page must be between 1 and 150';
    const after = typeof request.pagination?.starting_after === 'string' ? decode(request.pagination.starting_after) : undefined;
    if (request.pagination?.starting_after !== undefined && !after) return 'starting_after is not valid';
    const all: FakeIntercomConversation[] = [];
    for (const c of this.conversations.values()) {
      const m = this.matches(c, request.query);
      if (typeof m === 'string') return m;
      if (m) all.push(c);
    }
    all.sort((a, b) => a.updated_at - b.updated_at || Number(a.id) - Number(b.id));
    const remaining = after ? all.filter((c) => c.updated_at > after[0] || (c.updated_at === after[0] && Number(c.id) > Number(after[1]))) : all;
    const page = remaining.slice(0, perPage);
    const last = page[page.length - 1];
    const more = remaining.length > perPage && last;
    const served = all.length - remaining.length;
    return {
      type: 'conversation.list',
      conversations: page.map((c) => c.malformed ?? this.conversationJson(c, false)),
      total_count: all.length,
      pages: {
        type: 'pages', page: Math.floor(served / perPage) + 1, per_page: perPage, total_pages: Math.max(1, Math.ceil(all.length / perPage)),
        ...(more ? { next: { page: Math.floor(served / perPage) + 2, starting_after: encode(last.updated_at, last.id) } } : {}),
      },
    };
  }

  private searchContacts(body: unknown): Record<string, unknown> | string {
    const request = body as { query?: Filter } | undefined;
    const q = request?.query;
    if (!q || q.field !== 'id' || q.operator !== 'IN' || !Array.isArray(q.value)) return 'the fake searches contacts by id IN [...] only';
    const data = (q.value as unknown[]).map((id) => this.contacts.get(String(id))).filter((c) => c !== undefined).map((c) => ({
      type: 'contact', id: c.id, workspace_id: this.appId, external_id: null, role: c.role, email: c.email, name: c.name, phone: null,
      created_at: 1700000000, updated_at: 1700000000,
      companies: { type: 'list', data: c.company_ids.map((id) => ({ type: 'company', id, url: `/companies/${id}` })), url: `/contacts/${c.id}/companies`, total_count: c.company_ids.length, has_more: false },
    }));
    return { type: 'list', data, total_count: data.length, pages: { type: 'pages', page: 1, per_page: 150, total_pages: 1 } };
  }

  private conversationJson(c: FakeIntercomConversation, withParts: boolean): Record<string, unknown> {
    const contact = this.contacts.get(c.contact_id)!;
    return {
      type: 'conversation', id: c.id, title: c.title, created_at: c.created_at, updated_at: c.updated_at, waiting_since: null, snoozed_until: null,
      open: c.state !== 'closed', state: c.state, read: true, priority: 'not_priority', admin_assignee_id: Number(ADMIN.id), team_assignee_id: null,
      tags: { type: 'tag.list', tags: c.tags.map((name, i) => ({ type: 'tag', id: String(i + 1), name })) },
      source: {
        type: 'conversation', id: `src-${c.id}`, delivered_as: 'customer_initiated', subject: '', body: c.source_body,
        author: { type: contact.role, id: contact.id, name: contact.name, email: contact.email ?? '' }, attachments: [], url: null, redacted: false,
      },
      contacts: { type: 'contact.list', contacts: [{ type: 'contact', id: contact.id, external_id: null }] },
      teammates: { type: 'admin.list', teammates: [{ type: 'admin', id: ADMIN.id }] },
      ...(withParts ? {
        conversation_parts: {
          type: 'conversation_part.list', total_count: c.parts.length,
          conversation_parts: c.parts.map((p) => ({ type: 'conversation_part', ...p, updated_at: p.created_at, notified_at: p.created_at, assigned_to: null, external_id: null, redacted: false })),
        },
      } : {}),
    };
  }
}
