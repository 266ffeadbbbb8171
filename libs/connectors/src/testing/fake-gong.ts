import type http from 'node:http';
import { FakeVendorServer } from './fake-vendor-server';

/**
 * A Gong that a test starts on 127.0.0.1, following the documented v2 endpoints the connector reads (see
 * gong/shapes.ts for the sources): POST /v2/calls/extensive (`filter` with `fromDateTime` inclusive, `toDateTime`
 * exclusive, `workspaceId`, `callIds`; `contentSelector.exposedFields.parties` and `.media`; 100 calls a page, the
 * next page by `records.cursor` sent back as `cursor`), POST /v2/calls/transcript (`filter.callIds`, cursor pages),
 * GET /v2/calls (the same window as query parameters); Basic `accessKey:accessKeySecret` and Bearer auth (401 when
 * refused); 429 with `Retry-After` (seconds) when told to limit; and Gong's 404 "No calls found corresponding to the
 * provided filters" for an empty answer. Errors are Gong's `{ requestId, errors: [string] }`.
 */
export interface FakeParty {
  id: string;
  speakerId: string | null;
  name: string | null;
  emailAddress: string | null;
  affiliation: 'Internal' | 'External' | 'Unknown';
  userId?: string;
  title?: string;
}

export interface FakeMonologue { speakerId: string; topic: string | null; sentences: { start: number; end: number; text: string }[] }

export interface FakeCall {
  id: string;
  title: string;
  started: string;
  duration: number;
  workspaceId: string;
  parties: FakeParty[];
  /** Absent: Gong has no transcript for it (not transcribed yet, or nothing said). */
  transcript?: FakeMonologue[];
  /** Served as is instead of the call: a malformed object the connector must refuse alone. */
  malformed?: Record<string, unknown>;
}

export interface FakeGongOptions {
  accessKey?: string;
  accessKeySecret?: string;
  accessToken?: string;
  /** Calls per extensive page (Gong: 100). */
  pageSize?: number;
  /** Calls per transcript page. */
  transcriptPageSize?: number;
  /** Media URLs are served (when asked for) under this address; none when absent. */
  mediaBaseUrl?: string;
  /** The time Retry-After is measured in: the test's virtual time (`virtualNowMs`) by default, or the real clock for a service that really waits. */
  now?: () => number;
}

export interface FakeGongRequest { method: string; path: string; body: Record<string, any> | undefined; authorization: string | undefined; status: number }

const WORKSPACE = '5410000000000000001';
const encode = (value: string) => Buffer.from(value).toString('base64url');
const decode = (value: unknown) => (typeof value === 'string' ? Buffer.from(value, 'base64url').toString('utf8') : undefined);
const stamp = (ms: number) => new Date(ms).toISOString().replace(/\.\d{3}Z$/, 'Z');

export class FakeGong extends FakeVendorServer<FakeGongRequest> {
  readonly calls = new Map<string, FakeCall>();
  /** Called on each request before it is answered (a test aborts a sync mid-page from here by throwing). */
  onRequest: ((path: string, body: Record<string, any> | undefined) => void) | undefined;
  private revoked: { status: 401 | 403; body: Record<string, unknown> } | undefined;
  private nextId = 1;

  constructor(readonly options: FakeGongOptions = {}) {
    super();
  }

  /** A call id as Gong makes them: a numeric string (here 19 digits). */
  private newId(): string {
    return String(7_000_000_000_000_000_000n + BigInt(this.nextId++));
  }

  /** One call at `startedMs`: a rep of the team and a customer of `customer{n}.example`, two short monologues. */
  addCall(startedMs: number, n: number = this.nextId): FakeCall {
    const id = this.newId();
    const customer = (n % 10) + 1;
    const call: FakeCall = {
      id, title: `Call ${n} with Customer ${customer}`, started: stamp(startedMs), duration: 1800, workspaceId: WORKSPACE,
      parties: [
        { id: `${id}1`, speakerId: `${id}01`, name: 'Riley Rep', emailAddress: 'riley@acme-sales.example', affiliation: 'Internal', userId: '2340000000000000001', title: 'Account Executive' },
        { id: `${id}2`, speakerId: `${id}02`, name: `Customer Person ${n}`, emailAddress: `person${n}@customer${customer}.example`, affiliation: 'External' },
        { id: `${id}3`, speakerId: null, name: 'Dial-in user', emailAddress: null, affiliation: 'Unknown' },
      ],
      transcript: [
        { speakerId: `${id}01`, topic: 'Call Setup', sentences: [{ start: 1_000, end: 3_500, text: 'Thanks for joining.' }, { start: 3_600, end: 6_000, text: 'How is the export going?' }] },
        { speakerId: `${id}02`, topic: 'Pricing', sentences: [{ start: 6_500, end: 11_000, text: `Exporting report ${n} to CSV fails every time.` }] },
      ],
    };
    this.calls.set(id, call);
    return call;
  }

