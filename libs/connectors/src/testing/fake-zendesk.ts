import type http from 'node:http';
import { FakeVendorServer } from './fake-vendor-server';

/**
 * A Zendesk Support that a test starts on 127.0.0.1, following the documented endpoints the connector reads:
 * the cursor-based incremental ticket export (`start_time`, then `cursor`; `after_cursor`, `end_of_stream`;
 * users and organizations side-loaded), ticket comments with cursor pagination (`page[size]`, `page[after]`,
 * `meta.has_more`, `meta.after_cursor`), basic `email/token:api_token` and bearer auth (401 when refused),
 * and 429 with `Retry-After` (seconds) when told to limit.
 */
export interface FakeTicket {
  id: number;
  subject: string;
  status: string;
  requester_id: number;
  organization_id: number | null;
  tags: string[];
  brand_id: number;
  created_at: string;
  updated_at: string;
  /** Served as is instead of the ticket: a malformed object the connector must refuse alone. */
  malformed?: Record<string, unknown>;
}

export interface FakeComment {
  id: number;
  author_id: number;
  body: string;
  public: boolean;
  created_at: string;
  attachments: { id: number; file_name: string; content_url: string; content_type: string; size: number }[];
}

export interface FakeUser { id: number; name: string; email: string; role: 'end-user' | 'agent' | 'admin'; organization_id: number | null }
export interface FakeOrganization { id: number; name: string; domain_names: string[] }

export interface FakeZendeskOptions {
  email?: string;
  apiToken?: string;
  accessToken?: string;
  /** Tickets per export page when the request does not say (Zendesk: 1,000). */
  pageSize?: number;
  /** The time Retry-After is measured in: the test's virtual time (`virtualNowMs`) by default, or the real clock for a service that really waits. */
  now?: () => number;
}

export interface FakeRequest { path: string; query: URLSearchParams; authorization: string | undefined; status: number }

const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');
const encodeCursor = (updatedMs: number, id: number) => Buffer.from(`${updatedMs / 1000}|${id}`).toString('base64url');
function decodeCursor(cursor: string): { updatedMs: number; id: number } | undefined {
  const m = /^(\d+(?:\.\d+)?)\|(\d+)$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  return m ? { updatedMs: Number(m[1]) * 1000, id: Number(m[2]) } : undefined;
}

export class FakeZendesk extends FakeVendorServer<FakeRequest> {
  readonly tickets = new Map<number, FakeTicket>();
  readonly comments = new Map<number, FakeComment[]>();
  readonly users = new Map<number, FakeUser>();
  readonly organizations = new Map<number, FakeOrganization>();
  /** Called on each request before it is answered (a test aborts a sync mid-page from here). */
  onRequest: ((path: string, query: URLSearchParams) => void) | undefined;
  private revoked: { status: 401 | 403; body: Record<string, unknown> } | undefined;
  private nextCommentId = 1;

  constructor(readonly options: FakeZendeskOptions = {}) {
    super();
  }

