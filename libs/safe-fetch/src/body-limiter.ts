import { Transform, type TransformCallback } from 'node:stream';
import { FetchTimeoutError, FetchTooLargeError } from './errors';

/** Passes the body through, failing it past `maxBytes` or after `idleMs` without data. */
export class BodyLimiter extends Transform {
  private received = 0;
  private idleTimer: NodeJS.Timeout | undefined;

  constructor(private readonly limits: { url: string; maxBytes: number; idleMs: number }) {
    super();
    this.armIdle();
  }

  get bytesReceived(): number {
    return this.received;
  }

  private armIdle(): void {
    clearTimeout(this.idleTimer);
    this.idleTimer = setTimeout(() => {
      this.destroy(new FetchTimeoutError(this.limits.url, 'idle', this.limits.idleMs));
    }, this.limits.idleMs);
    this.idleTimer.unref();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.received += chunk.length;
    if (this.received > this.limits.maxBytes) {
      callback(new FetchTooLargeError(this.limits.url, this.limits.maxBytes));
      return;
    }
    this.armIdle();
    callback(null, chunk);
  }

  override _flush(callback: TransformCallback): void {
    clearTimeout(this.idleTimer);
    callback();
  }

  override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
    clearTimeout(this.idleTimer);
    callback(error);
  }
}
