import { z } from 'zod';

export const RECORD_TYPES = [
  'email_thread', 'email', 'meeting_notes', 'call', 'call_transcription',
  'conversation', 'message', 'document', 'spreadsheet',
] as const;
export const NATURES = ['evidence', 'guidance', 'context'] as const;
export const FORMATS = ['text', 'audio', 'video', 'file'] as const;
export const BATCH_STATUSES = ['LANDING', 'LANDED', 'PROCESSING', 'COMPLETE', 'FAILED'] as const;
export const DOWNLOAD_STATUSES = ['PENDING', 'IN_PROGRESS', 'COMPLETE', 'PARTIAL_FAILURE', 'FAILED'] as const;

export const LIMITS = {
  bodyBytes: 5 * 1024 * 1024,
  recordsPerRequest: 1000,
  attachmentsPerRequest: 1000,
  attachmentBytes: 2 * 1024 * 1024 * 1024,
  errorsPerResponse: 20,
  idempotencyKeyLength: 256,
  pageSizeMax: 100,
  pageSizeDefault: 20,
  cursorLength: 256,
  batchIdLength: 128,
  /** Not in the spec: PostgreSQL cannot store JSON nested much deeper than a few tens of thousands of levels. */
  dataNestingDepth: 512,
  participantsPerRecord: 5000,
  attachmentsPerRecord: 10,
  tagsPerRecord: 200,
  /** Not in the spec (it bounds every other list): without a bound one record could carry millions. */
  projectIdsPerRecord: 100,
  vendorIdsPerRecord: 50,
  detectedEntitiesPerRecord: 1000,
  /** A record reports its first few errors; one broken field repeated a million times is still one mistake. */
  errorsPerRecord: 5,
} as const;

/** `YYYY-MM-DDThh:mm:ss`, optionally `.` and 1–3 digits, then `Z`. */
export const EVENT_AT_PATTERN = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2}):(\d{2})(?:\.\d{1,3})?Z$/;

function daysInMonth(year: number, month: number): number {
  if (month === 2) return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
  return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
}

/** A calendar date and time that exists (year 0001–9999: PostgreSQL has no year 0). */
function isRealInstant(value: string): boolean {
  const m = EVENT_AT_PATTERN.exec(value);
  if (!m) return false;
  const [y, mo, d, h, mi, s] = [+m[1]!, +m[2]!, +m[3]!, +m[4]!, +m[5]!, +m[6]!];
  return y >= 1 && mo >= 1 && mo <= 12 && d >= 1 && d <= daysInMonth(y, mo) && h < 24 && mi < 60 && s < 60;
}

/** Truncates an accepted `_event_at` to whole seconds: `2026-01-02T03:04:05.678Z` → `2026-01-02T03:04:05Z`. */
export function truncateEventAt(value: string): string {
  return `${value.slice(0, 19)}Z`;
}

const text = (max: number) => z.string().max(max);

export const vendorIdValueSchema = z.string();
export const projectIdSchema = z.string().min(1).max(128);
export const tagSchema = text(64);

export const participantSchema = z.strictObject({
  id: z.string().min(1).max(256).describe('The participant in the system the record came from: an email address, a user id or a phone number. Matched by erasure requests.'),
  role: z.enum(['internal', 'external', 'unknown']).describe('internal: your team; external: a customer or prospect; unknown: not said.'),
  name: text(256).optional().describe('Display name; a speaker in `data` with this name is this participant.'),
  email: z.email().max(320).optional().describe('Email address; its domain counts as the participant\'s company.'),
  type: z.enum(['user', 'contact', 'workspace_member', 'bot', 'system', 'unknown']).optional().describe('What kind of participant the source system says it is.'),
});

export const attachmentSchema = z.strictObject({
  type: z.enum(['audio', 'video', 'file', 'image', 'text', 'unknown']).describe('What the file holds.'),
  filename: text(512).optional().describe('The file\'s name, kept for display and download.'),
  size: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional().describe('Size in bytes; a download larger than this fails. At most 2 GB is downloaded.'),
  mime_type: text(256).optional().describe('Media type, e.g. audio/mpeg.'),
  sha1: text(128).optional().describe('Hex SHA-1 of the file; a download that does not match fails.'),
  md5: text(128).optional().describe('Hex MD5 of the file; a download that does not match fails.'),
  vendor_url: z.url().max(2048).optional().describe('An https URL the worker downloads the file from (public addresses only); progress shows on the batch.'),
  upload_intent_id: text(256).optional().describe('The id of a file uploaded by other means; recorded, not downloaded.'),
});

export const piiEntitySchema = z.strictObject({
  type: z.string().min(1).max(64).describe('Kind of personal data, e.g. email, phone, name.'),
  value: text(1024).optional().describe('The value found.'),
  confidence: z.number().min(0).max(1).optional().describe('How sure the detector was, 0 to 1.'),
});

