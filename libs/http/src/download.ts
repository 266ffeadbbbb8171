import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import type { Response } from 'express';

export interface DownloadMeta {
  filename: string;
  /** The type the file was stored with; anything that is not a plain `type/subtype` is sent as octet-stream. */
  mimeType: string | null;
  size: number | null;
}

const MIME = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/i;

/** RFC 6266 with RFC 8187: an ASCII fallback for old clients and the exact name, percent-encoded, for the rest. */
export function contentDisposition(filename: string): string {
  const ascii = filename.replace(/[^\x20-\x7e]|["\\%;]/g, '_').slice(0, 150) || 'download';
  return `attachment; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(filename).replace(/['()*]/g, (c) => `%${c.charCodeAt(0).toString(16).toUpperCase()}`)}`;
}

/**
 * Streams a stored file customers sent as a download, never shown inline: whatever its type, a browser
 * saves it (`attachment`), does not sniff it, and runs nothing in it if opened here (a sandboxing CSP).
 */
export async function sendDownload(res: Response, body: Readable, meta: DownloadMeta): Promise<void> {
  res.status(200);
  res.setHeader('Content-Type', meta.mimeType && MIME.test(meta.mimeType) ? meta.mimeType.toLowerCase() : 'application/octet-stream');
  res.setHeader('Content-Disposition', contentDisposition(meta.filename));
  res.setHeader('X-Content-Type-Options', 'nosniff');
  res.setHeader('Content-Security-Policy', "default-src 'none'; sandbox");
  res.setHeader('Cache-Control', 'private, no-store');
  if (meta.size !== null) res.setHeader('Content-Length', String(meta.size));
  // A storage failure midway ends the response short: the client sees a truncated body against Content-Length.
  await pipeline(body, res).catch((error: unknown) => {
    if (!res.destroyed) res.destroy(error instanceof Error ? error : new Error(String(error)));
  });
}