  /** `count` calls from 2026-01-01 on, one a minute. */
  seed(count: number): void {
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 1; i <= count; i++) this.addCall(base + i * 60_000, i);
  }

  /** The calls in start order, as Gong pages them. */
  ordered(): FakeCall[] {
    return [...this.calls.values()].sort((a, b) => Date.parse(a.started) - Date.parse(b.started) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  }

  /** Every request is refused from now on, as Gong refuses a revoked key or token, until `restore`. */
  revoke(status: 401 | 403 = 401): void {
    this.revoked = status === 401
      ? { status, body: { requestId: 'fake-revoked', errors: ['Invalid access key or secret'] } }
      : { status, body: { requestId: 'fake-forbidden', errors: ['Missing the required scope api:calls:read:extensive'] } };
  }

  restore(credentials: FakeGongOptions): void {
    this.revoked = undefined;
    Object.assign(this.options, credentials);
  }

  private authorized(header: string | undefined): boolean {
    if (!header) return false;
    const { accessKey, accessKeySecret, accessToken } = this.options;
    if (accessToken && header === `Bearer ${accessToken}`) return true;
    return Boolean(accessKey && accessKeySecret && header === `Basic ${Buffer.from(`${accessKey}:${accessKeySecret}`).toString('base64')}`);
  }

  protected answer(req: http.IncomingMessage, text: string, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    let body: Record<string, any> | undefined;
    let unreadable = false;
    if (text) {
      try {
        const parsed: unknown = JSON.parse(text);
        if (parsed && typeof parsed === 'object' && !Array.isArray(parsed)) body = parsed as Record<string, any>;
        else unreadable = true;
      } catch {
        unreadable = true;
      }
    }
    const log: FakeGongRequest = { method: req.method ?? 'GET', path: url.pathname, body, authorization: req.headers.authorization, status: 200 };
    this.requests.push(log);
    const requestId = `fake-${this.requests.length}`;
    const send = (status: number, answer: unknown, headers: Record<string, string> = {}) => this.sendJson(res, log, status, answer, headers);
    const fail = (status: number, ...errors: string[]) => send(status, { requestId, errors });
    if (this.cutBy(res, () => this.onRequest?.(url.pathname, body))) return;
    if (this.rateLimitedNow()) return send(429, { requestId, errors: ['Too many requests, please try again later'] }, { 'retry-after': String(this.retryAfterSeconds) });
    if (this.revoked) return send(this.revoked.status, this.revoked.body);
    if (!this.authorized(req.headers.authorization)) return fail(401, 'Authentication failed');
    const post = url.pathname === '/v2/calls/extensive' || url.pathname === '/v2/calls/transcript';
    if (post && req.method !== 'POST') return fail(405, `${req.method} is not allowed on ${url.pathname}`);
    if (post && (unreadable || !body)) return fail(400, 'Json parse error');
    if (url.pathname === '/v2/calls/extensive') {
      if (this.sendRaw(res, log, this.raw.shift())) return;
      const page = this.extensivePage(body!, requestId);
      return typeof page === 'string' ? fail(page === 'none' ? 404 : 400, page === 'none' ? 'No calls found corresponding to the provided filters' : page) : send(200, page);
    }
    if (url.pathname === '/v2/calls/transcript') {
      const page = this.transcriptPage(body!, requestId);
      return typeof page === 'string' ? fail(page === 'none' ? 404 : 400, page === 'none' ? 'No calls found corresponding to the provided filters' : page) : send(200, page);
    }
    if (url.pathname === '/v2/calls' && req.method === 'GET') {
      const filter = { fromDateTime: url.searchParams.get('fromDateTime'), toDateTime: url.searchParams.get('toDateTime'), workspaceId: url.searchParams.get('workspaceId') };
      const page = this.extensivePage({ filter, cursor: url.searchParams.get('cursor') ?? undefined }, requestId, true);
      return typeof page === 'string' ? fail(page === 'none' ? 404 : 400, page === 'none' ? 'No calls found corresponding to the provided filters' : page) : send(200, page);
    }
    fail(404, `No endpoint ${req.method} ${url.pathname}`);
  }

  /** The calls a filter selects, in start order; a string says why the filter is refused. */
  private select(filter: Record<string, any> | undefined): FakeCall[] | string {
    if (!filter || typeof filter !== 'object') return 'filter: is required';
    const from = filter.fromDateTime == null ? -Infinity : Date.parse(String(filter.fromDateTime));
    const to = filter.toDateTime == null ? Infinity : Date.parse(String(filter.toDateTime));
    if (Number.isNaN(from) || Number.isNaN(to)) return 'filter.fromDateTime / toDateTime: not ISO-8601 date and time';
    const ids = Array.isArray(filter.callIds) ? new Set(filter.callIds.map(String)) : undefined;
    return this.ordered().filter((c) => {
      const at = Date.parse(c.started);
      return at >= from && at < to && (!filter.workspaceId || c.workspaceId === String(filter.workspaceId)) && (!ids || ids.has(c.id));
    });
  }

  private extensivePage(body: Record<string, any>, requestId: string, basic = false): Record<string, unknown> | string {
    const selected = this.select(body.filter);
    if (typeof selected === 'string') return selected;
    if (!selected.length) return 'none';
    const size = this.options.pageSize ?? 100;
    const position = decode(body.cursor);
    const offset = position === undefined ? 0 : Number(position);
    if (!Number.isInteger(offset) || offset < 0 || offset > selected.length) return 'cursor: invalid';
    const page = selected.slice(offset, offset + size);
    const more = offset + size < selected.length;
    const exposed = body.contentSelector?.exposedFields ?? {};
    const records = { totalRecords: selected.length, currentPageSize: page.length, currentPageNumber: Math.floor(offset / size), ...(more ? { cursor: encode(String(offset + size)) } : {}) };
    if (basic) return { requestId, records, calls: page.map((c) => this.metaData(c)) };
    return {
      requestId, records,
      calls: page.map((c) => c.malformed ?? {
        metaData: this.metaData(c),
        ...(exposed.parties ? { parties: c.parties.map((p) => ({ ...p, methods: ['Attendee'], context: [] })) } : {}),
        ...(exposed.media && this.options.mediaBaseUrl ? { media: { audioUrl: `${this.options.mediaBaseUrl}/media/${c.id}/audio.mp3`, videoUrl: `${this.options.mediaBaseUrl}/media/${c.id}/video.mp4` } } : {}),
      }),
    };
  }

  private metaData(c: FakeCall): Record<string, unknown> {
    return {
      id: c.id, url: `https://app.gong.io/call?id=${c.id}`, title: c.title, scheduled: c.started, started: c.started, duration: c.duration,
      primaryUserId: '2340000000000000001', direction: 'Conference', system: 'Zoom', scope: 'External', media: 'Video', language: 'eng',
      workspaceId: c.workspaceId, sdrDisposition: null, clientUniqueId: null, customData: null, purpose: null, meetingUrl: 'https://zoom.us/j/1', isPrivate: false, calendarEventId: null,
    };
  }

  private transcriptPage(body: Record<string, any>, requestId: string): Record<string, unknown> | string {
    const selected = this.select(body.filter);
    if (typeof selected === 'string') return selected;
    const withTranscript = selected.filter((c) => c.transcript && !c.malformed);
    if (!withTranscript.length) return 'none';
    const size = this.options.transcriptPageSize ?? 50;
    const position = decode(body.cursor);
    const offset = position === undefined ? 0 : Number(position);
    if (!Number.isInteger(offset) || offset < 0 || offset > withTranscript.length) return 'cursor: invalid';
    const page = withTranscript.slice(offset, offset + size);
    const more = offset + size < withTranscript.length;
    return {
      requestId,
      records: { totalRecords: withTranscript.length, currentPageSize: page.length, currentPageNumber: Math.floor(offset / size), ...(more ? { cursor: encode(String(offset + size)) } : {}) },
      callTranscripts: page.map((c) => ({ callId: c.id, transcript: c.transcript })),
    };
  }
}
