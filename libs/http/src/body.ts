import type { Readable } from 'node:stream';

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(`Request body exceeds ${limit} bytes`);
  }
}

/** The bodies in flight already hold the process's budget: answer 503 with Retry-After, read nothing more. */
export class BodyBudgetExceededError extends Error {
  override name = 'BodyBudgetExceededError';
  constructor(readonly budget: number) {
    super(`Request bodies in flight already hold ${budget} bytes, the most this process keeps at once`);
  }
}

/**
 * Bytes of request bodies a process holds at once (read and not yet answered). A reader reserves what
 * it keeps, chunk by chunk (or the declared Content-Length up front), and gives it back when its
 * request is answered; past the budget the request is refused instead of read.
 */
export interface BodyBudget {
  readonly limit: number;
  /** Bytes reserved now. */
  held(): number;
  reserve(bytes: number): boolean;
  release(bytes: number): void;
}

export function createBodyBudget(limit: number): BodyBudget {
  let held = 0;
  return {
    limit,
    held: () => held,
    reserve(bytes) {
      if (held + bytes > limit) return false;
      held += bytes;
      return true;
    },
    release(bytes) {
      held = Math.max(0, held - bytes);
    },
  };
}

/**
 * How much of an oversized body is read and thrown away, as a multiple of the limit, before
 * answering: a client that sends its whole body before reading (most do) then gets the 413
 * instead of a reset connection. Past it the request is cut off.
 */
const DISCARD_FACTOR = 4;

/**
 * Reads a request body into one Buffer, keeping at most `limit` bytes. A body over the limit (or
 * declaring a Content-Length over it) fails with BodyTooLargeError once it has been read and
 * discarded, or at once when it is over DISCARD_FACTOR × limit. With a `budget`, the bytes kept are
 * reserved in it (the declared length up front, then as chunks arrive): past the budget it fails with
 * BodyBudgetExceededError, everything reserved given back; once it succeeds, the caller owns the
 * reservation of `body.length` bytes and releases it when the request is answered.
 */
export async function readBoundedBody(req: Readable & { headers: Record<string, unknown> }, limit: number, budget?: BodyBudget): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  const declaredTooLarge = Number.isFinite(declared) && declared > limit;
  const discardUpTo = limit * DISCARD_FACTOR;
  if (declaredTooLarge && declared > discardUpTo) throw new BodyTooLargeError(limit);
  let reserved = 0;
  const reserveUpTo = (bytes: number) => {
    if (!budget || bytes <= reserved) return;
    if (!budget.reserve(bytes - reserved)) throw new BodyBudgetExceededError(budget.limit);
    reserved = bytes;
  };
  const chunks: Buffer[] = [];
  let size = 0;
  try {
    if (!declaredTooLarge && Number.isFinite(declared) && declared > 0) reserveUpTo(declared);
    for await (const chunk of req) {
      const buf = chunk as Buffer;
      size += buf.length;
      if (size > discardUpTo) throw new BodyTooLargeError(limit); // leaving the loop destroys the request
      if (!declaredTooLarge && size <= limit) {
        reserveUpTo(size);
        chunks.push(buf);
      }
    }
    if (declaredTooLarge || size > limit) throw new BodyTooLargeError(limit);
  } catch (error) {
    budget?.release(reserved);
    throw error;
  }
  // A body shorter than it declared keeps only what it holds.
  if (budget && reserved > size) budget.release(reserved - size);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}
