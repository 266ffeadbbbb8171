import { hash } from 'node:crypto';

/** Codes and tokens carry ≥ 256 random bits, so a plain SHA-256 is the right hash: lookups stay an index probe. */
export function sha256(value: string): string {
  return hash('sha256', value, 'hex');
}
