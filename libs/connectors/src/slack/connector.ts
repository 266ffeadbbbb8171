import { slackCredentialsSchema, slackSettingsSchema, type IngestRecordInput, type PersonInput, type SlackCredentials, type SlackSettings } from '@loupe/records';
import { z } from 'zod';
import type { Connector, ReadContext, VendorPage } from '../connector';
import { parseAnswer } from '../parse';
import { VendorAuthError, VendorRequestError } from '../vendor-http';
import { clean, externalPerson, isBotMessage, messageRecord, threadRecord, type SlackContext } from './map';
import {
  authTestSchema, conversationsInfoSchema, envelopeSchema, messageSchema, messagesPageSchema, tsSchema, usersInfoSchema, userSchema,
  type SlackMessage, type SlackUser,
} from './shapes';

export { slackCredentialsSchema, slackSettingsSchema, type SlackCredentials, type SlackSettings };

const DEFAULT_BACKFILL_DAYS = 90;
const DEFAULT_PAGE_SIZE = 200;
const DEFAULT_REPLY_WINDOW_DAYS = 14;
/** Threads remembered per channel (their latest reply), newest first: what a new reply is noticed on. */
const MAX_TRACKED_THREADS = 5_000;

/**
 * Slack's `ok: false` codes that mean the token itself must change: the connection is failing until it does.
 * Slack answers them with HTTP 200, so the connector, not vendorGet, tells them apart.
 */
const AUTH_ERRORS: Record<string, string> = {
  invalid_auth: 'the token is not valid',
  not_authed: 'no token was sent',
  token_revoked: 'the token was revoked',
  token_expired: 'the token expired',
  account_inactive: 'the token\'s user or app was deactivated',
  no_permission: 'the token may not read this',
  missing_scope: 'the token lacks a scope',
  not_allowed_token_type: 'this kind of token may not call this method',
  ekm_access_denied: 'the workspace\'s keys deny access',
};

/** `ok: false` codes of one channel: the other channels are read, and the sync ends naming this one. */
const CHANNEL_ERRORS: Record<string, string> = {
  not_in_channel: 'the app is not a member of the channel: invite it (/invite @your-app) or give a user token of a member',
  channel_not_found: 'no such channel, or the token cannot see it (a private channel needs the app invited and groups:history)',
  is_archived: 'the channel is archived',
};

/** Where each channel's reading stands, saved with every page. */
const channelStateSchema = z.strictObject({
  /** The newest message read to the end of a pass: the next pass reads what is newer (and the reply window). */
  since: tsSchema.optional(),
  /** Thread parent ts → the latest reply read: a thread whose `latest_reply` moves past it is read again. */
  threads: z.record(tsSchema, tsSchema).default({}),
  /** A pass under way: from which ts, the newest ts it has seen, and Slack's cursor to its next page. */
  pass: z.strictObject({ from: tsSchema, top: tsSchema.optional(), cursor: z.string().min(1).max(2048).optional() }).optional(),
});
const cursorSchema = z.strictObject({ channels: z.record(z.string(), channelStateSchema) });
type ChannelState = z.infer<typeof channelStateSchema>;
type Cursor = z.infer<typeof cursorSchema>;

/** Slack timestamps compared exactly ("1712345678.000123"; as numbers they lose their last digits). */
function tsValue(ts: string): bigint {
  const [s, micro = ''] = ts.split('.');
  return BigInt(s!) * 1_000_000n + BigInt(micro.padEnd(6, '0').slice(0, 6));
}
const cmpTs = (a: string, b: string) => (tsValue(a) < tsValue(b) ? -1 : tsValue(a) > tsValue(b) ? 1 : 0);
const maxTs = (a: string | undefined, b: string) => (a === undefined || cmpTs(b, a) > 0 ? b : a);
const tsOfSeconds = (seconds: bigint) => `${seconds}.000000`;
const secondsOf = (ts: string) => tsValue(ts) / 1_000_000n;

/** Messages people post: a plain message, a bot's, a file shared with words, a /me. Joins, topics, pins and the like are left out. */
const KEPT_SUBTYPES = new Set(['bot_message', 'file_share', 'me_message', 'thread_broadcast']);
const kept = (m: SlackMessage) => !m.subtype || KEPT_SUBTYPES.has(m.subtype);

