import { FetchError, FetchTooLargeError } from '@loupe/safe-fetch';
import { attachmentWasErased } from '@loupe/erasure';
import { attachmentWasDeleted } from '@loupe/lifecycle';
import { StorageKeyError, type StoredObject } from '@loupe/storage';
import { claimAttachment, finishAttachment, noteAttemptError, type AttachmentRef, type ClaimedAttachment } from './attachment-state';
import { errorMessage, isLastAttempt, type Attempt, type WorkerContext } from './context';

/** The file is not what the record said it would be: retrying cannot help. */
export class AttachmentMismatchError extends Error {
  override name = 'AttachmentMismatchError';
}

export type DownloadOutcome = 'skipped' | 'COMPLETE' | 'FAILED' | 'retry';

/** A declared digest as lower-case hex: hex as given, or base64 (as in Content-MD5) decoded. */
function digestHex(declared: string, bytes: number): string | undefined {
  const value = declared.trim();
  if (new RegExp(`^[0-9a-fA-F]{${bytes * 2}}$`).test(value)) return value.toLowerCase();
  if (/^[A-Za-z0-9+/_-]+={0,2}$/.test(value)) {
    const decoded = Buffer.from(value, 'base64');
    if (decoded.length === bytes) return decoded.toString('hex');
  }
  return undefined;
}

function verify(claimed: ClaimedAttachment, stored: StoredObject): void {
  if (claimed.declaredSize !== null && stored.size !== claimed.declaredSize) {
    throw new AttachmentMismatchError(`received ${stored.size} bytes but the attachment declared size ${claimed.declaredSize}`);
  }
  for (const [name, declared, actual, bytes] of [
    ['sha1', claimed.sha1, stored.sha1, 20],
    ['md5', claimed.md5, stored.md5, 16],
  ] as const) {
    if (declared === null || declared.trim() === '') continue;
    const expected = digestHex(declared, bytes);
    if (!expected) throw new AttachmentMismatchError(`declared ${name} ${JSON.stringify(declared)} is neither ${bytes * 2} hex digits nor base64 of ${bytes} bytes`);
    if (expected !== actual) throw new AttachmentMismatchError(`${name} of the received file is ${actual}, not the declared ${expected}`);
  }
}

function mediaType(contentType: string | undefined, declared: string | null): string | null {
  const fromResponse = contentType?.trim();
  return (fromResponse ? fromResponse.slice(0, 256) : declared) ?? null;
}

/** Permanent failures end the attachment now; anything else may pass on a later attempt. */
function isPermanent(error: unknown): boolean {
  if (error instanceof FetchError) return !error.retryable;
  return error instanceof AttachmentMismatchError || error instanceof StorageKeyError;
}

function describe(error: unknown, claimed: ClaimedAttachment, cap: number): string {
  if (error instanceof FetchTooLargeError && claimed.declaredSize !== null && error.limit === claimed.declaredSize && cap === claimed.declaredSize) {
    return `the file is larger than its declared size of ${claimed.declaredSize} bytes`;
  }
  return errorMessage(error);
}

/**
 * The `attachment.download` job: streams `vendor_url` through the safe fetch into storage under
 * `<workspace>/<batch>/<attachment>`, capped at 2 GB and at the declared size, and checks the
 * declared size and hashes before the file becomes visible. Transient failures are retried by
 * pg-boss; permanent ones, and the last attempt, end the attachment FAILED.
 */
export async function downloadAttachment(ctx: WorkerContext, ref: AttachmentRef, attempt: Attempt): Promise<DownloadOutcome> {
  const log = ctx.log.child({ ...ref, attempt: attempt.retryCount + 1 });
  const claimed = await claimAttachment(ctx.pool, ref);
  if (!claimed) return 'skipped';
  const cap = Math.min(ctx.options.maxAttachmentBytes, claimed.declaredSize ?? Number.POSITIVE_INFINITY);
  const storageKey = `${ref.workspaceId}/${ref.batchId}/${ref.attachmentId}`;
  try {
    const response = await ctx.fetch.stream(claimed.vendorUrl, {
      maxBytes: cap,
      followRedirects: true,
      maxRedirects: ctx.options.maxRedirects,
      timeouts: ctx.options.downloadTimeouts,
      signal: AbortSignal.any([attempt.signal, ctx.shutdown]),
    });
    if (claimed.declaredSize !== null && response.contentLength !== undefined && response.contentLength !== claimed.declaredSize) {
      response.body.destroy();
      throw new AttachmentMismatchError(`the server announced ${response.contentLength} bytes but the attachment declared size ${claimed.declaredSize}`);
    }
    const stored = await ctx.storage.put(storageKey, response.body, { maxBytes: cap, verify: (s) => verify(claimed, s) });
    const finished = await finishAttachment(ctx.pool, ref, {
      status: 'COMPLETE',
      storageKey,
      storedSize: stored.size,
      storedMimeType: mediaType(response.contentType, claimed.mimeType),
    });
    if (!finished && ((await attachmentWasDeleted(ctx.pool, ref.attachmentId)) || (await attachmentWasErased(ctx.pool, ref.attachmentId)))) {
      // Its record was deleted while the file came in: the file goes too (libs/lifecycle deleted what was there then).
      // Or a person its record named was erased meanwhile (libs/erasure ended the download): the same.
      await ctx.storage.delete(storageKey);
      log.info('attachment deleted while it downloaded; its file is deleted');
      return 'skipped';
    }
    log.info({ size: stored.size }, 'attachment downloaded');
    return 'COMPLETE';
  } catch (error) {
    const message = describe(error, claimed, cap);
    const interrupted = attempt.signal.aborted || ctx.shutdown.aborted;
    if (isPermanent(error) || (isLastAttempt(attempt) && !interrupted)) {
      const reason = isPermanent(error) ? message : `gave up after ${attempt.retryCount + 1} attempts: ${message}`;
      await finishAttachment(ctx.pool, ref, { status: 'FAILED', error: reason });
      log.warn({ err: error }, 'attachment download failed');
      return 'FAILED';
    }
    await noteAttemptError(ctx.pool, ref, message);
    log.warn({ err: error }, 'attachment download failed; pg-boss will retry');
    throw error;
  }
}
