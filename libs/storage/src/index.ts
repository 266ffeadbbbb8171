export {
  assertKey, StorageError, StorageKeyError, StorageNotFoundError, StorageTooLargeError,
  type PutOptions, type Storage, type StoredObject,
} from './storage';
export { createLocalStorage } from './local';
