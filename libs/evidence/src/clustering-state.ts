import type pg from 'pg';
import { bytesToVector, vectorToBytes, type CommonComponent } from '@loupe/semantics';

/** A product's clustering: the common component its signals are centred on, and the drift since the last full clustering. */
export interface ClusteringState {
  embeddingVersion: string;
  /** The grouping method of the last full clustering (CLUSTERING_METHOD when it was saved). */
  method: string;
  common: CommonComponent;
  signalCount: number;
  changesSince: number;
}

type Db = Pick<pg.Pool, 'query'>;

export async function loadClusteringState(db: Db, workspaceId: string, productId: string): Promise<ClusteringState | undefined> {
  const { rows } = await db.query<{ embedding_version: string; clustering_method: string; mean: Buffer; direction: Buffer; signal_count: number; changes_since: number }>(
    'SELECT embedding_version, clustering_method, mean, direction, signal_count, changes_since FROM product_clusterings WHERE workspace_id = $1 AND product_id = $2',
    [workspaceId, productId],
  );
  const r = rows[0];
  if (!r) return undefined;
  return {
    embeddingVersion: r.embedding_version,
    method: r.clustering_method,
    common: { mean: bytesToVector(r.mean), direction: bytesToVector(r.direction) },
    signalCount: r.signal_count,
    changesSince: r.changes_since,
  };
}

export async function saveClusteringState(db: Db, workspaceId: string, productId: string, state: ClusteringState, now: Date): Promise<void> {
  await db.query(
    `INSERT INTO product_clusterings (workspace_id, product_id, embedding_version, clustering_method, mean, direction, signal_count, changes_since, reclustered_at)
     VALUES ($1, $2, $3, $9, $4, $5, $6, $7, $8)
     ON CONFLICT (workspace_id, product_id) DO UPDATE SET embedding_version = EXCLUDED.embedding_version, clustering_method = EXCLUDED.clustering_method,
       mean = EXCLUDED.mean, direction = EXCLUDED.direction, signal_count = EXCLUDED.signal_count, changes_since = EXCLUDED.changes_since,
       reclustered_at = EXCLUDED.reclustered_at`,
    [workspaceId, productId, state.embeddingVersion, vectorToBytes(state.common.mean), vectorToBytes(state.common.direction), state.signalCount, state.changesSince, now, state.method],
  );
}

export async function addChanges(db: Db, workspaceId: string, productId: string, changes: number): Promise<void> {
  await db.query('UPDATE product_clusterings SET changes_since = changes_since + $3 WHERE workspace_id = $1 AND product_id = $2', [workspaceId, productId, changes]);
}
