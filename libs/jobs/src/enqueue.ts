import type { PgBoss } from 'pg-boss';
import type pg from 'pg';
import { payloadSchemas, singletonKeys, type Payload, type QueueName } from './queues';

type SendOptions = NonNullable<Parameters<PgBoss['send']>[2]>;

/** pg-boss's database interface over one connection, so a job commits with the caller's transaction. */
export function transactionDb(client: pg.PoolClient | pg.Client) {
  return {
    executeSql: async (text: string, values?: unknown[]) => {
      const result = await client.query(text, values as unknown[]);
      return { rows: result.rows };
    },
  };
}

/**
 * Validates the payload against the queue's schema and sends it, inside `client`'s transaction when given.
 * Resolves to null when pg-boss refused the job as a duplicate of a pending one (same singleton key).
 */
export async function enqueue<Q extends QueueName>(
  boss: PgBoss,
  queue: Q,
  payload: Payload<Q>,
  options: { client?: pg.PoolClient; singletonKey?: string; startAfter?: number } = {},
): Promise<string | null> {
  const data = payloadSchemas[queue].parse(payload);
  const sendOptions: SendOptions = {};
  if (options.client) sendOptions.db = transactionDb(options.client);
  const singletonKey = options.singletonKey ?? (singletonKeys[queue] as ((p: Payload<Q>) => string) | undefined)?.(data as Payload<Q>);
  if (singletonKey) sendOptions.singletonKey = singletonKey;
  if (options.startAfter !== undefined) sendOptions.startAfter = options.startAfter;
  return boss.send(queue, data as object, sendOptions);
}
