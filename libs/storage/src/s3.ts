import { randomBytes } from 'node:crypto';
import { PassThrough, type Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { CopyObjectCommand, DeleteObjectCommand, GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { Upload } from '@aws-sdk/lib-storage';
import { Digest } from './local';
import { StorageNotFoundError, assertKey, type PutOptions, type Storage, type StoredObject } from './storage';

/** Where and how to reach an S3-compatible bucket (STORAGE_URL=s3://bucket/prefix and the S3_* settings). */
export interface S3StorageOptions {
  bucket: string;
  /** Keys are stored under this prefix (no leading or trailing `/`; empty for the bucket's root). */
  prefix: string;
  /** An S3-compatible server's address (MinIO, R2, a test server); absent: AWS itself. */
  endpoint?: string | undefined;
  region?: string | undefined;
  /** Path-style addressing (`endpoint/bucket/key`), which most S3-compatible servers need. */
  forcePathStyle?: boolean | undefined;
  /** Explicit credentials (tests); absent: the AWS SDK's own chain (AWS_ACCESS_KEY_ID…, a role, a profile). */
  credentials?: { accessKeyId: string; secretAccessKey: string } | undefined;
}

/** Multipart parts of 8 MiB, one at a time: a put holds about one part in memory, whatever the file's size. */
const PART_SIZE = 8 * 1024 * 1024;

const notFound = (error: unknown) => {
  const e = error as { name?: string; $metadata?: { httpStatusCode?: number } };
  return e.name === 'NotFound' || e.name === 'NoSuchKey' || e.$metadata?.httpStatusCode === 404;
};

/**
 * Objects in an S3-compatible bucket through the AWS SDK v3. A put streams the body through the same
 * digest and size cap as the local disk into a multipart upload under `<prefix>/.partial/<random>`, and
 * only once the whole body arrived and passed `verify` is it copied onto its key (a server-side copy) and
 * the partial object deleted: a failed, oversized or rejected upload never shows under the key, and an
 * upload cut midway is aborted (its parts discarded).
 */
export function createS3Storage(options: S3StorageOptions, client?: S3Client): Storage & { client: S3Client } {
  const s3 = client ?? new S3Client({
    endpoint: options.endpoint,
    region: options.region ?? 'us-east-1',
    forcePathStyle: options.forcePathStyle,
    credentials: options.credentials,
    // Checksums only where an operation requires one: S3-compatible servers differ in the trailing
    // checksums newer SDKs add to streamed uploads; the digest below is ours either way.
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
  const { bucket } = options;
  const prefix = options.prefix.replace(/^\/+|\/+$/g, '');
  const objectKey = (key: string) => {
    assertKey(key);
    return prefix ? `${prefix}/${key}` : key;
  };
  const partialKey = () => `${prefix ? `${prefix}/` : ''}.partial/${randomBytes(12).toString('hex')}.part`;

  async function put(key: string, body: Readable, putOptions: PutOptions): Promise<StoredObject> {
    const target = objectKey(key);
    const partial = partialKey();
    const digest = new Digest(key, putOptions.maxBytes);
    const through = new PassThrough();
    const upload = new Upload({ client: s3, params: { Bucket: bucket, Key: partial, Body: through }, partSize: PART_SIZE, queueSize: 1, leavePartsOnError: false });
    let uploaded = false;
    try {
      // A failed upload ends the stream feeding it, so the pipeline stops too; a failed stream ends the
      // upload (a multipart one is aborted, its parts discarded). The stream's own error is the one told.
      const sending = upload.done().catch((error: unknown) => {
        through.destroy(error as Error);
        throw error;
      });
      const [piped, sent] = await Promise.allSettled([pipeline(body, digest, through), sending]);
      if (piped.status === 'rejected') throw piped.reason;
      if (sent.status === 'rejected') throw sent.reason;
      uploaded = true;
      const stored = digest.result();
      await putOptions.verify?.(stored);
      await s3.send(new CopyObjectCommand({ Bucket: bucket, Key: target, CopySource: `${bucket}/${partial.split('/').map(encodeURIComponent).join('/')}` }));
      return stored;
    } catch (error) {
      body.destroy();
      throw error;
    } finally {
      if (uploaded) await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: partial })).catch(() => undefined);
    }
  }

  async function get(key: string): Promise<Readable> {
    try {
      const out = await s3.send(new GetObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
      return out.Body as Readable;
    } catch (error) {
      if (notFound(error)) throw new StorageNotFoundError(`no object under ${key}`);
      throw error;
    }
  }

  async function exists(key: string): Promise<boolean> {
    try {
      await s3.send(new HeadObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
      return true;
    } catch (error) {
      if (notFound(error)) return false;
      throw error;
    }
  }

  async function remove(key: string): Promise<boolean> {
    // S3 deletes answer the same whether or not the object was there: ask first, to say.
    if (!(await exists(key))) return false;
    await s3.send(new DeleteObjectCommand({ Bucket: bucket, Key: objectKey(key) }));
    return true;
  }

  return { client: s3, put, get, delete: remove, exists };
}

/** `s3://bucket/prefix` → bucket and prefix; anything else is refused with what was expected. */
export function parseStorageUrl(url: string): { bucket: string; prefix: string } {
  const match = /^s3:\/\/([a-z0-9][a-z0-9.-]{1,61}[a-z0-9])(?:\/(.*))?$/.exec(url);
  if (!match) throw new Error(`STORAGE_URL must be s3://<bucket>/<prefix> with a bucket name of 3 to 63 lowercase letters, digits, "." and "-" (got ${JSON.stringify(url)})`);
  return { bucket: match[1]!, prefix: (match[2] ?? '').replace(/^\/+|\/+$/g, '') };
}
