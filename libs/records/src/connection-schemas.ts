import { z } from 'zod';

// Connections to vendors (libs/connectors): the API's bodies and answers, and each connector's credentials and
// settings, described once here so that the API, the OpenAPI document and the connector read the same schema.

export const CONNECTION_LIMITS = {
  /** Minutes between two scheduled syncs. */
  intervalMinMinutes: 5,
  intervalMaxMinutes: 24 * 60,
  intervalDefaultMinutes: 15,
  bodyBytes: 64 * 1024,
} as const;

export const CONNECTION_KINDS = ['zendesk', 'intercom', 'gong', 'slack'] as const;
export const CONNECTION_STATUS_VALUES = ['active', 'paused', 'failing'] as const;

/** `{ email, api_token }` (sent as Zendesk's `email/token:api_token` basic auth) or an OAuth `{ access_token }`. */
export const zendeskCredentialsSchema = z.union([
  z.strictObject({
    email: z.email().max(320).describe('The Zendesk user the API token belongs to (an admin, or an agent who sees the tickets to bring in).'),
    api_token: z.string().min(1).max(512).describe('An API token (Admin Center → Apps and integrations → Zendesk API).'),
  }),
  z.strictObject({ access_token: z.string().min(1).max(4096).describe('An OAuth access token with the `read` scope.') }),
]);

export const zendeskSettingsSchema = z.strictObject({
  start_date: z.iso.date().optional().describe('Backfill tickets changed since this day (YYYY-MM-DD); 90 days before the connection was made when absent.'),
  brand_ids: z.array(z.number().int()).max(100).optional().describe('Only tickets of these brands.'),
  tags: z.array(z.string().min(1).max(80)).max(100).optional().describe('Only tickets with at least one of these tags.'),
  page_size: z.number().int().min(1).max(1000).optional().describe('Tickets per export page (Zendesk allows up to 1,000).'),
});

/** An Intercom access token (Developer Hub → your app → Configure → Authentication), sent as `Authorization: Bearer`. */
export const intercomCredentialsSchema = z.strictObject({
  access_token: z.string().min(1).max(4096).describe('An Intercom access token with the permissions Read conversations, Read and list users and companies, and Read admins.'),
});

export const intercomSettingsSchema = z.strictObject({
  start_date: z.iso.date().optional().describe('Backfill conversations updated since this day (YYYY-MM-DD); 90 days before the connection was made when absent.'),
  page_size: z.number().int().min(1).max(150).optional().describe('Conversations per search page (Intercom allows up to 150; 50 by default).'),
});

/** Gong's two ways in: an access key and its secret (Basic auth), or an OAuth `{ access_token }` (its `api_base_url_for_customer` is the base_url). */
export const gongCredentialsSchema = z.union([
  z.strictObject({
    access_key: z.string().min(1).max(512).describe('The access key (Gong: Admin center → Settings → Ecosystem → API → Get API Key; a technical administrator makes it).'),
    access_key_secret: z.string().min(1).max(1024).describe('The access key secret, shown once, with the key.'),
  }),
  z.strictObject({ access_token: z.string().min(1).max(4096).describe('An OAuth access token with api:calls:read:basic, api:calls:read:extensive and api:calls:read:transcript (and api:calls:read:media-url for recordings).') }),
]);

export const gongSettingsSchema = z.strictObject({
  start_date: z.iso.date().optional().describe('Backfill calls that started on or after this day (YYYY-MM-DD); 90 days before the connection was made when absent.'),
  workspace_id: z.string().regex(/^\d{1,20}$/, 'must be a Gong workspace id (up to 20 digits)').optional().describe('Only the calls of this Gong workspace.'),
  include_media: z.boolean().optional().describe('Give each call\'s recording (its audio URL, else its video URL) as an attachment to download; true by default. An OAuth token needs api:calls:read:media-url for it.'),
  delay_minutes: z.int().min(0).max(7 * 24 * 60).optional().describe('A call is read once its start is this many minutes old, so Gong has had time to transcribe it; 180 by default.'),
});

/** A Slack bot token (`xoxb-…`) or user token (`xoxp-…`) with the scopes the docs list, sent as `Authorization: Bearer`. */
export const slackCredentialsSchema = z.strictObject({
  token: z.string().min(1).max(512).regex(/^xox[a-z]-[A-Za-z0-9-]+$/, 'must be a Slack bot token (xoxb-…) or user token (xoxp-…)')
    .describe('A bot token (xoxb-…, the app invited to each channel) or a user token (xoxp-…) with channels:history, groups:history, channels:read, groups:read, users:read and users:read.email.'),
});

