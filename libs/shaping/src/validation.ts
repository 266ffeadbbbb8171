/** The shaping pipeline, in order. A note with no status (null) is outside the pipeline. */
export const SHAPING_STATUSES = [
  { status: 'ideas', displayName: 'Ideas' },
  { status: 'prds', displayName: 'PRDs' },
  { status: 'dev_plans', displayName: 'Dev Plans' },
  { status: 'build_notes', displayName: 'Build Notes' },
  { status: 'revisions', displayName: 'Revisions' },
  { status: 'ready', displayName: 'Ready' },
  { status: 'done', displayName: 'Done' },
] as const;

export type ShapingStatus = (typeof SHAPING_STATUSES)[number]['status'];

export const SHAPING_LIMITS = {
  titleMaxChars: 200,
  subtitleMaxChars: 300,
  /** Content is measured in UTF-8 bytes. */
  contentMaxBytes: 1024 * 1024,
  maxTags: 20,
  tagMaxChars: 50,
  listMaxLimit: 100,
} as const;

const STATUS_VALUES: readonly string[] = SHAPING_STATUSES.map((s) => s.status);

export function isShapingStatus(value: unknown): value is ShapingStatus {
  return typeof value === 'string' && STATUS_VALUES.includes(value);
}

/** The display name of a status ("Dev Plans" for dev_plans); null for a note outside the pipeline. */
export function shapingStatusDisplayName(status: ShapingStatus | null): string | null {
  return SHAPING_STATUSES.find((s) => s.status === status)?.displayName ?? null;
}

export class ShapingError extends Error {
  override name = 'ShapingError';
}

/** Input that breaks a rule; `field` names the input field at fault. */
export class ShapingValidationError extends ShapingError {
  override name = 'ShapingValidationError';
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(message);
  }
}

/** The product does not exist or belongs to another workspace (the two are answered alike). */
export class ProductNotFoundError extends ShapingError {
  override name = 'ProductNotFoundError';
  constructor(readonly productId: string) {
    super('Product not found');
  }
}

/** The note does not exist or belongs to another workspace (the two are answered alike). */
export class ShapingNoteNotFoundError extends ShapingError {
  override name = 'ShapingNoteNotFoundError';
  constructor(readonly noteId: string) {
    super(`Shaping note ${noteId} does not exist or you are not allowed to access it`);
  }
}

export class ShapingVersionNotFoundError extends ShapingError {
  override name = 'ShapingVersionNotFoundError';
  constructor(
    readonly noteId: string,
    readonly version: number,
  ) {
    super(`Version ${version} of shaping note ${noteId} does not exist`);
  }
}

export function validateTitle(title: unknown): string {
  if (typeof title !== 'string') throw new ShapingValidationError('title', 'title must be a string');
  const trimmed = title.trim();
  if (trimmed.length === 0) throw new ShapingValidationError('title', 'title must not be empty');
  if (trimmed.length > SHAPING_LIMITS.titleMaxChars) {
    throw new ShapingValidationError(
      'title',
      `title must be at most ${SHAPING_LIMITS.titleMaxChars} characters (got ${trimmed.length})`,
    );
  }
  return trimmed;
}

export function validateContent(content: unknown): string {
  if (typeof content !== 'string') throw new ShapingValidationError('content', 'content must be a string of markdown');
  const bytes = Buffer.byteLength(content, 'utf8');
  if (bytes > SHAPING_LIMITS.contentMaxBytes) {
    throw new ShapingValidationError(
      'content',
      `content must be at most ${SHAPING_LIMITS.contentMaxBytes} bytes (1 MB) of UTF-8 (got ${bytes})`,
    );
  }
  return content;
}

/** An empty or null subtitle means "no subtitle". */
export function validateSubtitle(subtitle: unknown): string | null {
  if (subtitle === null || subtitle === undefined) return null;
  if (typeof subtitle !== 'string') throw new ShapingValidationError('subtitle', 'subtitle must be a string');
  const trimmed = subtitle.trim();
  if (trimmed.length > SHAPING_LIMITS.subtitleMaxChars) {
    throw new ShapingValidationError(
      'subtitle',
      `subtitle must be at most ${SHAPING_LIMITS.subtitleMaxChars} characters (got ${trimmed.length})`,
    );
  }
  return trimmed.length === 0 ? null : trimmed;
}

/** `''` and null mean "outside the pipeline". */
export function validateStatus(status: unknown): ShapingStatus | null {
  if (status === null || status === undefined || status === '') return null;
  if (!isShapingStatus(status)) {
    throw new ShapingValidationError(
      'status',
      `Unknown status ${JSON.stringify(status)}: use one of ${STATUS_VALUES.join(', ')}, or "" to keep the note outside the pipeline`,
    );
  }
  return status;
}

/** Trimmed, duplicates dropped (first one kept), each 1–50 characters, at most 20. */
export function validateTags(tags: unknown): string[] {
  if (tags === null || tags === undefined) return [];
  if (!Array.isArray(tags)) throw new ShapingValidationError('tags', 'tags must be an array of strings');
  const out: string[] = [];
  tags.forEach((tag: unknown, i) => {
    if (typeof tag !== 'string') throw new ShapingValidationError(`tags[${i}]`, `tags[${i}] must be a string`);
    const trimmed = tag.trim();
    if (trimmed.length === 0) throw new ShapingValidationError(`tags[${i}]`, `tags[${i}] must not be empty`);
    if (trimmed.length > SHAPING_LIMITS.tagMaxChars) {
      throw new ShapingValidationError(
        `tags[${i}]`,
        `tags[${i}] must be at most ${SHAPING_LIMITS.tagMaxChars} characters (got ${trimmed.length})`,
      );
    }
    if (!out.includes(trimmed)) out.push(trimmed);
  });
  if (out.length > SHAPING_LIMITS.maxTags) {
    throw new ShapingValidationError('tags', `at most ${SHAPING_LIMITS.maxTags} tags are allowed (got ${out.length})`);
  }
  return out;
}
