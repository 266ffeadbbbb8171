import { AsyncLocalStorage } from 'node:async_hooks';
import { Provider, errors } from 'oidc-provider';
import type pg from 'pg';
import type { Clock } from '@loupe/http';
import { sha256 } from './hash';

/** How long a retired refresh token is answered `invalid_grant` without revoking its family (spec 5.6 rule 2). */
export const REFRESH_GRACE_MS = 30_000;

/** The token request in progress, when it runs through `inTokenTransaction`: its connection once it consumed something. */
const tokenRequest = new AsyncLocalStorage<{ client?: pg.PoolClient }>();

/**
 * Runs `fn` (a token request) so that what it consumes (a code, a refresh token) and the tokens it
 * then issues commit together, or not at all: the transaction begins at the consume, on a connection
 * of its own, and ends here. Without it a database lost between the two retires a refresh token
 * without a successor, and the client can never refresh again. `fn` answers whether to commit.
 */
export async function inTokenTransaction(fn: () => Promise<boolean>): Promise<void> {
  const request: { client?: pg.PoolClient } = {};
  let failure: unknown;
  try {
    const keep = await tokenRequest.run(request, fn);
    await request.client?.query(keep ? 'COMMIT' : 'ROLLBACK');
  } catch (error) {
    failure = error;
    await request.client?.query('ROLLBACK').catch(() => {});
    throw error;
  } finally {
    request.client?.release(failure instanceof Error ? failure : undefined);
  }
}

type Payload = Record<string, unknown> & { jti?: string; grantId?: string; uid?: string; exp?: number };

// Named, so each connection parses and plans them once: every token request runs several.
const FIND = { name: 'oauth-model-find', text: 'SELECT payload, consumed_at FROM oauth_models WHERE model = $1 AND id_hash = $2' };
/** A refresh token with its grant (a refresh reads both, one after the other): one round trip for two. */
const FIND_REFRESH_TOKEN = {
  name: 'oauth-model-find-refresh-token',
  text: `SELECT t.payload, t.consumed_at, t.grant_id, g.payload AS grant_payload, g.consumed_at AS grant_consumed_at
           FROM oauth_models t
           LEFT JOIN oauth_models g ON g.model = 'Grant' AND g.id_hash = encode(sha256(convert_to(t.grant_id, 'UTF8')), 'hex')
          WHERE t.model = 'RefreshToken' AND t.id_hash = $1`,
};
const CONSUME = {
  name: 'oauth-model-consume',
  text: 'UPDATE oauth_models SET consumed_at = $3 WHERE model = $1 AND id_hash = $2 AND consumed_at IS NULL',
};
const SAVE = `INSERT INTO oauth_models (model, id_hash, grant_id, uid, payload, expires_at, created_at)
              VALUES ($1, $2, $3, $4, $5, $6, $7)
              ON CONFLICT (model, id_hash) DO UPDATE SET grant_id = $3, uid = $4, payload = $5, expires_at = $6`;