export const slackSettingsSchema = z.strictObject({
  channel_ids: z.array(z.string().regex(/^[CG][A-Z0-9]{2,30}$/, 'must be a channel id such as C0123ABCD (in Slack: the channel\'s details, at the bottom)'),
    { error: (issue) => (issue.input === undefined ? 'is required: the ids of the channels to bring' : undefined) })
    .min(1, 'name at least one channel').max(100).describe('The channels to bring (public C… or private G… ids); the app must be a member of each.'),
  start_date: z.iso.date().optional().describe('Backfill messages posted since this day (YYYY-MM-DD); 90 days before the connection was made when absent.'),
  page_size: z.number().int().min(1).max(999).optional().describe('Messages per history page (Slack allows up to 999 and advises 200; 200 by default; 15 for a non-Marketplace app distributed to other workspaces).'),
  reply_window_days: z.number().int().min(0).max(90).optional().describe('Threads whose parent is at most this many days older than the newest message read are read again when they get a new reply (14 by default; 0: never).'),
  include_bots: z.boolean().optional().describe('Also bring messages and threads posted only by bots and apps (left out by default).'),
});

const intervalSchema = z.int().min(CONNECTION_LIMITS.intervalMinMinutes).max(CONNECTION_LIMITS.intervalMaxMinutes)
  .describe(`Minutes between scheduled syncs, ${CONNECTION_LIMITS.intervalMinMinutes} to ${CONNECTION_LIMITS.intervalMaxMinutes}; ${CONNECTION_LIMITS.intervalDefaultMinutes} by default.`);
const baseUrlSchema = z.url().max(2048).describe('The vendor\'s address, e.g. https://acme.zendesk.com. Private and loopback addresses are refused (unless FETCH_ALLOW_LOOPBACK).');

export const createZendeskConnectionSchema = z.strictObject({
  kind: z.literal('zendesk').describe('Zendesk Support.'),
  product_id: z.string().min(1).max(128).describe('The product of this workspace the records go to.'),
  project_id: z.string().min(1).max(128).describe('The project of that product the records go to.'),
  base_url: baseUrlSchema,
  credentials: zendeskCredentialsSchema.describe('`{email, api_token}` or `{access_token}`: stored encrypted, never returned.'),
  settings: zendeskSettingsSchema.optional().describe('Which tickets to bring, and since when.'),
  sync_interval_minutes: intervalSchema.optional(),
});

export const createIntercomConnectionSchema = z.strictObject({
  kind: z.literal('intercom').describe('Intercom.'),
  product_id: z.string().min(1).max(128).describe('The product of this workspace the records go to.'),
  project_id: z.string().min(1).max(128).describe('The project of that product the records go to.'),
  base_url: baseUrlSchema.optional().describe('Intercom\'s API address: https://api.intercom.io by default; https://api.eu.intercom.io or https://api.au.intercom.io for a workspace hosted in Europe or Australia.'),
  credentials: intercomCredentialsSchema.describe('`{access_token}`: stored encrypted, never returned.'),
  settings: intercomSettingsSchema.optional().describe('Since when to bring conversations, and the page size.'),
  sync_interval_minutes: intervalSchema.optional(),
});

export const createGongConnectionSchema = z.strictObject({
  kind: z.literal('gong').describe('Gong (calls and their transcripts).'),
  product_id: z.string().min(1).max(128).describe('The product of this workspace the records go to.'),
  project_id: z.string().min(1).max(128).describe('The project of that product the records go to.'),
  base_url: baseUrlSchema.default('https://api.gong.io').describe('https://api.gong.io by default; with an OAuth token, the `api_base_url_for_customer` Gong gave with it.'),
  credentials: gongCredentialsSchema.describe('`{access_key, access_key_secret}` or `{access_token}`: stored encrypted, never returned.'),
  settings: gongSettingsSchema.optional().describe('Which calls to bring, and since when.'),
  sync_interval_minutes: intervalSchema.optional(),
});

