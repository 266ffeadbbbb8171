import type http from 'node:http';
import { FakeVendorServer, type FakeRawAnswer } from './fake-vendor-server';

/**
 * A Slack Web API that a test starts on 127.0.0.1, following the documented methods the connector calls:
 * `auth.test`, `conversations.info`, `conversations.history` (newest first; `oldest`, `latest`, `inclusive`,
 * `limit`, `cursor`; `has_more` and `response_metadata.next_cursor`), `conversations.replies` (the parent, then
 * its replies oldest first, paged the same way) and `users.info`. Bearer tokens; every refusal is HTTP 200 with
 * `{ ok: false, error }` as Slack answers (`not_authed`, `invalid_auth`, `token_revoked`, `not_in_channel`,
 * `channel_not_found`, `thread_not_found`, `user_not_found`), and a rate limit is HTTP 429 with `Retry-After`
 * (seconds) and `{ ok: false, error: "ratelimited" }`.
 */
export interface FakeSlackFile { id: string; name: string; mimetype: string; size: number }

export interface FakeSlackMessage {
  ts: string;
  user?: string;
  text: string;
  subtype?: string;
  bot_id?: string;
  bot_name?: string;
  /** The poster's workspace (differs from ours in a Slack Connect channel). */
  user_team?: string;
  files?: FakeSlackFile[];
  edited?: boolean;
  /** Served as is instead of the message: a malformed object the connector must refuse alone. */
  malformed?: Record<string, unknown>;
}

export interface FakeSlackUser {
  id: string;
  team_id: string;
  name: string;
  real_name: string;
  email?: string;
  is_bot?: boolean;
  is_restricted?: boolean;
  is_ultra_restricted?: boolean;
  is_stranger?: boolean;
}

export interface FakeSlackChannel {
  id: string;
  name: string;
  /** The app is not a member: history and replies answer `not_in_channel`. */
  notMember?: boolean;
  /** Parents and lone messages, oldest first. */
  messages: FakeSlackMessage[];
  /** Parent ts → its replies, oldest first. */
  replies: Map<string, FakeSlackMessage[]>;
}

export interface FakeSlackOptions {
  token?: string;
  team?: string;
  /** The time Retry-After is measured in: the test's virtual time (`virtualNowMs`) by default, or the real clock for a service that really waits. */
  now?: () => number;
}

export interface FakeSlackRequest { method: string; query: URLSearchParams; authorization: string | undefined; status: number; error?: string }

export const FAKE_SLACK_TEAM = 'T0LOUPE01';
export const FAKE_SLACK_CUSTOMER_TEAM = 'T0CUSTOM9';

const tsOf = (ms: number, seq: number) => `${Math.floor(ms / 1000)}.${String((ms % 1000) * 1000 + (seq % 1000)).padStart(6, '0')}`;
const tsValue = (ts: string) => {
  const [s, micro = ''] = ts.split('.');
  return BigInt(s!) * 1_000_000n + BigInt(micro.padEnd(6, '0').slice(0, 6));
};
const encode = (value: unknown) => Buffer.from(JSON.stringify(value)).toString('base64url');
function decode<T>(cursor: string): T | undefined {
  try {
    return JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8')) as T;
  } catch {
    return undefined;
  }
}

export class FakeSlack extends FakeVendorServer<FakeSlackRequest> {
  readonly channels = new Map<string, FakeSlackChannel>();
  readonly users = new Map<string, FakeSlackUser>();
  /** Called on each request before it is answered (a test aborts a sync mid-page from here). */
  onRequest: ((method: string, query: URLSearchParams) => void) | undefined;
  private revoked: string | undefined;
  private rawTo = new Map<string, FakeRawAnswer[]>();
  private seq = 0;

  constructor(readonly options: FakeSlackOptions = {}) {
    super();
  }

  get team(): string {
    return this.options.team ?? FAKE_SLACK_TEAM;
  }

