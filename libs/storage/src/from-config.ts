import { createLocalStorage } from './local';
import { createS3Storage, parseStorageUrl } from './s3';
import type { Storage } from './storage';

/** Where attachments live, as configured: STORAGE_URL's bucket, else the local disk under `dataDir`. */
export function createStorage(options: {
  dataDir: string;
  storage: { url: string | undefined; endpoint: string | undefined; region: string; forcePathStyle: boolean };
}): Storage {
  const { url, endpoint, region, forcePathStyle } = options.storage;
  if (!url) return createLocalStorage(options.dataDir);
  return createS3Storage({ ...parseStorageUrl(url), endpoint, region, forcePathStyle });
}
