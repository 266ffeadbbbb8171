import { createHash, randomBytes } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { mkdir, rename, rm, stat, unlink } from 'node:fs/promises';
import path from 'node:path';
import { Transform, type Readable, type TransformCallback } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { StorageNotFoundError, StorageTooLargeError, assertKey, type PutOptions, type Storage, type StoredObject } from './storage';

/** Hashes and counts what passes through, and stops past the limit. */
export class Digest extends Transform {
  private readonly sha1 = createHash('sha1');
  private readonly md5 = createHash('md5');
  size = 0;

  constructor(
    private readonly key: string,
    private readonly maxBytes: number,
  ) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.size += chunk.length;
    if (this.size > this.maxBytes) {
      callback(new StorageTooLargeError(this.key, this.maxBytes));
      return;
    }
    this.sha1.update(chunk);
    this.md5.update(chunk);
    callback(null, chunk);
  }

  result(): StoredObject {
    return { size: this.size, sha1: this.sha1.digest('hex'), md5: this.md5.digest('hex') };
  }
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/**
 * Objects as files under `<dataDir>/attachments`. A put writes `<root>/.partial/<random>`
 * and renames it onto the key only when the whole body arrived and passed `verify`, so a
 * failed or partial transfer never shows under the key, and the partial file is removed.
 */
export function createLocalStorage(dataDir: string): Storage & { root: string } {
  const root = path.resolve(dataDir, 'attachments');
  const partialDir = path.join(root, '.partial');
  const fileOf = (key: string) => {
    assertKey(key);
    return path.join(root, ...key.split('/'));
  };

  async function put(key: string, body: Readable, options: PutOptions): Promise<StoredObject> {
    const target = fileOf(key);
    const partial = path.join(partialDir, `${randomBytes(12).toString('hex')}.part`);
    try {
      await mkdir(partialDir, { recursive: true });
      const digest = new Digest(key, options.maxBytes);
      await pipeline(body, digest, createWriteStream(partial, { flags: 'wx', flush: true }));
      const stored = digest.result();
      await options.verify?.(stored);
      await mkdir(path.dirname(target), { recursive: true });
      await rename(partial, target);
      return stored;
    } catch (error) {
      body.destroy();
      await rm(partial, { force: true });
      throw error;
    }
  }

  async function get(key: string): Promise<Readable> {
    const file = fileOf(key);
    try {
      const info = await stat(file);
      if (!info.isFile()) throw new StorageNotFoundError(`no object under ${key}`);
    } catch (error) {
      if (isMissing(error)) throw new StorageNotFoundError(`no object under ${key}`);
      throw error;
    }
    return createReadStream(file);
  }

  async function remove(key: string): Promise<boolean> {
    try {
      await unlink(fileOf(key));
      return true;
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  async function exists(key: string): Promise<boolean> {
    try {
      return (await stat(fileOf(key))).isFile();
    } catch (error) {
      if (isMissing(error)) return false;
      throw error;
    }
  }

  return { root, put, get, delete: remove, exists };
}
