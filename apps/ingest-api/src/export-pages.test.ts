import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type pg from 'pg';
import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { EXPORT_SOURCE_PAGE_BYTES, exportLines, type ExportOptions } from './export/lines';

// Issue 41 finding 10a: an export reads its sources in statements bounded by bytes, not 100 at a time
// whatever their size (100 long transcripts were hundreds of MB in the shared process).
let t: TestDatabase;
let ws: string;
const MB = 1024 * 1024;
beforeAll(async () => {
  t = await createTestDatabase();
  ws = newId('ws');
  const product = newId('prod');
  await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, 'W']);
  await t.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [product, ws, 'P']);
  // five sources of 3 MB of segments each (three 1 MB turns), and two small ones after them
  for (let i = 0; i < 7; i++) {
    const id = `src_big_${i}`;
    await t.pool.query(
      `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, participants, status, segment_count)
       VALUES ($1, $2, $3, '{}', 'call', 'evidence', $4, '2026-01-02T03:04:05Z', $5, 'ready', 3)`,
      [id, ws, product, `Call ${i}`, JSON.stringify([{ id: `p-${i}`, role: 'external' }])],
    );
    const size = i < 5 ? MB : 100;
    // varied text (random letters compress little, as real speech does not either), escapes included
    for (let p = 0; p < 3; p++) {
      const text = `"Turn ${p}"\n${Array.from({ length: size / 16 }, () => Math.random().toString(36).slice(2, 14).padEnd(12, 'x')).join(' ¦ ')}`;
      await t.pool.query(`INSERT INTO source_segments (source_id, position, kind, speaker, text, start_ms) VALUES ($1, $2, 'turn', $3, $4, $5)`,
        [id, p, p % 2 ? 'Bo' : 'Ana', text, p * 1000]);
    }
  }
}, 120_000);
afterAll(() => t.close());

/** Every line of the export, and what each statement that read sources returned (its rows, its bytes). */
async function exported(options?: ExportOptions) {
  const reads: Array<{ rows: number; bytes: number }> = [];
  const db: Pick<pg.Pool, 'query'> = {
    query: (async (text: string, values: unknown[]) => {
      const result = await t.pool.query(text, values);
      if (/FROM sources s/.test(text)) reads.push({ rows: result.rows.length, bytes: Buffer.byteLength(JSON.stringify(result.rows)) });
      return result;
    }) as unknown as pg.Pool['query'],
  };
  const lines: string[] = [];
  for await (const line of exportLines(db, ws, undefined, options)) lines.push(line);
  return { lines, reads };
}

describe('export of large sources', () => {
  it('reads them in statements of about 8 MB at most, and writes exactly what one unbounded statement would', async () => {
    const bounded = await exported();
    // 15 MB of text: two large sources a statement, then the last large one with the small ones
    expect(bounded.reads.map((r) => r.rows)).toEqual([2, 2, 3]);
    for (const read of bounded.reads) expect(read.bytes).toBeLessThanOrEqual(8 * MB);
    expect(EXPORT_SOURCE_PAGE_BYTES).toBe(8 * MB);
    const unbounded = await exported({ sourcePageBytes: Number.MAX_SAFE_INTEGER });
    expect(unbounded.reads.map((r) => r.rows)).toEqual([7]);
    expect(bounded.lines.length).toBe(7 + 1);
    expect(bounded.lines).toEqual(unbounded.lines);
    expect(JSON.parse(bounded.lines[0]!).source.segments[0].text).toMatch(/^"Turn 0"\n/);
  }, 120_000);

  it('reads a source larger than the budget on its own', async () => {
    const { reads, lines } = await exported({ sourcePageBytes: 2 * MB });
    expect(reads.map((r) => r.rows)).toEqual([1, 1, 1, 1, 1, 2]);
    expect(lines.map((l) => JSON.parse(l).source?.id ?? 'end')).toEqual([...Array.from({ length: 7 }, (_, i) => `src_big_${i}`), 'end']);
  }, 120_000);
});
