import { emailSchema, LIMITS, participantSchema, type AttachmentInput, type IngestRecordInput, type Participant, type PersonInput } from '@loupe/records';
import type { Routing } from '../connector';
import type { SlackFile, SlackMessage, SlackUser } from './shapes';

/** Our workspace's team id names every id: two Slack workspaces of one Loupe workspace never share a record or a person. */
export const messageVendorId = (team: string, channel: string, ts: string) => `${team}/${channel}/${ts}`;
export const threadId = (team: string, channel: string, threadTs: string) => `slack:${team}/${channel}/${threadTs}`;
export const userExternalId = (team: string, userId: string) => `slack:${team}:user:${userId}`;
const botParticipantId = (team: string, botId: string) => `slack:${team}:bot:${botId}`;

// What PostgreSQL cannot store: NUL, and halves of surrogate pairs. A vendor's string holding one is cleaned
// (NUL dropped, a lone half replaced) instead of costing its record or the page.
const UNSTORABLE = /\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g;
export const clean = (s: string) => s.replace(UNSTORABLE, (c) => (c === '\u0000' ? '' : '\ufffd'));

/** Every string of a mapped object, cleaned. */
export function cleaned<T>(value: T): T {
  if (typeof value === 'string') return clean(value) as T;
  if (Array.isArray(value)) return value.map((v) => cleaned(v)) as T;
  if (value !== null && typeof value === 'object') return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, cleaned(v)])) as T;
  return value;
}

/** "1712345678.123456" → ISO 8601 (to the millisecond; the full ts stays in the vendor id). */
export const tsToIso = (ts: string) => new Date(Math.floor(Number(ts) * 1000)).toISOString();

/** What the mapping knows of the workspace it reads. */
export interface SlackContext {
  /** Our workspace (auth.test's team_id): its members are `internal`, everyone else `external`. */
  team: string;
  channel: string;
  channelName?: string;
  users: ReadonlyMap<string, SlackUser>;
}

/** The email the record schema takes, or none: an address it would refuse must not cost the whole message. */
function recordEmail(value: string | null | undefined): string | undefined {
  const email = value?.trim().toLowerCase();
  // It is also the participant's id (at most 256 characters): a longer address is left out rather than the record.
  return email && email.length <= 256 && participantSchema.shape.email.safeParse(email).success ? email : undefined;
}

/** A message posted by a bot or an app (`bot_id`, `subtype: bot_message`, or a user Slack marks `is_bot`). */
export function isBotMessage(message: SlackMessage, users: ReadonlyMap<string, SlackUser>): boolean {
  if (message.bot_id || message.subtype === 'bot_message') return true;
  const user = message.user ? users.get(message.user) : undefined;
  return Boolean(user?.is_bot || user?.id === 'USLACKBOT');
}

/**
 * Someone from outside our workspace: a user of another team (Slack Connect: their `team_id`, or the message's
 * `user_team`, differs from ours), someone Slack calls a stranger, or a guest (`is_restricted`,
 * `is_ultra_restricted`: the people a team invites into a channel to talk to them, customers most often).
 */
export function isExternalUser(ctx: Pick<SlackContext, 'team'>, user: SlackUser | undefined, message?: SlackMessage): boolean {
  const team = message?.user_team ?? user?.team_id;
  if (team && team !== ctx.team) return true;
  return Boolean(user?.is_stranger || user?.is_restricted || user?.is_ultra_restricted);
}

function displayName(user: SlackUser | undefined): string | undefined {
  const name = user?.profile?.real_name || user?.real_name || user?.profile?.display_name || user?.name;
  return name ? name.slice(0, 256) : undefined;
}

