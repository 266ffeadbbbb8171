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
  id: z.string().min(1).max(256),
  role: z.enum(['internal', 'external', 'unknown']),
  name: text(256).optional(),
  email: z.email().max(320).optional(),
  type: z.enum(['user', 'contact', 'workspace_member', 'bot', 'system', 'unknown']).optional(),
});

export const attachmentSchema = z.strictObject({
  type: z.enum(['audio', 'video', 'file', 'image', 'text', 'unknown']),
  filename: text(512).optional(),
  size: z.int().min(0).max(Number.MAX_SAFE_INTEGER).optional(),
  mime_type: text(256).optional(),
  sha1: text(128).optional(),
  md5: text(128).optional(),
  vendor_url: z.url().max(2048).optional(),
  upload_intent_id: text(256).optional(),
});

export const piiEntitySchema = z.strictObject({
  type: z.string().min(1).max(64),
  value: text(1024).optional(),
  confidence: z.number().min(0).max(1).optional(),
});

export const piiSchema = z.strictObject({
  contains_email: z.boolean().optional(),
  contains_phone: z.boolean().optional(),
  sensitive_score: z.number().min(0).max(1).optional(),
  detected_entities: z.array(piiEntitySchema).max(LIMITS.detectedEntitiesPerRecord).optional(),
  redaction_status: z.enum(['unredacted', 'redacted', 'encrypted']).optional(),
});

export const recordSchema = z.strictObject({
  _type: z.enum(RECORD_TYPES),
  _schema_version: z.literal('1.0.0'),
  _event_at: z
    .string()
    .regex(EVENT_AT_PATTERN, 'must be an ISO-8601 UTC timestamp YYYY-MM-DDThh:mm:ss, optionally with .s to .sss, ending in Z')
    .refine(isRealInstant, 'is not a real date and time'),
  _vendor_ids: z
    .record(z.string(), vendorIdValueSchema)
    .refine((v) => Object.keys(v).length > 0, 'must have at least one entry')
    .refine((v) => Object.keys(v).length <= LIMITS.vendorIdsPerRecord, `must have at most ${LIMITS.vendorIdsPerRecord} entries`)
    .meta({ minProperties: 1, maxProperties: LIMITS.vendorIdsPerRecord }),
  _product_id: z.string().min(1).max(128),
  _project_ids: z.array(projectIdSchema).min(1).max(LIMITS.projectIdsPerRecord),
  _nature: z.enum(NATURES),
  data: z.record(z.string(), z.unknown()),
  _thread_id: text(512).optional(),
  _participants: z.array(participantSchema).max(LIMITS.participantsPerRecord).optional(),
  _attachments: z.array(attachmentSchema).max(LIMITS.attachmentsPerRecord).optional(),
  _tags: z.array(tagSchema).max(LIMITS.tagsPerRecord).optional(),
  _pii: piiSchema.optional(),
});

export const recordErrorSchema = z.strictObject({
  index: z.int().min(0),
  code: z.string().max(64),
  message: z.string().max(2048),
});

export const submissionResponseSchema = z.strictObject({
  batchId: z.string().max(128),
  acceptedCount: z.int().min(0),
  rejectedCount: z.int().min(0),
  totalErrorCount: z.int().min(0),
  duplicateCount: z.int().min(0).optional(),
  errors: z.array(recordErrorSchema).max(20).optional(),
});

export const batchSchema = z.strictObject({
  batchId: z.string().max(128),
  status: z.enum(BATCH_STATUSES),
  createdAt: z.int(),
  acceptedCount: z.int().min(0),
  rejectedCount: z.int().min(0),
  duplicateCount: z.int().min(0),
  totalErrorCount: z.int().min(0),
  errors: z.array(recordErrorSchema).max(20),
  source: z.string(),
  type: z.string(),
  format: z.enum(FORMATS).optional(),
  attachmentDownloadTotal: z.int().min(0).optional(),
  attachmentDownloadComplete: z.int().min(0).optional(),
  attachmentDownloadFailed: z.int().min(0).optional(),
  attachmentDownloadStatus: z.enum(DOWNLOAD_STATUSES).optional(),
  /** Records of the batch deleted since (DELETE /api/v1/records, /api/v1/sources, retention); present once one is. The other counts stay as received. */
  deletedCount: z.int().min(0).optional(),
  billing: z.strictObject({ totalCreditsCharged: z.int().min(0) }),
});

/** The answer of DELETE /api/v1/sources/{sourceId}: the record it was built from went with it. */
export const deletedSourceSchema = z.strictObject({
  id: z.string(),
  object: z.literal('source'),
  deleted: z.literal(true),
  recordId: z.string().nullable().meta({ description: 'The record the source was built from, deleted with it (null: the source was written over MCP)' }),
});

/** The answer of DELETE /api/v1/records/{recordId}: its source went with it. */
export const deletedRecordSchema = z.strictObject({
  id: z.string(),
  object: z.literal('record'),
  deleted: z.literal(true),
  sourceId: z.string().nullable().meta({ description: 'The source built from the record, deleted with it (null: the record had not become a source)' }),
});

export const batchListSchema = z.strictObject({
  batches: z.array(batchSchema),
  nextCursor: z.string().max(256).optional(),
});

export const errorResponseSchema = z.object({
  error: z.string().max(64),
  message: z.string().max(2048),
  retryAfter: z.number().optional(),
  details: z.record(z.string(), z.unknown()).optional(),
  errors: z.array(recordErrorSchema).max(20).optional(),
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