function parseEach(items: unknown[], what: string, refused: VendorPage['refused']): SlackMessage[] {
  const out: SlackMessage[] = [];
  items.forEach((item, i) => {
    const parsed = messageSchema.safeParse(item);
    if (parsed.success) out.push(parsed.data);
    else {
      const ts = item && typeof item === 'object' && 'ts' in item ? String((item as { ts: unknown }).ts) : `#${i}`;
      const issue = parsed.error.issues[0]!;
      refused.push({ object: clean(`message ${ts.slice(0, 40)} ${what}`).slice(0, 120), reason: clean(`${issue.path.join('.') || 'message'}: ${issue.message}`).slice(0, 300) });
    }
  });
  return out;
}

class ChannelError extends Error {}

/** One Web API call: GET /api/<method>?…; `ok: false` becomes the error it means. */
async function call(ctx: ReadContext<SlackSettings>, method: string, params: Record<string, string | undefined>): Promise<unknown> {
  const url = new URL(`/api/${method}`, ctx.baseUrl);
  for (const [k, v] of Object.entries(params)) if (v !== undefined) url.searchParams.set(k, v);
  const body = await ctx.get(url.toString());
  const envelope = parseAnswer(envelopeSchema, body, `${method}: the answer is not one Slack documents`);
  if (envelope.ok) return body;
  const said = envelope.error ?? 'unknown_error';
  const code = clean(said).slice(0, 100);
  const scopes = code === 'missing_scope' && (envelope.needed || envelope.provided)
    ? clean(` (needed: ${(envelope.needed ?? '?').slice(0, 200)}; provided: ${(envelope.provided ?? '?').slice(0, 300)})`) : '';
  if (Object.hasOwn(AUTH_ERRORS, said)) throw new VendorAuthError(200, `${code}: ${AUTH_ERRORS[code]}${scopes}`);
  if (Object.hasOwn(CHANNEL_ERRORS, said)) throw new ChannelError(`${params.channel ?? ''}: ${code}: ${CHANNEL_ERRORS[code]}`);
  throw new VendorRequestError(`${method}: Slack answered ${code}`);
}

function nextCursor(page: z.infer<typeof messagesPageSchema>, method: string, used: string | undefined): string | undefined {
  const next = page.response_metadata?.next_cursor || undefined;
  if (page.has_more && !next) throw new VendorRequestError(`${method}: has_more without a response_metadata.next_cursor`);
  if (next && next === used) throw new VendorRequestError(`${method}: the same next_cursor again (the page would repeat for ever)`);
  if (next && next.length > 2048) throw new VendorRequestError(`${method}: a next_cursor over 2048 characters`);
  if (next && !/^[\x21-\x7e]+$/.test(next)) throw new VendorRequestError(`${method}: a next_cursor that is not printable ASCII`);
  return next;
}

/** The whole thread: the parent and every reply, page after page by Slack's cursor. */
async function repliesOf(ctx: ReadContext<SlackSettings>, channel: string, parentTs: string, refused: VendorPage['refused']): Promise<SlackMessage[]> {
  const messages: SlackMessage[] = [];
  let cursor: string | undefined;
  for (;;) {
    let body: unknown;
    try {
      body = await call(ctx, 'conversations.replies', { channel, ts: parentTs, limit: '200', cursor });
    } catch (error) {
      // The parent was deleted since the history listed it: the thread is what was read of it (or the parent alone).
      if (error instanceof VendorRequestError && error.message.endsWith('Slack answered thread_not_found')) return messages;
      throw error;
    }
    const page = parseAnswer(messagesPageSchema, body, 'conversations.replies: the answer is not one Slack documents');
    messages.push(...parseEach(page.messages, `in thread ${parentTs} of ${channel}`, refused).filter(kept));
    cursor = nextCursor(page, 'conversations.replies', cursor);
    if (!cursor) return messages;
  }
}