  /** `count` tickets from 2026-01-01 on, one a minute, each with a requester (in one of ten organizations) and `commentsEach` comments. */
  seed(count: number, commentsEach = 2): void {
    const agent: FakeUser = { id: 1, name: 'Alex Agent', email: 'alex@support.example', role: 'agent', organization_id: null };
    this.users.set(agent.id, agent);
    for (let o = 1; o <= 10; o++) this.organizations.set(500 + o, { id: 500 + o, name: `Customer ${o}`, domain_names: [`customer${o}.example`] });
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 1; i <= count; i++) {
      const org = 500 + ((i % 10) + 1);
      const requester: FakeUser = { id: 1000 + i, name: `Requester ${i}`, email: `person${i}@customer${(i % 10) + 1}.example`, role: 'end-user', organization_id: org };
      this.users.set(requester.id, requester);
      const created = base + i * 60_000;
      this.tickets.set(i, {
        id: i, subject: `Ticket ${i}: export fails`, status: 'open', requester_id: requester.id, organization_id: org, tags: ['export', i % 2 ? 'odd' : 'even'],
        brand_id: 1, created_at: stamp(created), updated_at: stamp(created),
      });
      const list: FakeComment[] = [];
      for (let c = 0; c < commentsEach; c++) {
        list.push({
          id: this.nextCommentId++, author_id: c % 2 ? agent.id : requester.id, body: c % 2 ? `Private note ${c} on ticket ${i}` : `Exporting report ${i} to CSV fails (${c})`,
          public: c % 2 === 0, created_at: stamp(created + c * 1000), attachments: [],
        });
      }
      this.comments.set(i, list);
    }
  }

  /** A new comment on a ticket: it moves to the end of the export. */
  addComment(ticketId: number, body: string, atMs: number, authorId?: number): void {
    const ticket = this.tickets.get(ticketId)!;
    this.comments.get(ticketId)!.push({ id: this.nextCommentId++, author_id: authorId ?? ticket.requester_id, body, public: true, created_at: stamp(atMs), attachments: [] });
    ticket.updated_at = stamp(atMs);
  }

  /** A change without a comment (a status): the ticket is exported again, with nothing new to say. */
  touch(ticketId: number, status: string, atMs: number): void {
    const ticket = this.tickets.get(ticketId)!;
    ticket.status = status;
    ticket.updated_at = stamp(atMs);
  }

  /** Every request is refused from now on, as Zendesk refuses a revoked token, until `restore`. */
  revoke(status: 401 | 403 = 401): void {
    this.revoked = status === 401
      ? { status, body: { error: "Couldn't authenticate you" } }
      : { status, body: { error: 'Forbidden', description: 'You do not have access to this page. Please contact the account owner of this help desk for further help.' } };
  }

  restore(credentials: FakeZendeskOptions): void {
    this.revoked = undefined;
    Object.assign(this.options, credentials);
  }

  private authorized(header: string | undefined): boolean {
    if (!header) return false;
    const { email, apiToken, accessToken } = this.options;
    if (accessToken && header === `Bearer ${accessToken}`) return true;
    return Boolean(email && apiToken && header === `Basic ${Buffer.from(`${email}/token:${apiToken}`).toString('base64')}`);
  }

  /** The export page answers come from the raw queue first (`serveRaw`). */
  protected answer(req: http.IncomingMessage, _text: string, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    const log: FakeRequest = { path: url.pathname, query: url.searchParams, authorization: req.headers.authorization, status: 200 };
    this.requests.push(log);
    const send = (status: number, body: unknown, headers: Record<string, string> = {}) => this.sendJson(res, log, status, body, headers);
    if (this.cutBy(res, () => this.onRequest?.(url.pathname, url.searchParams))) return;
    if (this.rateLimitedNow()) {
      return send(429, { error: 'APIRateLimitExceeded', description: 'Number of allowed API requests per minute exceeded' }, { 'retry-after': String(this.retryAfterSeconds) });
    }
    if (this.revoked) return send(this.revoked.status, this.revoked.body);
    if (!this.authorized(req.headers.authorization)) return send(401, { error: "Couldn't authenticate you" });
    if (url.pathname === '/api/v2/incremental/tickets/cursor.json') {
      if (this.sendRaw(res, log, this.raw.shift())) return;
      return send(200, this.exportPage(url.searchParams));
    }
    const comments = /^\/api\/v2\/tickets\/(\d+)\/comments\.json$/.exec(url.pathname);
    if (comments) {
      const page = this.commentsPage(Number(comments[1]), url.searchParams);
      return page ? send(200, page) : send(404, { error: 'RecordNotFound', description: 'Not found' });
    }
    send(404, { error: 'InvalidEndpoint', description: 'Not found' });
  }

  private exportPage(query: URLSearchParams): Record<string, unknown> {
    const size = Math.min(Number(query.get('per_page') ?? this.options.pageSize ?? 1000), 1000);
    const cursor = query.get('cursor');
    const after = cursor ? decodeCursor(cursor) : undefined;
    const startMs = Number(query.get('start_time') ?? 0) * 1000;
    const ordered = [...this.tickets.values()].sort((a, b) => Date.parse(a.updated_at) - Date.parse(b.updated_at) || a.id - b.id);
    const remaining = ordered.filter((t) => {
      const u = Date.parse(t.updated_at);
      return after ? u > after.updatedMs || (u === after.updatedMs && t.id > after.id) : u >= startMs;
    });
    const page = remaining.slice(0, size);
    const last = page[page.length - 1];
    const position = last ? encodeCursor(Date.parse(last.updated_at), last.id) : cursor ?? encodeCursor(startMs, 0);
    const users = new Set(page.map((t) => t.requester_id));
    const orgs = new Set(page.flatMap((t) => (t.organization_id ? [t.organization_id] : [])));
    return {
      tickets: page.map((t) => t.malformed ?? this.ticketJson(t)),
      users: [...users].map((id) => this.users.get(id)).filter(Boolean).map((u) => ({ ...u, url: `${this.url}/api/v2/users/${u!.id}.json` })),
      organizations: [...orgs].map((id) => this.organizations.get(id)).filter(Boolean),
      after_url: `${this.url}/api/v2/incremental/tickets/cursor.json?cursor=${position}`,
      after_cursor: position,
      before_url: null,
      before_cursor: null,
      end_of_stream: remaining.length <= size,
    };
  }

  private ticketJson(t: FakeTicket): Record<string, unknown> {
    const { malformed: _m, ...ticket } = t;
    return {
      ...ticket, url: `${this.url}/api/v2/tickets/${t.id}.json`, description: this.comments.get(t.id)?.[0]?.body ?? '', priority: null, type: 'question',
      via: { channel: 'email', source: { from: {}, to: {}, rel: null } }, submitter_id: t.requester_id, assignee_id: 1, group_id: null, custom_fields: [],
      generated_timestamp: Math.floor(Date.parse(t.updated_at) / 1000),
    };
  }

  private commentsPage(ticketId: number, query: URLSearchParams): Record<string, unknown> | undefined {
    const all = this.comments.get(ticketId);
    if (!all) return undefined;
    const size = Math.min(Number(query.get('page[size]') ?? 100), 100);
    const after = Number(query.get('page[after]') ? Buffer.from(query.get('page[after]')!, 'base64url').toString('utf8') : 0);
    const page = all.slice(after, after + size);
    const more = after + size < all.length;
    const authors = new Set(page.map((c) => c.author_id));
    const afterCursor = Buffer.from(String(after + page.length)).toString('base64url');
    return {
      comments: page.map((c) => ({ ...c, type: 'Comment', html_body: `<p>${c.body}</p>`, plain_body: c.body, audit_id: c.id + 100_000, via: { channel: 'web' } })),
      users: [...authors].map((id) => this.users.get(id)).filter(Boolean),
      meta: { has_more: more, after_cursor: more ? afterCursor : null, before_cursor: null },
      links: { prev: null, next: more ? `${this.url}/api/v2/tickets/${ticketId}/comments.json?page[after]=${afterCursor}&page[size]=${size}` : null },
    };
  }
}
