import { z } from 'zod';

// Gong's public API v2 as its reference documents it, reduced to the fields the connector reads. Sources:
// - help.gong.io/apidocs/introduction-2 (Overview): Basic auth with Base64(accessKey:accessKeySecret) or an OAuth
//   bearer token; 3 API calls a second and 10,000 a day, a 429 with Retry-After (seconds) beyond; list calls
//   return `records: { totalRecords, currentPageSize, currentPageNumber, cursor }`, the cursor only when more follow.
// - The reference's models, as the generated clients carry them (cedricziel/gong-rs and ksindi/gong-client, docs/):
//   CallsApi (GET /v2/calls; POST /v2/calls/extensive, scope api:calls:read:extensive, media URLs also
//   api:calls:read:media-url; POST /v2/calls/transcript, scope api:calls:read:transcript), CallsFilter /
//   CallsRequestFilterWithOwners (`fromDateTime` inclusive, `toDateTime` exclusive, ISO 8601, on the call's start;
//   `workspaceId`; `callIds`), PublicApiBaseRequestV2CallsFilter (`{ cursor?, filter }`), ExposedFields (`parties`;
//   `media`: "audio url and video url of the call, available for 8 hours"), Calls (`{ requestId, records, calls:
//   [CallData] }`), CallData (`{ metaData, parties, media, … }`), CallBasicData (`id` up to 20 digits, `url`,
//   `title`, `scheduled`, `started`, `duration` in seconds, `direction`, `system`, `scope`, `media`, `language`,
//   `workspaceId`, `purpose`, `isPrivate`), Party (`id`, `emailAddress`, `name`, `title`, `userId`, `speakerId`,
//   `affiliation`, `phoneNumber`, `methods`, `context` = CRM links), CallTranscripts (`{ requestId, records,
//   callTranscripts: [{ callId, transcript: [Monologue] }] }`), Monologue (`speakerId`, `topic`, `sentences`),
//   Sentence (`start`, `end` in milliseconds from the call's start, `text`), ErrorResponse (`{ requestId, errors: [string] }`).
// - A window with no call is answered 404 `{ errors: ["No calls found corresponding to the provided filters"] }`, not an
//   empty page (handled so by Pipedream's and Nango's Gong components, among others).
// Parties' CRM `context` (Salesforce accounts and the like) comes only with `contentSelector.context: "Extended"`
// and names CRM objects, not companies with domains: it is not read; an external party's email domain resolves
// the company as for any participant.
// Objects are parsed one by one: one malformed call is refused, not the page.

const FIRST = Date.parse('0001-01-01T00:00:00Z');
const LAST = Date.parse('9999-12-31T23:59:59Z');
/** An ISO 8601 date and time the record schema can hold as `_event_at` (years 0001 to 9999, as PostgreSQL). */
const stamp = z.string()
  .refine((s) => !Number.isNaN(Date.parse(s)), 'is not a date and time')
  .refine((s) => Number.isNaN(Date.parse(s)) || (Date.parse(s) >= FIRST && Date.parse(s) <= LAST), 'is outside the years 0001 to 9999');
/** Gong's ids are numeric strings of up to 20 digits; a number is taken too (JSON cannot carry 20 digits as one exactly, so Gong sends strings). */
const gongId = z.union([z.string().regex(/^[0-9A-Za-z_-]{1,64}$/, 'is not a Gong id'), z.number().int().nonnegative().transform(String)]);

export const callMetaDataSchema = z.looseObject({
  id: gongId,
  url: z.string().nullish(),
  title: z.string().nullish(),
  scheduled: stamp.nullish(),
  started: stamp,
  duration: z.number().nonnegative().nullish(),
  direction: z.string().nullish(),
  system: z.string().nullish(),
  scope: z.string().nullish(),
  media: z.string().nullish(),
  language: z.string().nullish(),
  workspaceId: z.union([z.string(), z.number()]).nullish(),
  purpose: z.string().nullish(),
  isPrivate: z.boolean().nullish(),
});

export const partySchema = z.looseObject({
  id: z.union([z.string(), z.number()]).nullish(),
  emailAddress: z.string().nullish(),
  name: z.string().nullish(),
  title: z.string().nullish(),
  userId: z.union([z.string(), z.number()]).nullish(),
  speakerId: z.union([z.string(), z.number()]).nullish(),
  affiliation: z.string().nullish(),
  phoneNumber: z.string().nullish(),
});

export const mediaSchema = z.looseObject({
  audioUrl: z.string().nullish(),
  videoUrl: z.string().nullish(),
});

/** One entry of `calls` of POST /v2/calls/extensive. */
export const callSchema = z.looseObject({
  metaData: callMetaDataSchema,
  parties: z.array(z.unknown()).nullish(),
  media: mediaSchema.nullish(),
});

export const recordsSchema = z.looseObject({
  totalRecords: z.number().nullish(),
  currentPageSize: z.number().nullish(),
  currentPageNumber: z.number().nullish(),
  cursor: z.string().min(1).nullish(),
});

/** POST /v2/calls/extensive: the page itself must have this shape; its calls are checked one by one. */
export const callsPageSchema = z.looseObject({
  requestId: z.string().nullish(),
  records: recordsSchema,
  calls: z.array(z.unknown()),
});

export const sentenceSchema = z.looseObject({
  start: z.number().nonnegative().nullish(),
  end: z.number().nonnegative().nullish(),
  text: z.string(),
});

export const monologueSchema = z.looseObject({
  speakerId: z.union([z.string(), z.number()]).nullish(),
  topic: z.string().nullish(),
  sentences: z.array(sentenceSchema),
});

export const callTranscriptSchema = z.looseObject({
  callId: gongId,
  transcript: z.array(monologueSchema),
});

/** POST /v2/calls/transcript. */
export const transcriptsPageSchema = z.looseObject({
  requestId: z.string().nullish(),
  records: recordsSchema,
  callTranscripts: z.array(z.unknown()),
});

export type GongCall = z.infer<typeof callSchema>;
export type GongParty = z.infer<typeof partySchema>;
export type GongMonologue = z.infer<typeof monologueSchema>;
export type GongCallTranscript = z.infer<typeof callTranscriptSchema>;
