import { configuredEmbeddingVersion, embeddingsEndpoint, LEXICAL_DIMS } from '@loupe/semantics';
import type pg from 'pg';

/**
 * `npm run admin -- embeddings status`: the embedding configured (EMBEDDINGS_URL and EMBEDDINGS_MODEL, or the
 * built-in word vectors), its dimensions as stored, and per kind how many rows are embedded with it and how
 * many are left (new, or embedded with another model: the worker re-embeds them in the background).
 */
export async function embeddingsStatus(pool: Pick<pg.Pool, 'query'>, embeddings: { url: string; model: string } | undefined): Promise<string[]> {
  const version = configuredEmbeddingVersion(embeddings);
  const { rows } = await pool.query<{ sources_done: string; sources_left: string; signals_done: string; signals_left: string; source_bytes: number | null; signal_bytes: number | null }>(
    `SELECT (SELECT count(*) FROM source_semantics WHERE NOT pending AND version = $1) AS sources_done,
            (SELECT count(*) FROM source_semantics WHERE pending OR version IS DISTINCT FROM $1) AS sources_left,
            (SELECT count(*) FROM signals WHERE embedding_version = $1) AS signals_done,
            (SELECT count(*) FROM signals WHERE embedding_version IS DISTINCT FROM $1) AS signals_left,
            (SELECT octet_length(vector) FROM source_semantics WHERE version = $1 AND vector IS NOT NULL LIMIT 1) AS source_bytes,
            (SELECT octet_length(embedding) FROM signals WHERE embedding_version = $1 AND embedding IS NOT NULL LIMIT 1) AS signal_bytes`,
    [version],
  );
  const r = rows[0]!;
  // A source's vector is the dense part quantised (a 4-byte scale, a byte per dimension); a signal's is float32, dense then lexical.
  const dense = r.source_bytes !== null ? r.source_bytes - 4 : r.signal_bytes !== null ? r.signal_bytes / 4 - LEXICAL_DIMS : undefined;
  const n = (v: string) => Number(v).toLocaleString('en-US');
  return [
    `Model: ${embeddings ? `${embeddings.model} at ${embeddingsEndpoint(embeddings.url)}` : 'the built-in word vectors'} (version ${version})`,
    `Dimensions: ${dense !== undefined ? `${dense} from the model + ${LEXICAL_DIMS} lexical` : 'not known yet (nothing embedded with this model)'}`,
    `Sources: ${n(r.sources_done)} embedded, ${n(r.sources_left)} left`,
    `Signals: ${n(r.signals_done)} embedded, ${n(r.signals_left)} left`,
    ...(Number(r.sources_left) + Number(r.signals_left) > 0
      ? ['The worker embeds what is left in the background (a model change is picked up when it starts); search answers by words for the sources left.']
      : []),
  ];
}