/** users.info of each user not seen yet in this read; a user Slack no longer knows stays unknown. */
async function loadUsers(ctx: ReadContext<SlackSettings>, ids: Iterable<string>, users: Map<string, SlackUser>, missing: Set<string>, refused: VendorPage['refused']): Promise<SlackUser[]> {
  const fresh: SlackUser[] = [];
  for (const id of ids) {
    if (users.has(id) || missing.has(id)) continue;
    let body: unknown;
    try {
      body = await call(ctx, 'users.info', { user: id });
    } catch (error) {
      if (error instanceof VendorRequestError && /user_not_found|user_not_visible/.test(error.message)) {
        missing.add(id);
        continue;
      }
      throw error;
    }
    const user = userSchema.safeParse(parseAnswer(usersInfoSchema, body, 'users.info: the answer is not one Slack documents').user);
    if (!user.success) {
      missing.add(id);
      refused.push({ object: clean(`user ${id}`).slice(0, 120), reason: clean(`${user.error.issues[0]!.path.join('.') || 'user'}: ${user.error.issues[0]!.message}`).slice(0, 300) });
      continue;
    }
    users.set(id, user.data);
    fresh.push(user.data);
  }
  return fresh;
}

function startTs(ctx: ReadContext<SlackSettings>): string {
  const start = ctx.settings.start_date ? Date.parse(`${ctx.settings.start_date}T00:00:00Z`) : ctx.createdAt.getTime() - DEFAULT_BACKFILL_DAYS * 86_400_000;
  return tsOfSeconds(BigInt(Math.floor(start / 1000)));
}

/** A new pass reads from the start (first time), else from the newest message read less the reply window. */
function newPass(ctx: ReadContext<SlackSettings>, state: ChannelState): NonNullable<ChannelState['pass']> {
  const start = startTs(ctx);
  if (!state.since) return { from: start };
  const windowSeconds = BigInt((ctx.settings.reply_window_days ?? DEFAULT_REPLY_WINDOW_DAYS) * 86_400);
  const from = tsOfSeconds(secondsOf(state.since) - windowSeconds);
  return { from: windowSeconds === 0n ? state.since : cmpTs(from, start) > 0 ? from : start };
}

/** Threads within the window of the newest message read, at most MAX_TRACKED_THREADS, newest kept. */
function pruneThreads(ctx: ReadContext<SlackSettings>, state: ChannelState): Record<string, string> {
  if (!state.since) return state.threads;
  const oldest = tsOfSeconds(secondsOf(state.since) - BigInt((ctx.settings.reply_window_days ?? DEFAULT_REPLY_WINDOW_DAYS) * 86_400));
  const kept = Object.entries(state.threads).filter(([ts]) => cmpTs(ts, oldest) >= 0).sort(([a], [b]) => cmpTs(b, a)).slice(0, MAX_TRACKED_THREADS);
  return Object.fromEntries(kept);
}

const clone = <T>(value: T): T => JSON.parse(JSON.stringify(value)) as T;

interface ReadState {
  team: string;
  users: Map<string, SlackUser>;
  missingUsers: Set<string>;
}

/**
 * One page of a channel's history: new messages become records (a thread with its replies, a lone message on its
 * own), and within the reply window a thread whose `latest_reply` moved past what was read is read again.
 */
