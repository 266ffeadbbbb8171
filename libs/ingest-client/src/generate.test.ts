import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { chunks, idempotencyKeyOf } from './index';
import { generatedTypes } from './generate';

describe('the generated types', () => {
  it('are what openapi-typescript makes of the published document today (run `npm run generate -w @loupe/ingest-client` after changing it)', async () => {
    const committed = await readFile(path.resolve(import.meta.dirname, 'generated/api.ts'), 'utf8');
    expect(committed).toBe(await generatedTypes());
  });
});

describe('chunks', () => {
  it('splits at 1,000 records and at 5 MB, keeping order and indexes', () => {
    const small = Array.from({ length: 2500 }, (_, i) => ({ i }));
    expect([...chunks(small)].map((c) => [c.first, c.count])).toEqual([[0, 1000], [1000, 1000], [2000, 500]]);
    const big = Array.from({ length: 12 }, (_, i) => ({ i, pad: 'x'.repeat(1024 * 1024) }));
    const parts = [...chunks(big)];
    expect(parts.map((c) => c.count)).toEqual([4, 4, 4]);
    for (const c of parts) expect(Buffer.byteLength(c.body)).toBeLessThanOrEqual(5 * 1024 * 1024);
    expect(JSON.parse(parts[1]!.body)[0].i).toBe(4);
  });

  it('gives the same body the same Idempotency-Key', () => {
    expect(idempotencyKeyOf('[1]')).toBe(idempotencyKeyOf('[1]'));
    expect(idempotencyKeyOf('[1]')).not.toBe(idempotencyKeyOf('[2]'));
    expect(idempotencyKeyOf('[1]').length).toBeLessThanOrEqual(256);
  });
});
