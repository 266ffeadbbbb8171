/**
 * What writing a source's vector costs PostgreSQL (issue 22, the 2026-11-25 report's ingest regression):
 * the worker's write into `source_semantics` (a narrow row per source), beside the same write into the
 * `sources` row as it was before (vector, version, pending and seq columns, the pending and seq partial
 * indexes), which changed indexed columns, so every write was a non-HOT update that re-inserted the
 * source's whole search_doc into its GIN index. Both on the same sources, 200 per statement as the
 * worker writes them; milliseconds and WAL bytes per source.
 *
 *   npm run bench:embed-writes      (BENCH_EMBED_SOURCES=10000, BENCH_EMBED_WORDS=150)
 */
import { pathToFileURL } from 'node:url';
import { WRITE_SOURCE_VECTORS } from '@loupe/sources';
import { machine, round, startBenchService, type BenchTarget } from './lib';

export interface EmbedWriteFigures {
  sources: number;
  wordsPerSource: number;
  /** The write the worker does now. */
  sideTable: { msPerSource: number; walBytesPerSource: number };
  /** The same write into the wide sources row, as before. */
  sourcesRow: { msPerSource: number; walBytesPerSource: number };
  machine: string;
}

const SLICE = 200;

export async function runEmbedWritesBench(service?: BenchTarget): Promise<EmbedWriteFigures> {
  const owned = !service;
  service ??= await startBenchService();
  const q = (sql: string, params: unknown[] = []) => service!.pool.query(sql, params);
  const n = Number(process.env.BENCH_EMBED_SOURCES ?? 10_000);
  const words = Number(process.env.BENCH_EMBED_WORDS ?? 150);
  const ws = `ws_embedbench${Date.now()}`;
  try {
    await q(`INSERT INTO workspaces (id, name) VALUES ($1, 'embed writes bench')`, [ws]);
    // Conversations of `words` words over a 3,000-word vocabulary: a realistic spread of lexemes per source.
    const vocabulary = Array.from({ length: 3000 }, (_, i) => `w${(i * 7919) % 100_000}x`);
    const ids = Array.from({ length: n }, (_, i) => `src_eb${String(i).padStart(9, '0')}`);
    for (let start = 0; start < n; start += 1000) {
      const slice = ids.slice(start, start + 1000);
      const texts = slice.map((_, k) => Array.from({ length: words }, (_, j) => vocabulary[((start + k) * 31 + j * 17) % vocabulary.length]).join(' '));
      await q(
        `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, tags, status, search_doc)
         SELECT x.id, $1, 'prd_bench', '{}', 'call', 'evidence', 'Call ' || x.id, now(), '{}', 'ready', to_tsvector('english', x.t)
           FROM unnest($2::text[], $3::text[]) AS x(id, t)`,
        [ws, slice, texts],
      );
    }
    // The layout before: the same sources with the semantic columns and their partial indexes on the row.
    await q(`DROP TABLE IF EXISTS bench_wide_sources`);
    await q(`CREATE TABLE bench_wide_sources (LIKE sources INCLUDING DEFAULTS INCLUDING INDEXES)`);
    await q(`ALTER TABLE bench_wide_sources ADD COLUMN semantic_pending boolean NOT NULL DEFAULT true, ADD COLUMN semantic_vector bytea,
               ADD COLUMN semantic_version text, ADD COLUMN semantic_seq bigint`);
    await q(`CREATE INDEX ON bench_wide_sources (workspace_id, id) WHERE semantic_pending`);
    await q(`CREATE INDEX ON bench_wide_sources (workspace_id, semantic_seq) WHERE semantic_seq IS NOT NULL`);
    await q(`INSERT INTO bench_wide_sources SELECT s.* FROM sources s WHERE s.workspace_id = $1`, [ws]);
    await q(`VACUUM ANALYZE bench_wide_sources`);
    await q(`VACUUM ANALYZE source_semantics`);

    const vector = Buffer.alloc(104, 7);
    const measure = async (sql: string) => {
      const before = (await q(`SELECT pg_current_wal_lsn() AS lsn`)).rows[0].lsn as string;
      const started = performance.now();
      for (let start = 0; start < n; start += SLICE) {
        const slice = ids.slice(start, start + SLICE);
        // The seq each row had when its text was read: none yet, as for a new source.
        await q(sql, [ws, 'bench', slice, slice.map(() => vector), ...(sql === WRITE_SOURCE_VECTORS ? [slice.map(() => null)] : [])]);
      }
      const ms = performance.now() - started;
      const wal = Number((await q(`SELECT pg_wal_lsn_diff(pg_current_wal_lsn(), $1) AS bytes`, [before])).rows[0].bytes);
      return { msPerSource: round(ms / n, 3), walBytesPerSource: Math.round(wal / n) };
    };
    const sideTable = await measure(WRITE_SOURCE_VECTORS);
    const sourcesRow = await measure(
      `UPDATE bench_wide_sources s SET semantic_vector = x.v, semantic_version = $2, semantic_pending = false, semantic_seq = nextval('source_semantic_seq')
         FROM unnest($3::text[], $4::bytea[]) AS x(id, v) WHERE s.workspace_id = $1 AND s.id = x.id`,
    );
    return { sources: n, wordsPerSource: words, sideTable, sourcesRow, machine: machine() };
  } finally {
    await q(`DROP TABLE IF EXISTS bench_wide_sources`);
    await q(`DELETE FROM workspaces WHERE id = $1`, [ws]);
    await q(`DELETE FROM sources WHERE workspace_id = $1`, [ws]);
    if (owned) await service.close();
  }
}

if (import.meta.url === pathToFileURL(process.argv[1]!).href) {
  const f = await runEmbedWritesBench();
  console.log(`Writing a source's vector, ${f.sources} sources of ${f.wordsPerSource} words, 200 per statement (${f.machine})`);
  console.log(`  source_semantics (now):        ${f.sideTable.msPerSource} ms and ${f.sideTable.walBytesPerSource} WAL bytes per source`);
  console.log(`  the sources row (before):      ${f.sourcesRow.msPerSource} ms and ${f.sourcesRow.walBytesPerSource} WAL bytes per source`);
}