export const createSlackConnectionSchema = z.strictObject({
  kind: z.literal('slack').describe('Slack.'),
  product_id: z.string().min(1).max(128).describe('The product of this workspace the records go to.'),
  project_id: z.string().min(1).max(128).describe('The project of that product the records go to.'),
  base_url: baseUrlSchema.optional().describe('Slack\'s Web API address: https://slack.com by default.'),
  credentials: slackCredentialsSchema.describe('`{token}`: stored encrypted, never returned.'),
  settings: slackSettingsSchema.describe('Which channels to bring (`channel_ids`, required), and since when.'),
  sync_interval_minutes: intervalSchema.optional(),
});

/** POST /api/v1/connections. */
export const createConnectionSchema = z.discriminatedUnion('kind', [createZendeskConnectionSchema, createIntercomConnectionSchema, createGongConnectionSchema, createSlackConnectionSchema]);

/** PATCH /api/v1/connections/{id}: what is given replaces what was; new credentials make a failing connection active again. */
export const updateConnectionSchema = z.strictObject({
  base_url: baseUrlSchema.optional(),
  credentials: z.record(z.string(), z.unknown()).optional().describe('New credentials, of the form the connection\'s kind takes (Zendesk: `{email, api_token}` or `{access_token}`; Intercom: `{access_token}`; Gong: `{access_key, access_key_secret}` or `{access_token}`; Slack: `{token}`).'),
  settings: z.record(z.string(), z.unknown()).optional().describe('The whole settings of the connection\'s kind; a setting left out is cleared.'),
  sync_interval_minutes: intervalSchema.optional(),
});

export const connectionSchema = z.strictObject({
  id: z.string().describe('The connection\'s id (conn_…).'),
  kind: z.enum(CONNECTION_KINDS).describe('The vendor.'),
  product_id: z.string().describe('The product its records go to.'),
  project_id: z.string().describe('The project its records go to.'),
  base_url: z.string().describe('The vendor\'s address.'),
  settings: z.record(z.string(), z.unknown()).describe('The connection\'s settings, as given.'),
  status: z.enum(CONNECTION_STATUS_VALUES).describe('active: synced on its schedule; paused: not synced until resumed; failing: the vendor refused the credentials, not synced until they change.'),
  sync_interval_minutes: z.int().describe('Minutes between scheduled syncs.'),
  last_synced_at: z.string().nullable().describe('When a sync last stored a page or ended, ISO 8601.'),
  last_success_at: z.string().nullable().describe('When a sync last read to the end.'),
  last_error: z.string().nullable().describe('Why the last sync failed, or which vendor objects it refused and why; null when all went well.'),
  last_error_at: z.string().nullable().describe('When last_error happened, ISO 8601.'),
  records: z.int().describe('Records it brought in (not counting duplicates).'),
  duplicates: z.int().describe('Objects read again with nothing new: stored once.'),
  rejected: z.int().describe('Objects refused (malformed, or records that failed validation).'),
  companies: z.int().describe('Companies it created from the vendor\'s organizations.'),
  people: z.int().describe('People it created from the vendor\'s end users.'),
  created_at: z.string().describe('When it was made, ISO 8601.'),
  updated_at: z.string().describe('When it last changed, ISO 8601.'),
}).describe('A connection. Its credentials are never returned.');

export const connectionListSchema = z.strictObject({ connections: z.array(connectionSchema).describe('The workspace\'s connections, newest first.') });

export const deletedConnectionSchema = z.strictObject({
  id: z.string().describe('The deleted connection\'s id.'),
  object: z.literal('connection').describe('What was deleted.'),
  deleted: z.literal(true).describe('Always true.'),
  data: z.enum(['kept', 'deleting']).describe('kept: the records it brought stay; deleting: they are being deleted in the background, with their sources.'),
});

export type ConnectionKind = (typeof CONNECTION_KINDS)[number];
export type CreateConnectionInput = z.infer<typeof createConnectionSchema>;
export type UpdateConnectionInput = z.infer<typeof updateConnectionSchema>;
export type ConnectionView = z.infer<typeof connectionSchema>;
export type ZendeskCredentials = z.infer<typeof zendeskCredentialsSchema>;
export type ZendeskSettings = z.infer<typeof zendeskSettingsSchema>;
export type IntercomCredentials = z.infer<typeof intercomCredentialsSchema>;
export type IntercomSettings = z.infer<typeof intercomSettingsSchema>;
export type GongCredentials = z.infer<typeof gongCredentialsSchema>;
export type GongSettings = z.infer<typeof gongSettingsSchema>;
export type SlackCredentials = z.infer<typeof slackCredentialsSchema>;
export type SlackSettings = z.infer<typeof slackSettingsSchema>;