export const piiSchema = z.strictObject({
  contains_email: z.boolean().optional().describe('The content holds email addresses.'),
  contains_phone: z.boolean().optional().describe('The content holds phone numbers.'),
  sensitive_score: z.number().min(0).max(1).optional().describe('How sensitive the content is, 0 to 1, as your system judged it.'),
  detected_entities: z.array(piiEntitySchema).max(LIMITS.detectedEntitiesPerRecord).optional().describe('Personal data found in the content, up to 1,000.'),
  redaction_status: z.enum(['unredacted', 'redacted', 'encrypted']).optional().describe('Whether personal data was removed or encrypted before sending.'),
});

export const recordSchema = z.strictObject({
  _type: z.enum(RECORD_TYPES).describe('What the record is; decides which keys of `data` are read. Every record of one request has the same `_type`.'),
  _schema_version: z.literal('1.0.0').describe('The version of this record format.'),
  _event_at: z
    .string()
    .regex(EVENT_AT_PATTERN, 'must be an ISO-8601 UTC timestamp YYYY-MM-DDThh:mm:ss, optionally with .s to .sss, ending in Z')
    .refine(isRealInstant, 'is not a real date and time')
    .describe('When it happened, in UTC: YYYY-MM-DDThh:mm:ss, optionally .s to .sss, then Z. Kept to the second.'),
  _vendor_ids: z
    .record(z.string(), vendorIdValueSchema)
    .refine((v) => Object.keys(v).length > 0, 'must have at least one entry')
    .refine((v) => Object.keys(v).length <= LIMITS.vendorIdsPerRecord, `must have at most ${LIMITS.vendorIdsPerRecord} entries`)
    .meta({
      minProperties: 1, maxProperties: LIMITS.vendorIdsPerRecord,
      description: 'The record\'s ids in the systems it came from, e.g. {"gong": "call-8812"}. With `_type` and `_event_at` it identifies the record: sending it again is a duplicate.',
    }),
  _product_id: z.string().min(1).max(128).describe('A product of the key\'s workspace (prod_…). Every record of one request has the same product.'),
  _project_ids: z.array(projectIdSchema).min(1).max(LIMITS.projectIdsPerRecord).describe('Projects of that product (proj_…) the record belongs to, 1 to 100.'),
  _nature: z.enum(NATURES).describe('evidence: what customers said or did; guidance: how your team works (policies, playbooks); context: background.'),
  data: z.record(z.string(), z.unknown()).describe('The content, stored exactly as sent. The keys read for each `_type` (title, transcript, messages…) are in the ingestion guide.'),
  _thread_id: text(512).optional().describe('Groups the records of one thread or conversation.'),
  _participants: z.array(participantSchema).max(LIMITS.participantsPerRecord).optional().describe('Who took part, up to 5,000. Names speakers and lets a person be found for erasure.'),
  _attachments: z.array(attachmentSchema).max(LIMITS.attachmentsPerRecord).optional().describe('Files of the record, up to 10; those with a vendor_url are downloaded.'),
  _tags: z.array(tagSchema).max(LIMITS.tagsPerRecord).optional().describe('Your labels, up to 200 of at most 64 characters.'),
  _pii: piiSchema.optional().describe('What your system knows of the personal data in the record.'),
});

export const recordErrorSchema = z.strictObject({
  index: z.int().min(0).describe('Position of the record in the request, from 0.'),
  code: z.string().max(64).describe('Stable error code, e.g. VALIDATION_ERROR, DUPLICATE_IN_REQUEST, PERSON_SUPPRESSED.'),
  message: z.string().max(2048).describe('What was wrong and where, e.g. "_event_at: is not a real date and time".'),
});

export const submissionResponseSchema = z.strictObject({
  batchId: z.string().max(128).describe('The batch the accepted records landed in; follow it at GET /api/v1/ingest/batches/{batchId}.'),
  acceptedCount: z.int().min(0).describe('Records that passed validation and are stored, duplicates included.'),
  rejectedCount: z.int().min(0).describe('Records refused; nothing of them was stored.'),
  totalErrorCount: z.int().min(0).describe('Errors found in all; `errors` lists the first 20.'),
  duplicateCount: z.int().min(0).optional().describe('Accepted records already sent before (same `_type`, `_vendor_ids` and `_event_at`); stored once, charged once.'),
  errors: z.array(recordErrorSchema).max(20).optional().describe('The first 20 errors, each with the record\'s index.'),
});

