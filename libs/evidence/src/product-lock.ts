import type pg from 'pg';

/** A product's clustering lock, held to the end of the transaction by every writer of its opportunities and their members. */
export const lockProduct = (client: Pick<pg.PoolClient, 'query'>, workspaceId: string, productId: string) =>
  client.query("SELECT pg_advisory_xact_lock(hashtextextended('opportunities:' || $1 || ':' || $2, 0))", [workspaceId, productId]);
