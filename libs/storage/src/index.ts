export {
  assertKey, StorageError, StorageKeyError, StorageNotFoundError, StorageTooLargeError,
  type PutOptions, type Storage, type StoredObject,
} from './storage';
export { createLocalStorage } from './local';
export { createS3Storage, parseStorageUrl, type S3StorageOptions } from './s3';
export { createStorage } from './from-config';