  /**
   * `count` top-level messages from 2026-01-01 on, one a minute, spread over `channels` channels (C0FAKE001…);
   * every `threadEvery`-th is a thread with `repliesEach` replies alternating between a customer from another
   * workspace (Slack Connect) and a member. Ten members (U0MEMBER0…, emails at acme.example) and ten customers
   * (U0CUSTOM0…, team T0CUSTOM9, emails at customer<n>.example).
   */
  seed(count: number, options: { channels?: number; threadEvery?: number; repliesEach?: number } = {}): void {
    const channelCount = options.channels ?? 1;
    const threadEvery = options.threadEvery ?? 10;
    const repliesEach = options.repliesEach ?? 2;
    for (let u = 0; u < 10; u++) {
      this.users.set(`U0MEMBER${u}`, { id: `U0MEMBER${u}`, team_id: this.team, name: `member${u}`, real_name: `Member ${u}`, email: `member${u}@acme.example` });
      this.users.set(`U0CUSTOM${u}`, {
        id: `U0CUSTOM${u}`, team_id: FAKE_SLACK_CUSTOMER_TEAM, name: `customer${u}`, real_name: `Customer ${u}`, email: `person${u}@customer${u}.example`, is_stranger: true,
      });
    }
    this.users.set('U0BOTUSER', { id: 'U0BOTUSER', team_id: this.team, name: 'deploybot', real_name: 'Deploy Bot', is_bot: true });
    for (let c = 1; c <= channelCount; c++) {
      const id = `C0FAKE${String(c).padStart(3, '0')}`;
      if (!this.channels.has(id)) this.channels.set(id, { id, name: `customer-feedback-${c}`, messages: [], replies: new Map() });
    }
    const ids = [...this.channels.keys()].slice(0, channelCount);
    const base = Date.parse('2026-01-01T00:00:00Z');
    for (let i = 1; i <= count; i++) {
      const channel = this.channels.get(ids[(i - 1) % ids.length]!)!;
      const at = base + i * 60_000;
      const customer = `U0CUSTOM${i % 10}`;
      const parent: FakeSlackMessage = { ts: tsOf(at, this.seq++), user: customer, user_team: FAKE_SLACK_CUSTOMER_TEAM, text: `Message ${i}: exporting report ${i} to CSV fails` };
      channel.messages.push(parent);
      if (threadEvery > 0 && i % threadEvery === 0) {
        const replies: FakeSlackMessage[] = [];
        for (let r = 1; r <= repliesEach; r++) {
          const member = r % 2 === 1;
          replies.push({
            ts: tsOf(at + r * 1000, this.seq++), user: member ? `U0MEMBER${i % 10}` : customer, ...(member ? {} : { user_team: FAKE_SLACK_CUSTOMER_TEAM }),
            text: member ? `Reply ${r} to ${i}: looking into it <@${customer}>` : `Reply ${r} to ${i}: still failing`,
          });
        }
        channel.replies.set(parent.ts, replies);
      }
    }
  }

  /** A new top-level message in a channel, at `atMs`. */
  addMessage(channelId: string, message: Omit<FakeSlackMessage, 'ts'>, atMs: number): FakeSlackMessage {
    const channel = this.channels.get(channelId)!;
    const m = { ...message, ts: tsOf(atMs, this.seq++) };
    channel.messages.push(m);
    channel.messages.sort((a, b) => (tsValue(a.ts) < tsValue(b.ts) ? -1 : 1));
    return m;
  }

  /** A new reply in a thread (or the first, making a lone message a thread): its parent's `latest_reply` moves. */
  addReply(channelId: string, parentTs: string, message: Omit<FakeSlackMessage, 'ts'>, atMs: number): FakeSlackMessage {
    const channel = this.channels.get(channelId)!;
    const list = channel.replies.get(parentTs) ?? [];
    const m = { ...message, ts: tsOf(atMs, this.seq++) };
    list.push(m);
    channel.replies.set(parentTs, list);
    return m;
  }

