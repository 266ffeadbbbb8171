import type { Readable } from 'node:stream';

export class BodyTooLargeError extends Error {
  override name = 'BodyTooLargeError';
  constructor(readonly limit: number) {
    super(`Request body exceeds ${limit} bytes`);
  }
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
 * discarded, or at once when it is over DISCARD_FACTOR × limit.
 */
export async function readBoundedBody(req: Readable & { headers: Record<string, unknown> }, limit: number): Promise<Buffer> {
  const declared = Number(req.headers['content-length']);
  const declaredTooLarge = Number.isFinite(declared) && declared > limit;
  const discardUpTo = limit * DISCARD_FACTOR;
  if (declaredTooLarge && declared > discardUpTo) throw new BodyTooLargeError(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of req) {
    const buf = chunk as Buffer;
    size += buf.length;
    if (size > discardUpTo) throw new BodyTooLargeError(limit); // leaving the loop destroys the request
    if (!declaredTooLarge && size <= limit) chunks.push(buf);
  }
  if (declaredTooLarge || size > limit) throw new BodyTooLargeError(limit);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size);
}