async function readHistoryPage(ctx: ReadContext<SlackSettings>, read: ReadState, channel: string, channelName: string | undefined, state: ChannelState): Promise<{ page: VendorPage; ended: boolean }> {
  const pass = state.pass!;
  const body = await call(ctx, 'conversations.history', {
    channel, oldest: pass.from, limit: String(ctx.settings.page_size ?? DEFAULT_PAGE_SIZE), cursor: pass.cursor,
  });
  const page = parseAnswer(messagesPageSchema, body, 'conversations.history: the answer is not one Slack documents');
  const refused: VendorPage['refused'] = [];
  const messages = parseEach(page.messages, `in ${channel}`, refused);
  const next = nextCursor(page, 'conversations.history', pass.cursor);
  const threads: { parent: SlackMessage; replies: SlackMessage[] }[] = [];
  const lone: SlackMessage[] = [];
  for (const m of messages) {
    pass.top = maxTs(pass.top, m.ts);
    // A reply also sent to the channel is read with its thread; joins, topics and the like are no evidence.
    if (!kept(m) || (m.thread_ts && m.thread_ts !== m.ts)) continue;
    const isNew = !state.since || cmpTs(m.ts, state.since) > 0;
    if ((m.reply_count ?? 0) > 0) {
      const known = state.threads[m.ts];
      if (!isNew && known && m.latest_reply && cmpTs(m.latest_reply, known) <= 0) continue;
      if (!isNew && known && !m.latest_reply) continue;
      const replies = await repliesOf(ctx, channel, m.ts, refused);
      const latest = replies.reduce((acc, r) => maxTs(acc, r.ts), m.latest_reply ?? m.ts);
      state.threads[m.ts] = latest;
      threads.push({ parent: m, replies });
    } else if (isNew) {
      lone.push(m);
    }
  }
  const userIds = new Set<string>();
  for (const m of [...lone, ...threads.flatMap((t) => [t.parent, ...t.replies])]) if (m.user && !m.bot_id) userIds.add(m.user);
  const fresh = await loadUsers(ctx, userIds, read.users, read.missingUsers, refused);
  const sctx: SlackContext = { team: read.team, channel, ...(channelName ? { channelName } : {}), users: read.users };
  const includeBots = ctx.settings.include_bots ?? false;
  const records: IngestRecordInput[] = [];
  for (const m of lone) if (includeBots || !isBotMessage(m, read.users)) records.push(messageRecord(sctx, ctx.routing, m));
  for (const t of threads) {
    const all = [t.parent, ...t.replies];
    if (includeBots || all.some((m) => !isBotMessage(m, read.users))) records.push(threadRecord(sctx, ctx.routing, t.parent, t.replies));
  }
  const people = fresh.map((u) => externalPerson(sctx, u)).filter((p): p is PersonInput => p !== undefined);
  if (next) pass.cursor = next;
  else {
    // The pass is over: what it read is the new starting point, and the reply window follows it.
    if (pass.top) state.since = maxTs(state.since, pass.top);
    delete state.pass;
    state.threads = pruneThreads(ctx, state);
  }
  return { page: { records, companies: [], people, refused, cursor: null, done: false }, ended: !next };
}

/** The record batches of the engine hold one `_type` each: a page with messages and threads is stored as two. */
function splitByType(page: VendorPage, before: Cursor, after: Cursor): VendorPage[] {
  const messages = page.records.filter((r) => r._type === 'message');
  const conversations = page.records.filter((r) => r._type !== 'message');
  if (!messages.length || !conversations.length) return [{ ...page, cursor: after }];
  // The first half keeps the cursor it started from: a sync stopped between the two reads the page again.
  return [
    { ...page, records: messages, cursor: before, done: false },
    { ...page, records: conversations, companies: [], people: [], refused: [], cursor: after },
  ];
}

export const slackConnector: Connector<SlackCredentials, SlackSettings> = {
  kind: 'slack',
  credentialsSchema: slackCredentialsSchema,
  settingsSchema: slackSettingsSchema,
  defaultBaseUrl: 'https://slack.com',
  authHeaders(credentials) {
    return { authorization: `Bearer ${credentials.token}` };
  },
  async *read(ctx, stored) {
    // auth.test first: a revoked token fails before anything else, and names our workspace (internal vs external).
    const auth = parseAnswer(authTestSchema, await call(ctx, 'auth.test', {}), 'auth.test: the answer is not one Slack documents');
    const resumed = cursorSchema.safeParse(stored);
    const cursor: Cursor = { channels: {} };
    for (const id of ctx.settings.channel_ids) cursor.channels[id] = resumed.success ? resumed.data.channels[id] ?? { threads: {} } : { threads: {} };
    const read: ReadState = { team: auth.team_id, users: new Map(), missingUsers: new Set() };
    const failures: string[] = [];
    const channels = [...new Set(ctx.settings.channel_ids)];
    for (const [i, channel] of channels.entries()) {
      const last = i === channels.length - 1;
      const state = cursor.channels[channel]!;
      try {
        const info = parseAnswer(conversationsInfoSchema, await call(ctx, 'conversations.info', { channel }), 'conversations.info: the answer is not one Slack documents');
        state.pass ??= newPass(ctx, state);
        for (;;) {
          const before = clone(cursor);
          const { page, ended } = await readHistoryPage(ctx, read, channel, info.channel.name ?? undefined, state);
          const pages = splitByType(page, before, clone(cursor));
          pages[pages.length - 1]!.done = ended && last;
          yield* pages;
          if (ended) break;
        }
      } catch (error) {
        if (!(error instanceof ChannelError)) throw error;
        failures.push(error.message);
        if (last) yield { records: [], companies: [], people: [], refused: [], cursor: clone(cursor), done: true };
      }
    }
    if (failures.length) throw new VendorRequestError(`channel ${failures.join('; channel ')}`.slice(0, 1000));
  },
};