  /** The next calls of `method` (auth.test, users.info, conversations.replies…) are answered with these bodies as they are, one each; `serveRaw`: conversations.history's. */
  serveRawTo(method: string, ...answers: FakeRawAnswer[]): void {
    this.rawTo.set(method, [...(this.rawTo.get(method) ?? []), ...answers]);
  }

  /** Forgets the raw answers no request asked for. */
  drainRaw(): void {
    this.raw.length = 0;
    this.rawTo.clear();
  }

  /** Every call is refused from now on with this `error` (HTTP 200, `ok: false`), as Slack refuses a revoked token, until `restore`. */
  revoke(error: 'token_revoked' | 'invalid_auth' | 'account_inactive' = 'token_revoked'): void {
    this.revoked = error;
  }

  restore(options: FakeSlackOptions): void {
    this.revoked = undefined;
    Object.assign(this.options, options);
  }

  protected answer(req: http.IncomingMessage, _text: string, res: http.ServerResponse): void {
    const url = new URL(req.url ?? '/', this.url);
    const method = url.pathname.replace(/^\/api\//, '');
    const log: FakeSlackRequest = { method, query: url.searchParams, authorization: req.headers.authorization, status: 200 };
    this.requests.push(log);
    const send = (status: number, body: Record<string, unknown>, headers: Record<string, string> = {}) => {
      if (body.ok === false) log.error = String(body.error);
      this.sendJson(res, log, status, body, headers);
    };
    const fail = (error: string, extra: Record<string, unknown> = {}) => send(200, { ok: false, error, ...extra });
    if (this.cutBy(res, () => this.onRequest?.(method, url.searchParams))) return;
    if (this.rateLimitedNow()) return send(429, { ok: false, error: 'ratelimited' }, { 'retry-after': String(this.retryAfterSeconds) });
    const auth = req.headers.authorization;
    if (!auth) return fail('not_authed');
    if (this.revoked) return fail(this.revoked);
    if (auth !== `Bearer ${this.options.token}`) return fail('invalid_auth');
    const q = url.searchParams;
    if (this.sendRaw(res, log, this.rawTo.get(method)?.shift())) return;
    switch (method) {
      case 'auth.test':
        return send(200, { ok: true, url: 'https://acme.slack.com/', team: 'Acme', user: 'loupe', team_id: this.team, user_id: 'U0LOUPEAPP', bot_id: 'B0LOUPEAPP', is_enterprise_install: false });
      case 'users.info': {
        const user = this.users.get(q.get('user') ?? '');
        if (!user) return fail('user_not_found');
        const { email, ...rest } = user;
        return send(200, {
          ok: true,
          user: {
            ...rest, deleted: false, is_admin: false, is_owner: false, is_app_user: false, is_restricted: rest.is_restricted ?? false,
            is_ultra_restricted: rest.is_ultra_restricted ?? false, is_bot: rest.is_bot ?? false, tz: 'Europe/Paris', updated: 1767225600,
            profile: { real_name: user.real_name, display_name: user.name, ...(email ? { email } : {}), image_48: 'https://a.slack-edge.com/x.png', team: user.team_id },
          },
        });
      }
      case 'conversations.info': {
        const channel = this.channels.get(q.get('channel') ?? '');
        if (!channel) return fail('channel_not_found');
        return send(200, { ok: true, channel: { id: channel.id, name: channel.name, is_channel: true, is_private: false, is_archived: false, is_ext_shared: true, is_member: !channel.notMember, created: 1767225600 } });
      }
      case 'conversations.history': {
        if (this.sendRaw(res, log, this.raw.shift())) return;
        const channel = this.channels.get(q.get('channel') ?? '');
        if (!channel) return fail('channel_not_found');
        if (channel.notMember) return fail('not_in_channel');
        return send(200, this.historyPage(channel, q));
      }
      case 'conversations.replies': {
        const channel = this.channels.get(q.get('channel') ?? '');
        if (!channel) return fail('channel_not_found');
        if (channel.notMember) return fail('not_in_channel');
        const page = this.repliesPage(channel, q);
        return page ? send(200, page) : fail('thread_not_found');
      }
      default:
        return fail('unknown_method');
    }
  }

  private messageJson(channel: FakeSlackChannel, m: FakeSlackMessage): Record<string, unknown> {
    if (m.malformed) return m.malformed;
    const replies = channel.replies.get(m.ts);
    const bot = m.bot_id ? { bot_id: m.bot_id, bot_profile: { id: m.bot_id, name: m.bot_name ?? 'bot', app_id: 'A0BOT', team_id: this.team, deleted: false } } : {};
    return {
      type: 'message', ts: m.ts, text: m.text, ...(m.user ? { user: m.user } : {}), ...(m.subtype ? { subtype: m.subtype } : {}), ...bot,
      team: m.user_team ?? this.team, ...(m.user_team ? { user_team: m.user_team, source_team: m.user_team } : {}),
      blocks: [{ type: 'rich_text', block_id: 'b1', elements: [{ type: 'rich_text_section', elements: [{ type: 'text', text: m.text }] }] }],
      ...(m.files ? { files: m.files.map((f) => ({ ...f, title: f.name, filetype: f.name.split('.').pop(), url_private: `https://files.slack.com/files-pri/${this.team}-${f.id}/${f.name}`, permalink: `https://acme.slack.com/files/U0/${f.id}/${f.name}` })) } : {}),
      ...(m.edited ? { edited: { user: m.user, ts: m.ts } } : {}),
      ...(replies?.length ? {
        thread_ts: m.ts, reply_count: replies.length, reply_users_count: new Set(replies.map((r) => r.user)).size,
        reply_users: [...new Set(replies.map((r) => r.user))], latest_reply: replies[replies.length - 1]!.ts, is_locked: false, subscribed: false,
      } : {}),
    };
  }

  private historyPage(channel: FakeSlackChannel, q: URLSearchParams): Record<string, unknown> {
    const limit = Math.min(Math.max(Number(q.get('limit') ?? 100) || 100, 1), 999);
    const cursor = q.get('cursor') ? decode<{ before: string }>(q.get('cursor')!) : undefined;
    const inclusive = q.get('inclusive') === 'true' || q.get('inclusive') === '1';
    const oldest = q.get('oldest') ? tsValue(q.get('oldest')!) : undefined;
    const latest = q.get('latest') ? tsValue(q.get('latest')!) : undefined;
    const before = cursor ? tsValue(cursor.before) : undefined;
    const matching = channel.messages.filter((m) => {
      const v = tsValue(m.ts);
      if (oldest !== undefined && (inclusive ? v < oldest : v <= oldest)) return false;
      if (latest !== undefined && (inclusive ? v > latest : v >= latest)) return false;
      return before === undefined || v < before;
    }).reverse();
    const page = matching.slice(0, limit);
    const more = matching.length > limit;
    return {
      ok: true, messages: page.map((m) => this.messageJson(channel, m)), has_more: more, pin_count: 0, channel_actions_ts: null, channel_actions_count: 0,
      response_metadata: { next_cursor: more ? encode({ before: page[page.length - 1]!.ts }) : '' },
    };
  }

  private repliesPage(channel: FakeSlackChannel, q: URLSearchParams): Record<string, unknown> | undefined {
    const parent = channel.messages.find((m) => m.ts === q.get('ts'));
    if (!parent) return undefined;
    const all = [parent, ...(channel.replies.get(parent.ts) ?? [])];
    const limit = Math.min(Math.max(Number(q.get('limit') ?? 1000) || 1000, 1), 1000);
    const offset = q.get('cursor') ? decode<{ offset: number }>(q.get('cursor')!)?.offset ?? 0 : 0;
    const page = all.slice(offset, offset + limit);
    const more = offset + limit < all.length;
    return {
      ok: true,
      messages: page.map((m) => (m === parent ? this.messageJson(channel, m) : { ...this.messageJson(channel, m), thread_ts: parent.ts, parent_user_id: parent.user })),
      has_more: more,
      response_metadata: { next_cursor: more ? encode({ offset: offset + limit }) : '' },
    };
  }
}
