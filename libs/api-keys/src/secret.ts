import { hash, randomBytes } from 'node:crypto';

/** `<prefix>sk_<43 characters>`: 256 random bits, base64url. */
export function generateApiKey(servicePrefix: string): { key: string; displayPrefix: string; hash: string } {
  const key = `${servicePrefix}sk_${randomBytes(32).toString('base64url')}`;
  // Enough to recognise a key in a list, far too little to guess the rest.
  const displayPrefix = key.slice(0, servicePrefix.length + 3 + 6);
  return { key, displayPrefix, hash: hashApiKey(key) };
}

/** Keys carry 256 random bits, so one SHA-256 (no salt, no stretching) is the right hash: lookups stay an index probe. */
export function hashApiKey(key: string): string {
  return hash('sha256', key, 'hex');
}

export function looksLikeApiKey(value: string, servicePrefix: string): boolean {
  return value.startsWith(`${servicePrefix}sk_`) && value.length <= 256;
}
