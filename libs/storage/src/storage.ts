import type { Readable } from 'node:stream';

export interface StoredObject {
  size: number;
  /** Lower-case hex digests of the stored bytes. */
  sha1: string;
  md5: string;
}

export interface PutOptions {
  /** The write fails with StorageTooLargeError past this many bytes. */
  maxBytes: number;
  /**
   * Runs after the last byte is written and before the object becomes visible under its key;
   * a throw discards the object, so a rejected upload never appears.
   */
  verify?: (stored: StoredObject) => void | Promise<void>;
}

/** Where downloaded attachments live. Keys are relative paths like `ws_1/bat_2/att_3`. */
export interface Storage {
  put(key: string, body: Readable, options: PutOptions): Promise<StoredObject>;
  /** The object's bytes; StorageNotFoundError when there is none. */
  get(key: string): Promise<Readable>;
  /** True when something was deleted. */
  delete(key: string): Promise<boolean>;
  exists(key: string): Promise<boolean>;
}

export class StorageError extends Error {
  override name = 'StorageError';
}

export class StorageKeyError extends StorageError {
  override name = 'StorageKeyError';
}

export class StorageNotFoundError extends StorageError {
  override name = 'StorageNotFoundError';
}

export class StorageTooLargeError extends StorageError {
  override name = 'StorageTooLargeError';
  constructor(
    readonly key: string,
    readonly limit: number,
  ) {
    super(`object ${key} is larger than the limit of ${limit} bytes`);
  }
}

const SEGMENT = /^[A-Za-z0-9_][A-Za-z0-9._-]{0,199}$/;

/** Keys are 1–8 segments of letters, digits, `.`, `_`, `-`; nothing that could leave the root. */
export function assertKey(key: string): void {
  const segments = key.split('/');
  if (segments.length > 8 || !segments.every((s) => SEGMENT.test(s) && s !== '..')) {
    throw new StorageKeyError(`storage key ${JSON.stringify(key)} is not 1 to 8 segments of letters, digits, ".", "_" and "-"`);
  }
}