export const batchSchema = z.strictObject({
  batchId: z.string().max(128).describe('The batch\'s id.'),
  status: z.enum(BATCH_STATUSES).describe('LANDED: stored, waiting for the worker; PROCESSING; COMPLETE or FAILED: final.'),
  createdAt: z.int().describe('When the batch was received, in milliseconds since 1970-01-01 UTC.'),
  acceptedCount: z.int().min(0).describe('Records accepted, duplicates included.'),
  rejectedCount: z.int().min(0).describe('Records refused when the batch was sent.'),
  duplicateCount: z.int().min(0).describe('Accepted records that had been sent before.'),
  totalErrorCount: z.int().min(0).describe('Errors of the request and of processing, in all.'),
  errors: z.array(recordErrorSchema).max(20).describe('The first 20 errors, with the record\'s index.'),
  source: z.string().describe('Where the batch came from: api, or the kind of the connection that brought it (zendesk).'),
  type: z.string().describe('The `_type` of its records.'),
  format: z.enum(FORMATS).optional().describe('The format given with the request, if any.'),
  attachmentDownloadTotal: z.int().min(0).optional().describe('Attachments to download (those with a vendor_url); absent when none.'),
  attachmentDownloadComplete: z.int().min(0).optional().describe('Attachments downloaded and checked.'),
  attachmentDownloadFailed: z.int().min(0).optional().describe('Attachments that could not be downloaded.'),
  attachmentDownloadStatus: z.enum(DOWNLOAD_STATUSES).optional().describe('PENDING, IN_PROGRESS, then COMPLETE, PARTIAL_FAILURE or FAILED once every attachment is done.'),
  /** Records of the batch deleted since (DELETE /api/v1/records, /api/v1/sources, retention); present once one is. The other counts stay as received. */
  deletedCount: z.int().min(0).optional().describe('Records of the batch deleted since (by DELETE or retention); present once one is.'),
  billing: z.strictObject({
    totalCreditsCharged: z.int().min(0).describe('Credits charged: one per processed record that was not a duplicate.'),
  }).describe('What processing the batch cost.'),
});

/** The answer of DELETE /api/v1/sources/{sourceId}: the record it was built from went with it. */
export const deletedSourceSchema = z.strictObject({
  id: z.string().describe('The deleted source\'s id.'),
  object: z.literal('source').describe('What was deleted.'),
  deleted: z.literal(true).describe('Always true.'),
  recordId: z.string().nullable().meta({ description: 'The record the source was built from, deleted with it (null: the source was written over MCP)' }),
});

/** The answer of DELETE /api/v1/records/{recordId}: its source went with it. */
export const deletedRecordSchema = z.strictObject({
  id: z.string().describe('The deleted record\'s id.'),
  object: z.literal('record').describe('What was deleted.'),
  deleted: z.literal(true).describe('Always true.'),
  sourceId: z.string().nullable().meta({ description: 'The source built from the record, deleted with it (null: the record had not become a source)' }),
});

export const batchListSchema = z.strictObject({
  batches: z.array(batchSchema).describe('Batches, newest first.'),
  nextCursor: z.string().max(256).optional().describe('Pass as `cursor` for the next page; absent on the last page.'),
});

export const errorResponseSchema = z.object({
  error: z.string().max(64).describe('Stable error code, e.g. VALIDATION_ERROR, UNAUTHORIZED, RATE_LIMITED.'),
  message: z.string().max(2048).describe('What was wrong and where, in plain words.'),
  retryAfter: z.number().optional().describe('Seconds to wait before retrying (429 and 503), as in the Retry-After header.'),
  details: z.record(z.string(), z.unknown()).optional().describe('Facts about the error, e.g. the roles an endpoint needs.'),
  errors: z.array(recordErrorSchema).max(20).optional().describe('The first 20 refused records of a request, each with its index.'),
});

/** The 429 of the per-IP limit (libs/http per-ip-limit.ts), counted before the API key is read. */
export const ipRateLimitedSchema = z.strictObject({
  msg: z.string().describe('What happened and when to retry, in plain words.'),
  retryAfterSeconds: z.int().min(0).describe('Seconds to wait before retrying, as in the Retry-After header.'),
  limit: z.int().min(1).describe('Requests allowed from one IP address per window.'),
  windowSeconds: z.int().min(1).describe('The window\'s length in seconds.'),
  error: z.literal('rate_limit_exceeded').describe('Always rate_limit_exceeded (the OAuth error code, for OAuth clients).'),
  error_description: z.string().describe('The same, for OAuth clients.'),
  retry_after: z.int().min(0).describe('The same as retryAfterSeconds, for OAuth clients.'),
});

export type IngestRecordInput = z.infer<typeof recordSchema>;
export type Participant = z.infer<typeof participantSchema>;
export type AttachmentInput = z.infer<typeof attachmentSchema>;
export type Pii = z.infer<typeof piiSchema>;
export type RecordError = z.infer<typeof recordErrorSchema>;
export type SubmissionResponse = z.infer<typeof submissionResponseSchema>;
export type BatchView = z.infer<typeof batchSchema>;
export type BatchList = z.infer<typeof batchListSchema>;
export type ErrorResponse = z.infer<typeof errorResponseSchema>;
export type RecordType = (typeof RECORD_TYPES)[number];