const UPSERT = { name: 'oauth-model-upsert', text: SAVE };
/** The refresh token, and its grant's lifetime extended to the token's ($8: the grant's id hash, $9: the token's exp). */
const UPSERT_REFRESH_TOKEN = {
  name: 'oauth-model-upsert-refresh-token',
  text: `WITH saved AS (${SAVE})
         UPDATE oauth_models
            SET expires_at = GREATEST(expires_at, $6),
                payload = jsonb_set(payload, '{exp}', to_jsonb(GREATEST(COALESCE((payload->>'exp')::bigint, 0), $9::bigint)))
          WHERE model = 'Grant' AND id_hash = $8`,
};

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
  // Registered clients never change (there is no registration management), so the ones read are kept:
  // every token request looks its client up.
  const clients = new Map<string, Payload>();
  // The grant read with a refresh token, for the same request's grant lookup that follows (keyed by its koa context).
  const grantsRead = new WeakMap<object, Map<string, Payload>>();
  return class PostgresAdapter {
    constructor(readonly model: string) {}

    /** The token request's transaction once it consumed something, else the pool. */
    private get db(): Pick<pg.Pool, 'query'> {
      return tokenRequest.getStore()?.client ?? pool;
    }

    /** Opens the token request's transaction (see `inTokenTransaction`) for a consume. */
    private async consuming(): Promise<Pick<pg.Pool, 'query'>> {
      const request = tokenRequest.getStore();
      if (!request || request.client) return this.db;
      request.client = await pool.connect();
      await request.client.query('BEGIN');
      return request.client;
    }

    async upsert(id: string, payload: Payload, expiresIn?: number): Promise<void> {
      const { jti: _jti, ...stored } = payload;
      const expiresAt = expiresIn ? new Date(clock.now() + expiresIn * 1000) : null;
      const row = [this.model, sha256(id), payload.grantId ?? null, payload.uid ?? null, stored, expiresAt, new Date(clock.now())];
      // A rotated refresh token lives 30 days from its rotation; its grant must outlive it (same statement: one round trip per rotation).
      if (this.model === 'RefreshToken' && payload.grantId && expiresAt) {
        await this.db.query({ ...UPSERT_REFRESH_TOKEN, values: [...row, sha256(payload.grantId), Math.ceil(expiresAt.getTime() / 1000)] });
      } else {
        await this.db.query({ ...UPSERT, values: row });
      }
    }

    async find(id: string): Promise<Payload | undefined> {
      if (typeof id !== 'string' || id.length === 0 || id.length > 512) return undefined;
      const known = this.model === 'Client' ? clients.get(id) : this.model === 'Grant' ? this.grantReadWithToken(id) : undefined;
      if (known) return { ...known };
      if (this.model === 'RefreshToken') return this.findRefreshToken(id);
      const { rows } = await this.db.query<{ payload: Payload; consumed_at: Date | null }>({ ...FIND, values: [this.model, sha256(id)] });
      const row = rows[0];
      if (!row) return undefined;
      const found = this.revive(id, row.payload, row.consumed_at);
      if (this.model === 'Client') {
        if (clients.size >= 10_000) clients.clear();
        clients.set(id, { ...found });
      }
      return found;
    }

    private async findRefreshToken(id: string): Promise<Payload | undefined> {
      const { rows } = await this.db.query<{ payload: Payload; consumed_at: Date | null; grant_id: string | null; grant_payload: Payload | null; grant_consumed_at: Date | null }>(
        { ...FIND_REFRESH_TOKEN, values: [sha256(id)] },
      );
      const row = rows[0];
      if (!row) return undefined;
      if (row.consumed_at && this.withinGrace(row.consumed_at)) return undefined;
      const ctx = Provider.ctx;
      if (ctx && row.grant_id && row.grant_payload) {
        const read = grantsRead.get(ctx) ?? new Map<string, Payload>();
        read.set(row.grant_id, this.revive(row.grant_id, row.grant_payload, row.grant_consumed_at));
        grantsRead.set(ctx, read);
      }
      return this.revive(id, row.payload, row.consumed_at);
    }

    /** The grant this request read with its refresh token, once; later lookups go to the database. */
    private grantReadWithToken(grantId: string): Payload | undefined {
      const read = Provider.ctx ? grantsRead.get(Provider.ctx) : undefined;
      const grant = read?.get(grantId);
      read?.delete(grantId);
      return grant;
    }

    async findByUid(uid: string): Promise<Payload | undefined> {
      const { rows } = await this.db.query<{ payload: Payload; consumed_at: Date | null }>(
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
      const { rowCount } = await (await this.consuming()).query({ ...CONSUME, values: [this.model, sha256(id), new Date(clock.now())] });
      if (rowCount === 0) throw new errors.InvalidGrant(`${this.model === 'RefreshToken' ? 'refresh token' : 'authorization code'} already used`);
    }

    async destroy(id: string): Promise<void> {
      await this.db.query('DELETE FROM oauth_models WHERE model = $1 AND id_hash = $2', [this.model, sha256(id)]);
      if (this.model === 'Client') clients.delete(id);
      if (this.model === 'Grant') {
        await this.db.query('UPDATE oauth_grants SET revoked_at = $2 WHERE grant_id = $1 AND revoked_at IS NULL', [id, new Date(clock.now())]);
      }
    }

    async revokeByGrantId(grantId: string): Promise<void> {
      await this.db.query('DELETE FROM oauth_models WHERE model = $1 AND grant_id = $2', [this.model, grantId]);
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
