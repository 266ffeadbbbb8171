import { randomFillSync } from 'node:crypto';

const ALPHABET = '0123456789abcdefghjkmnpqrstvwxyz';

// Random bytes drawn in bulk: one system call per 256 ids instead of one per id.
const pool = Buffer.alloc(4096);
let offset = pool.length;

/**
 * A prefixed, time-ordered identifier (ULID layout: 48-bit milliseconds then
 * 80 random bits, Crockford base32, lower case). Sorting ids sorts by creation.
 */
export function newId(prefix: string, now = Date.now()): string {
  let time = '';
  let t = now;
  for (let i = 0; i < 10; i++) {
    time = ALPHABET[t % 32] + time;
    t = Math.floor(t / 32);
  }
  if (offset + 16 > pool.length) {
    randomFillSync(pool);
    offset = 0;
  }
  let rand = '';
  // 16 characters of 5 uniformly random bits each (256 is a multiple of 32): 80 bits
  for (let i = 0; i < 16; i++) rand += ALPHABET[pool[offset++]! & 31];
  return `${prefix}_${time}${rand}`;
}
