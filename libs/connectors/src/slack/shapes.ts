import { z } from 'zod';

// Slack's Web API objects, reduced to the fields the connector reads. Taken from Slack's method reference
// (docs.slack.dev/reference/methods/auth.test, conversations.history, conversations.replies, users.info,
// conversations.info) and from the official `@slack/web-api` package's response types
// (packages/web-api/src/types/response/{AuthTestResponse,ConversationsHistoryResponse,
// ConversationsRepliesResponse,UsersInfoResponse,ConversationsInfoResponse}.ts: `MessageElement`, `User`,
// `Profile`, `Channel`, `File`, `ResponseMetadata`). What the connector relies on:
//
// - Every method answers HTTP 200 with `{ ok: true, … }` or `{ ok: false, error: "<code>" }` (e.g. `invalid_auth`,
//   `token_revoked`, `account_inactive`, `not_in_channel`, `channel_not_found`, `missing_scope` with `needed`
//   and `provided`); a rate-limited call is HTTP 429 with `Retry-After` in seconds (per method, per workspace,
//   per app: conversations.history and .replies are Tier 3, 50+ a minute, for internal and Marketplace apps;
//   1 a minute and at most 15 objects for commercially distributed non-Marketplace apps since 2025-05-29).
// - conversations.history (`channel`, `oldest`, `latest`, `limit` up to 999, `cursor`) answers newest first with
//   `messages`, `has_more` and `response_metadata.next_cursor` (empty when there is no next page); a thread's
//   parent carries `thread_ts` (= its `ts`), `reply_count`, `reply_users`, `latest_reply`.
// - conversations.replies (`channel`, `ts` of the parent, `cursor`, `limit`) answers the parent first, then
//   its replies, oldest first, paged the same way.
// - A message: `ts` ("1712345678.123456", unique in its channel), `user`, `text`, `type: "message"`, `subtype`
//   (absent for a plain message; `bot_message`, `file_share`, `thread_broadcast`, `channel_join`, …),
//   `bot_id` and `bot_profile` for bots, `team` / `user_team` / `source_team` (the poster's workspace, which
//   differs from ours in a Slack Connect channel), `files` (`id`, `name`, `title`, `mimetype`, `size`,
//   `url_private`, `permalink`), `edited`.
// - A user (users.info): `id`, `team_id`, `name`, `real_name`, `deleted`, `is_bot`, `is_app_user`,
//   `is_restricted` (multi-channel guest), `is_ultra_restricted` (single-channel guest), `is_stranger`
//   (someone from another organisation in a shared channel), `profile.email` (needs users:read.email),
//   `profile.real_name`, `profile.display_name`.
//
// Objects are parsed one by one: one malformed message is refused, not the page.

/** Slack's timestamps: seconds and microseconds, "1712345678.123456". */
export const tsSchema = z.string().regex(/^\d{1,12}\.\d{1,6}$/, 'is not a Slack timestamp (seconds.microseconds)');

/** Every answer: `ok`, and `error` when not. */
export const envelopeSchema = z.looseObject({
  ok: z.boolean(),
  error: z.string().optional(),
  needed: z.string().optional(),
  provided: z.string().optional(),
});

export const authTestSchema = z.looseObject({
  ok: z.literal(true),
  team_id: z.string().min(1).max(64),
  team: z.string().nullish(),
  url: z.string().nullish(),
  user_id: z.string().nullish(),
  bot_id: z.string().nullish(),
});

const fileSchema = z.looseObject({
  id: z.string().min(1),
  name: z.string().nullish(),
  title: z.string().nullish(),
  mimetype: z.string().nullish(),
  filetype: z.string().nullish(),
  size: z.number().int().nullish(),
  url_private: z.string().nullish(),
  permalink: z.string().nullish(),
});

export const messageSchema = z.looseObject({
  type: z.string().optional(),
  subtype: z.string().nullish(),
  ts: tsSchema,
  user: z.string().nullish(),
  username: z.string().nullish(),
  text: z.string().nullish(),
  bot_id: z.string().nullish(),
  bot_profile: z.looseObject({ id: z.string().nullish(), name: z.string().nullish() }).nullish(),
  team: z.string().nullish(),
  user_team: z.string().nullish(),
  source_team: z.string().nullish(),
  thread_ts: tsSchema.nullish(),
  reply_count: z.number().int().min(0).nullish(),
  latest_reply: tsSchema.nullish(),
  files: z.array(fileSchema).nullish(),
  edited: z.looseObject({ ts: z.string().nullish() }).nullish(),
});

/** conversations.history and conversations.replies: the page must have this shape; its messages are checked one by one. */
export const messagesPageSchema = z.looseObject({
  ok: z.literal(true),
  messages: z.array(z.unknown()),
  has_more: z.boolean().optional(),
  response_metadata: z.looseObject({ next_cursor: z.string().nullish() }).nullish(),
});

export const userSchema = z.looseObject({
  id: z.string().min(1),
  team_id: z.string().nullish(),
  name: z.string().nullish(),
  real_name: z.string().nullish(),
  deleted: z.boolean().nullish(),
  is_bot: z.boolean().nullish(),
  is_app_user: z.boolean().nullish(),
  is_restricted: z.boolean().nullish(),
  is_ultra_restricted: z.boolean().nullish(),
  is_stranger: z.boolean().nullish(),
  profile: z.looseObject({
    email: z.string().nullish(),
    real_name: z.string().nullish(),
    display_name: z.string().nullish(),
  }).nullish(),
});

export const usersInfoSchema = z.looseObject({ ok: z.literal(true), user: z.unknown() });

export const conversationsInfoSchema = z.looseObject({
  ok: z.literal(true),
  channel: z.looseObject({ id: z.string(), name: z.string().nullish(), is_private: z.boolean().nullish(), is_ext_shared: z.boolean().nullish() }),
});

export type SlackMessage = z.infer<typeof messageSchema>;
export type SlackUser = z.infer<typeof userSchema>;
export type SlackFile = z.infer<typeof fileSchema>;