function participantOf(ctx: SlackContext, message: SlackMessage): Participant | undefined {
  if (isBotMessage(message, ctx.users)) {
    const user = message.user ? ctx.users.get(message.user) : undefined;
    const botId = message.bot_id ?? message.bot_profile?.id ?? message.user;
    if (!botId) return undefined;
    const name = message.bot_profile?.name || message.username || displayName(user);
    // The record schema's roles are internal, external and unknown: a bot is neither side, its type says what it is.
    return { id: botParticipantId(ctx.team, botId).slice(0, 256), role: 'unknown', ...(name ? { name: name.slice(0, 256) } : {}), type: 'bot' };
  }
  if (!message.user) return undefined;
  const user = ctx.users.get(message.user);
  const email = recordEmail(user?.profile?.email);
  const external = isExternalUser(ctx, user, message);
  const known = user !== undefined || Boolean(message.user_team);
  const name = displayName(user);
  return {
    id: email ?? userExternalId(ctx.team, message.user).slice(0, 256),
    role: external ? 'external' : known ? 'internal' : 'unknown',
    ...(name ? { name } : {}),
    ...(email ? { email } : {}),
    type: external ? 'contact' : known ? 'workspace_member' : 'unknown',
  };
}

function participantsOf(ctx: SlackContext, messages: SlackMessage[]): Participant[] {
  const seen = new Map<string, Participant>();
  for (const m of messages) {
    const p = participantOf(ctx, m);
    if (p && !seen.has(p.id)) seen.set(p.id, p);
  }
  return [...seen.values()].slice(0, LIMITS.participantsPerRecord);
}

/**
 * Slack's markup as plain words: `<@U123>` → @Their Name, `<#C123|general>` → #general, `<https://x|label>` →
 * label (https://x), `<!here>` → @here; `&lt;`, `&gt;` and `&amp;` as the characters they stand for.
 */
