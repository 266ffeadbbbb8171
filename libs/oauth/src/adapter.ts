import { Provider, errors } from 'oidc-provider';
import type pg from 'pg';
import type { Clock } from '@loupe/http';
import { sha256 } from './hash';

/** How long a retired refresh token is answered `invalid_grant` without revoking its family (spec 5.6 rule 2). */
export const REFRESH_GRACE_MS = 30_000;

type Payload = Record<string, unknown> & { jti?: string; grantId?: string; uid?: string; exp?: number };

interface AdapterOptions {
  pool: pg.Pool;
  clock: Clock;
}

/**
 * oidc-provider's storage in PostgreSQL (table `oauth_models`). Rows are keyed by the SHA-256 of
 * their id and the raw id (`jti`) is never stored, so a dump holds no usable code or token.
 * `consume` is one conditional update: of two concurrent uses of a code or refresh token exactly
 * one succeeds, the other gets `invalid_grant`.
 */
export function createAdapterClass({ pool, clock }: AdapterOptions) {
  return class PostgresAdapter {
    constructor(readonly model: string) {}

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const { jti: _jti, ...stored } = payload;
      const expiresAt = expiresIn ? new Date(clock.now() + expiresIn * 1000) : null;
      await pool.query(
        `INSERT INTO oauth_models (model, id_hash, grant_id, uid, payload, expires_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, $7)
         ON CONFLICT (model, id_hash) DO UPDATE SET grant_id = $3, uid = $4, payload = $5, expires_at = $6`,
        [this.model, sha256(id), payload.grantId ?? null, payload.uid ?? null, stored, expiresAt, new Date(clock.now())],
      );
      // A rotated refresh token lives 30 days from its rotation; its grant must outlive it.
      if (this.model === 'RefreshToken' && payload.grantId && expiresAt) {
        await pool.query(
          `UPDATE oauth_models
              SET expires_at = GREATEST(expires_at, $2),
                  payload = jsonb_set(payload, '{exp}', to_jsonb(GREATEST(COALESCE((payload->>'exp')::bigint, 0), $3::bigint)))
            WHERE model = 'Grant' AND id_hash = $1`,
          [sha256(payload.grantId), expiresAt, Math.ceil(expiresAt.getTime() / 1000)],
        );
      }
    }

    async find(id: string): Promise<Payload | undefined> {
      if (typeof id !== 'string' || id.length === 0 || id.length > 512) return undefined;
      const { rows } = await pool.query<{ payload: Payload; consumed_at: Date | null }>(
        'SELECT payload, consumed_at FROM oauth_models WHERE model = $1 AND id_hash = $2',
        [this.model, sha256(id)],
      );
      const row = rows[0];
      if (!row) return undefined;
      if (row.consumed_at && this.model === 'RefreshToken' && this.withinGrace(row.consumed_at)) return undefined;
      return this.revive(id, row.payload, row.consumed_at);
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      const { rows } = await pool.query<{ payload: Payload; consumed_at: Date | null }>(
        'SELECT payload, consumed_at FROM oauth_models WHERE model = $1 AND uid = $2 LIMIT 1',
        [this.model, uid],
      );
      const row = rows[0];
      // Sessions keep their id in the payload only as the hash key; the model looks them up by uid.
      return row ? { ...row.payload, ...(row.consumed_at ? { consumed: toEpoch(row.consumed_at) } : {}) } : undefined;
    }

    async findByUserCode(): Promise<undefined> {
      return undefined; // no device flow
    }

    async consume(id: string): Promise<void> {
      const { rowCount } = await pool.query(
        'UPDATE oauth_models SET consumed_at = $3 WHERE model = $1 AND id_hash = $2 AND consumed_at IS NULL',
        [this.model, sha256(id), new Date(clock.now())],
      );
      if (rowCount === 0) throw new errors.InvalidGrant(`${this.model === 'RefreshToken' ? 'refresh token' : 'authorization code'} already used`);
    }

    async destroy(id: string): Promise<void> {
      await pool.query('DELETE FROM oauth_models WHERE model = $1 AND id_hash = $2', [this.model, sha256(id)]);
      if (this.model === 'Grant') {
        await pool.query('UPDATE oauth_grants SET revoked_at = $2 WHERE grant_id = $1 AND revoked_at IS NULL', [id, new Date(clock.now())]);
      }
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await pool.query('DELETE FROM oauth_models WHERE model = $1 AND grant_id = $2', [this.model, grantId]);
    }

    /** Within the grace window only the token endpoint is kept from seeing the retired token. */
    private withinGrace(consumedAt: Date): boolean {
      return Provider.ctx?.oidc?.route === 'token' && clock.now() - consumedAt.getTime() < REFRESH_GRACE_MS;
    }

    private revive(id: string, payload: Payload, consumedAt: Date | null): Payload {
      const out: Payload = { ...payload };
      if ('kind' in payload || this.model !== 'Client') out.jti = id;
      if (consumedAt) out.consumed = toEpoch(consumedAt);
      return out;
    }
  };
}

function toEpoch(date: Date): number {
  return Math.floor(date.getTime() / 1000);
}
