import { createHash, randomUUID } from 'node:crypto';
import type pg from 'pg';
import { ApiError } from './errors';

export const IDEMPOTENCY_TTL_MS = 24 * 3600 * 1000;
/** A claim older than this whose request never finished (a crashed process) may be taken over. */
export const IDEMPOTENCY_STALE_MS = 2 * 60 * 1000;


export type IdempotencyClaim =
  | { kind: 'owner'; token: string }
  | { kind: 'replay'; status: number; body: string }
  | { kind: 'mismatch' }
  | { kind: 'in_flight' };

export function requestFingerprint(parts: (string | Buffer)[]): string {
  const h = createHash('sha256');
  for (const p of parts) {
    h.update(String(Buffer.byteLength(p)));
    h.update(':');
    h.update(p);
  }
  return h.digest('hex');
}

type Queryable = Pick<pg.Pool, 'query'>;

/**
 * Keys are per workspace. The first request with a key claims it; a later one gets
 * the stored answer when its body is identical, `mismatch` when it differs, and
 * `in_flight` while the first is still running. Keys live 24 hours.
 */
export function createIdempotencyStore(pool: pg.Pool, clock: { now(): number }) {
  let calls = 0;
  return {
    async claim(workspaceId: string, key: string, fingerprint: string): Promise<IdempotencyClaim> {
      const now = clock.now();
      if (++calls % 200 === 0) {
        pool.query('DELETE FROM idempotency_keys WHERE expires_at < $1', [new Date(now)]).catch(() => {});
      }
      const token = randomUUID();
      const { rowCount } = await pool.query(
        `INSERT INTO idempotency_keys (workspace_id, key, request_hash, owner_token, state, created_at, expires_at)
         VALUES ($1, $2, $3, $7, 'in_flight', $4, $5)
         ON CONFLICT (workspace_id, key) DO UPDATE
           SET request_hash = EXCLUDED.request_hash, owner_token = EXCLUDED.owner_token, state = 'in_flight',
               response_status = NULL, response_body = NULL, created_at = EXCLUDED.created_at, expires_at = EXCLUDED.expires_at
         WHERE idempotency_keys.expires_at < $4
            OR (idempotency_keys.state = 'in_flight' AND idempotency_keys.created_at < $6)`,
        [workspaceId, key, fingerprint, new Date(now), new Date(now + IDEMPOTENCY_TTL_MS), new Date(now - IDEMPOTENCY_STALE_MS), token],
      );
      if (rowCount === 1) return { kind: 'owner', token };
      const { rows } = await pool.query<{ request_hash: string; state: string; response_status: number | null; body: string | null }>(
        `SELECT request_hash, state, response_status, response_body::text AS body
           FROM idempotency_keys WHERE workspace_id = $1 AND key = $2`,
        [workspaceId, key],
      );
      const row = rows[0];
      if (!row) return this.claim(workspaceId, key, fingerprint); // expired and swept meanwhile
      if (row.request_hash !== fingerprint) return { kind: 'mismatch' };
      if (row.state !== 'complete' || row.response_status === null || row.body === null) return { kind: 'in_flight' };
      return { kind: 'replay', status: row.response_status, body: row.body };
    },

    /**
     * Records the answer; pass the transaction's client so it commits with the data. Throws 409
     * when the claim is no longer ours (taken over after going stale), which rolls that transaction back.
     */
    async complete(db: Queryable, workspaceId: string, key: string, token: string, status: number, body: string) {
      const { rowCount } = await db.query(
        `UPDATE idempotency_keys SET state = 'complete', response_status = $4, response_body = $5::json
          WHERE workspace_id = $1 AND key = $2 AND owner_token = $3 AND state = 'in_flight'`,
        [workspaceId, key, token, status, body],
      );
      if (rowCount !== 1) {
        throw new ApiError(409, 'IDEMPOTENCY_KEY_IN_USE',
          'This request took too long and a newer request with the same Idempotency-Key took it over; nothing was stored by this one. Retry to get that request\'s answer', {
            retryAfter: 1, headers: { 'retry-after': '1' },
          });
      }
    },

    /** Forgets our claim when the request failed in a way a retry may fix (5xx). */
    async release(workspaceId: string, key: string, token: string) {
      await pool.query(
        `DELETE FROM idempotency_keys WHERE workspace_id = $1 AND key = $2 AND owner_token = $3 AND state = 'in_flight'`,
        [workspaceId, key, token],
      );
    },
  };
}

export type IdempotencyStore = ReturnType<typeof createIdempotencyStore>;