export function plainText(text: string, users: ReadonlyMap<string, SlackUser>): string {
  return text
    .replace(/<@([A-Z0-9]+)(?:\|([^>]*))?>/g, (_, id: string, label?: string) => `@${label || displayName(users.get(id)) || id}`)
    .replace(/<#([A-Z0-9]+)(?:\|([^>]*))?>/g, (_, id: string, label?: string) => `#${label || id}`)
    .replace(/<!(here|channel|everyone)(?:\|[^>]*)?>/g, '@$1')
    .replace(/<!subteam\^[A-Z0-9]+(?:\|([^>]*))?>/g, (_, label?: string) => label || '@group')
    .replace(/<((?:https?|mailto):[^|>]+)\|([^>]+)>/g, (_, url: string, label: string) => (label === url ? url : `${label} (${url})`))
    .replace(/<((?:https?|mailto):[^>]+)>/g, '$1')
    .replace(/&lt;/g, '<').replace(/&gt;/g, '>').replace(/&amp;/g, '&');
}

function attachmentType(mime: string | null | undefined): AttachmentInput['type'] {
  const top = mime?.split('/')[0];
  if (top === 'image' || top === 'audio' || top === 'video' || top === 'text') return top;
  return mime ? 'file' : 'unknown';
}

/**
 * Files as metadata: name, type and size, no `vendor_url`. Slack serves `url_private` only to a request that
 * carries the token, and the worker's downloader sends no credentials (nor should a token leave the connector),
 * so the files are listed on the record (status NOT_DOWNLOADED) and their permalink kept in `data.files`.
 */
function attachmentsOf(messages: SlackMessage[]): AttachmentInput[] {
  const out: AttachmentInput[] = [];
  for (const f of messages.flatMap((m) => m.files ?? [])) {
    if (out.length >= LIMITS.attachmentsPerRecord) break;
    const name = f.name || f.title;
    out.push({
      type: attachmentType(f.mimetype),
      ...(name ? { filename: name.slice(0, 512) } : {}),
      ...(f.mimetype ? { mime_type: f.mimetype.slice(0, 256) } : {}),
      ...(typeof f.size === 'number' && f.size >= 0 ? { size: f.size } : {}),
    });
  }
  return out;
}

function filesOf(files: SlackFile[] | null | undefined) {
  return (files ?? []).map((f) => ({ id: f.id, name: f.name ?? f.title ?? null, mime_type: f.mimetype ?? null, size: f.size ?? null, permalink: f.permalink ?? null }));
}

function authorOf(ctx: SlackContext, m: SlackMessage): { name?: string; email?: string } | string {
  if (isBotMessage(m, ctx.users)) return m.bot_profile?.name || m.username || 'Slack bot';
  const user = m.user ? ctx.users.get(m.user) : undefined;
  const name = displayName(user);
  const email = recordEmail(user?.profile?.email);
  return name || email ? { ...(name ? { name } : {}), ...(email ? { email } : {}) } : (m.user ?? 'Slack');
}

function common(ctx: SlackContext, routing: Routing, rootTs: string, eventTs: string, messages: SlackMessage[]) {
  const attachments = attachmentsOf(messages);
  return {
    _schema_version: '1.0.0' as const,
    _event_at: tsToIso(eventTs),
    _vendor_ids: { slack: messageVendorId(ctx.team, ctx.channel, rootTs) },
    _product_id: routing.productId,
    _project_ids: [routing.projectId],
    _nature: 'evidence' as const,
    _thread_id: threadId(ctx.team, ctx.channel, rootTs),
    _participants: participantsOf(ctx, messages),
    ...(attachments.length ? { _attachments: attachments } : {}),
  };
}

const channelLabel = (ctx: SlackContext) => (ctx.channelName ? `#${ctx.channelName.slice(0, 80)}` : ctx.channel);

/** A message without replies: one `message` record, its id and thread the channel and its ts. */
export function messageRecord(ctx: SlackContext, routing: Routing, message: SlackMessage): IngestRecordInput {
  const files = filesOf(message.files);
  return cleaned({
    _type: 'message',
    ...common(ctx, routing, message.ts, message.ts, [message]),
    data: {
      channel: `slack ${channelLabel(ctx)}`,
      author: authorOf(ctx, message),
      text: plainText(message.text ?? '', ctx.users),
      at: tsToIso(message.ts),
      ...(isBotMessage(message, ctx.users) ? { bot: true } : {}),
      ...(message.edited?.ts ? { edited: true } : {}),
      ...(files.length ? { files } : {}),
    },
  });
}

/**
 * A thread (its parent and every reply) as one `conversation` record. Its `_event_at` is its latest message, so a
 * thread read again without a new reply is a duplicate, and one with a new reply is a new version of the
 * conversation in the same `_thread_id`.
 */
export function threadRecord(ctx: SlackContext, routing: Routing, parent: SlackMessage, replies: SlackMessage[]): IngestRecordInput {
  const all = [parent, ...replies.filter((r) => r.ts !== parent.ts)].sort((a, b) => Number(a.ts) - Number(b.ts) || a.ts.localeCompare(b.ts));
  const last = all[all.length - 1]!;
  const subject = plainText(parent.text ?? '', ctx.users).split(/\r?\n/).find((l) => l.trim())?.trim().slice(0, 200);
  return cleaned({
    _type: 'conversation',
    ...common(ctx, routing, parent.ts, last.ts, all),
    data: {
      subject: subject || `Slack thread in ${channelLabel(ctx)}`,
      channel: `slack ${channelLabel(ctx)}`,
      created_at: tsToIso(parent.ts),
      messages: all.map((m) => {
        const files = filesOf(m.files);
        return {
          author: authorOf(ctx, m),
          body: plainText(m.text ?? '', ctx.users),
          at: tsToIso(m.ts),
          ...(isBotMessage(m, ctx.users) ? { bot: true } : {}),
          ...(m.edited?.ts ? { edited: true } : {}),
          ...(files.length ? { files } : {}),
        };
      }),
    },
  });
}

/**
 * Someone from outside the workspace (Slack Connect, a stranger, a guest) as a person: a customer. Members of the
 * workspace are the team, not people of the directory, and bots are nobody.
 */
export function externalPerson(ctx: Pick<SlackContext, 'team'>, user: SlackUser): PersonInput | undefined {
  if (user.is_bot || user.deleted || !isExternalUser(ctx, user)) return undefined;
  const email = emailSchema.safeParse(user.profile?.email ?? '');
  return cleaned({
    external_id: userExternalId(ctx.team, user.id),
    email: email.success ? email.data : null,
    name: displayName(user) ?? null,
    company_external_id: null,
    attributes: { slack_id: user.id, ...(user.team_id ? { slack_team_id: user.team_id } : {}) },
  });
}
