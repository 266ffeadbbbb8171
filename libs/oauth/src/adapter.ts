import { AsyncLocalStorage } from 'node:async_hooks';
import { Provider, errors } from 'oidc-provider';
import type pg from 'pg';
import { statementBatcher, type Clock } from '@loupe/http';
import { sha256 } from './hash';

/** How long a retired refresh token is answered `invalid_grant` without revoking its family (spec 5.6 rule 2). */
export const REFRESH_GRACE_MS = 30_000;

/**
 * A refresh's writes, held until its access token is saved and then sent as one statement (`ROTATE`):
 * the retired token's consume, its successor (with its grant's extension), the access token.
 */
interface PendingRotation {
  consume: { model: string; idHash: string; at: Date };
  refreshToken?: unknown[];
}

/** The token request in progress, when it runs through `inTokenTransaction`: its connection once it consumed something. */
const tokenRequest = new AsyncLocalStorage<{ client?: pg.PoolClient; rotation?: PendingRotation }>();

/**
 * Runs `fn` (a token request) so that what it consumes (a code, a refresh token) and the tokens it
 * then issues commit together, or not at all: the transaction begins at the consume, on a connection
 * of its own, and ends here. Without it a database lost between the two retires a refresh token
 * without a successor, and the client can never refresh again. `fn` answers whether to commit.
 */
export async function inTokenTransaction(fn: () => Promise<boolean>): Promise<void> {
  // A refresh whose access token was never saved (the grant failed after its consume) writes nothing.
  const request: { client?: pg.PoolClient; rotation?: PendingRotation } = {};
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

export type Payload = Record<string, unknown> & { jti?: string; grantId?: string; uid?: string; exp?: number };

// Named, so each connection parses and plans them once: every token request runs several.
const FIND = { name: 'oauth-model-find', text: 'SELECT payload, consumed_at FROM oauth_models WHERE model = $1 AND id_hash = $2' };
/**
 * A refresh token with its grant and the user it acts for with the grant's standing (the account
 * lookup that follows): one read for four, of the token whose id hash is `idHash` (an SQL expression).
 * Also run by the token route inside its rate-limit statement, so a refresh reads nothing more here.
 */
export const refreshTokenRead = (idHash: string) => `SELECT t.payload, t.consumed_at, t.grant_id, g.payload AS grant_payload, g.consumed_at AS grant_consumed_at,
                u.id AS user_id, u.email AS user_email, u.email_verified AS user_email_verified,
                og.revoked_at IS NULL AND EXISTS (SELECT 1 FROM memberships m WHERE m.workspace_id = og.workspace_id AND m.user_id = og.user_id) AS grant_active
           FROM oauth_models t
           LEFT JOIN oauth_models g ON g.model = 'Grant' AND g.id_hash = encode(sha256(convert_to(t.grant_id, 'UTF8')), 'hex')
           LEFT JOIN oauth_grants og ON og.grant_id = t.grant_id
           LEFT JOIN users u ON u.id = og.user_id
          WHERE t.model = 'RefreshToken' AND t.id_hash = ${idHash}`;
/** A refresh token's row with its grant and user, by the hash of its id (`$1`). */
export const REFRESH_TOKEN_READ = refreshTokenRead('$1');
const FIND_REFRESH_TOKEN = { name: 'oauth-model-find-refresh-token', text: REFRESH_TOKEN_READ };

/** The columns of REFRESH_TOKEN_READ. */
export interface RefreshTokenRead {
  payload: Payload; consumed_at: Date | null; grant_id: string | null; grant_payload: Payload | null; grant_consumed_at: Date | null;
  user_id: string | null; user_email: string | null; user_email_verified: boolean | null; grant_active: boolean | null;
}

const READ_AHEAD = Symbol.for('loupe.refreshTokenReadAhead');

/**
 * Hands oidc-provider's coming lookup of a refresh token the row read already (by the token route's
 * rate-limit statement, in this request): answered once, for that token only (`row` undefined: no such token).
 */
export function readAheadRefreshToken(req: object, tokenIdHash: string, row: RefreshTokenRead | undefined): void {
  (req as { [READ_AHEAD]?: { idHash: string; row: RefreshTokenRead | undefined } })[READ_AHEAD] = { idHash: tokenIdHash, row };
}

function takeReadAhead(idHash: string): { row: RefreshTokenRead | undefined } | undefined {
  const req = Provider.ctx?.req as { [READ_AHEAD]?: { idHash: string; row: RefreshTokenRead | undefined } } | undefined;
  const ahead = req?.[READ_AHEAD];
  if (!ahead || ahead.idHash !== idHash) return undefined;
  delete req[READ_AHEAD];
  return ahead;
}
const CONSUME = {
  name: 'oauth-model-consume',
  text: 'UPDATE oauth_models SET consumed_at = $3 WHERE model = $1 AND id_hash = $2 AND consumed_at IS NULL',
};
const SAVE = `INSERT INTO oauth_models (model, id_hash, grant_id, uid, payload, expires_at, created_at)
              VALUES ($1, $2, $3, $4, $5, $6, $7)
              ON CONFLICT (model, id_hash) DO UPDATE SET grant_id = $3, uid = $4, payload = $5, expires_at = $6`;
const UPSERT = { name: 'oauth-model-upsert', text: SAVE };
/** Slack given to a grant beyond its newest refresh token when it is extended. */
const GRANT_EXTENSION_SLACK_SECONDS = 86_400;

/**
 * A grant kept alive as long as its newest refresh token (`at`: the token's expiry, `exp`: the same in
 * epoch seconds): only when the grant would end first, and then to a day past the token. A client that
 * refreshes many times a day so rewrites its grant about once a day rather than at every refresh (its
 * expiry is indexed: each rewrite wrote the row and every index of the table again).
 */
const extendGrantSql = (grantIdHash: string, at: string, exp: string, from = '') => `UPDATE oauth_models
            SET expires_at = ${at}::timestamptz + interval '${GRANT_EXTENSION_SLACK_SECONDS} seconds',
                payload = jsonb_set(payload, '{exp}', to_jsonb(${exp}::bigint + ${GRANT_EXTENSION_SLACK_SECONDS}))
          ${from} WHERE model = 'Grant' AND id_hash = ${grantIdHash}
            AND (expires_at IS NULL OR expires_at < ${at}::timestamptz OR COALESCE((payload->>'exp')::bigint, 0) < ${exp}::bigint)`;

/** The refresh token, and its grant kept alive as long ($8: the grant's id hash, $9: the token's exp). */
const UPSERT_REFRESH_TOKEN = {
  name: 'oauth-model-upsert-refresh-token',
  text: `WITH saved AS (${SAVE})
         ${extendGrantSql('$8', '$6', '$9')}`,
};

/**
 * Whole rotations in one statement, so they need no transaction: each retired refresh token consumed
 * (if nobody consumed it first), and only then its successor saved, its grant kept alive as long
 * (as UPSERT_REFRESH_TOKEN) and the access token saved. Concurrent rotations share the statement
 * (`StatementBatcher`); it answers a row for each one whose consume won: of refreshes with one token,
 * in one statement or in several, exactly one does, and the others write nothing.
 * Per rotation: $1–$3 the consume (id hash, model, at); $4–$10 the refresh token's row, $11 its grant's
 * id hash, $12 its exp; $13–$19 the access token's row.
 */
const ROTATE = {
  name: 'oauth-rotate-refresh-token',
  text: `WITH request AS (
           SELECT l.n, l.param AS consume_hash, ($2::text[])[l.n] AS consume_model, ($3::timestamptz[])[l.n] AS consume_at,
                  ($4::text[])[l.n] AS r_model, ($5::text[])[l.n] AS r_hash, ($6::text[])[l.n] AS r_grant, ($7::text[])[l.n] AS r_uid,
                  ($8::jsonb[])[l.n] AS r_payload, ($9::timestamptz[])[l.n] AS r_expires, ($10::timestamptz[])[l.n] AS r_created,
                  ($11::text[])[l.n] AS grant_hash, ($12::bigint[])[l.n] AS r_exp,
                  ($13::text[])[l.n] AS a_model, ($14::text[])[l.n] AS a_hash, ($15::text[])[l.n] AS a_grant, ($16::text[])[l.n] AS a_uid,
                  ($17::jsonb[])[l.n] AS a_payload, ($18::timestamptz[])[l.n] AS a_expires, ($19::timestamptz[])[l.n] AS a_created
             FROM batch_requests($1::text[]) AS l(param, n)
         ), consumed AS (
           -- Two requests of one token join one row: it is updated once, and returned for one of them.
           UPDATE oauth_models t SET consumed_at = r.consume_at FROM request r
            WHERE t.model = r.consume_model AND t.id_hash = r.consume_hash AND t.consumed_at IS NULL
           RETURNING r.*
         ), refresh AS (
           INSERT INTO oauth_models (model, id_hash, grant_id, uid, payload, expires_at, created_at)
           SELECT r_model, r_hash, r_grant, r_uid, r_payload, r_expires, r_created FROM consumed
           ON CONFLICT (model, id_hash) DO UPDATE SET grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid, payload = EXCLUDED.payload, expires_at = EXCLUDED.expires_at
         ), kept AS (
           ${extendGrantSql('c.grant_hash', 'c.r_expires', 'c.r_exp', 'FROM consumed c')}
         ), access AS (
           INSERT INTO oauth_models (model, id_hash, grant_id, uid, payload, expires_at, created_at)
           SELECT a_model, a_hash, a_grant, a_uid, a_payload, a_expires, a_created FROM consumed
           ON CONFLICT (model, id_hash) DO UPDATE SET grant_id = EXCLUDED.grant_id, uid = EXCLUDED.uid, payload = EXCLUDED.payload, expires_at = EXCLUDED.expires_at
         )
         SELECT n FROM consumed`,
  // The retired tokens' rows are locked in the order of their id hashes.
  lockOrder: (values: unknown[]) => values[0] as string,
};

/**
 * A model's row as `SAVE` writes it (the raw id only as its hash). A refresh token's also carries its
 * grant's id hash and its expiry in epoch seconds (`extendsGrant`): saving it keeps its grant alive as long.
 */
export function modelRow(model: string, id: string, payload: Payload, expiresIn: number | undefined, clock: Clock): { values: unknown[]; extendsGrant: boolean } {
  const { jti: _jti, ...stored } = payload;
  const expiresAt = expiresIn ? new Date(clock.now() + expiresIn * 1000) : null;
  const values = [model, sha256(id), payload.grantId ?? null, payload.uid ?? null, stored, expiresAt, new Date(clock.now())];
  if (model !== 'RefreshToken' || !payload.grantId || !expiresAt) return { values, extendsGrant: false };
  return { values: [...values, sha256(payload.grantId), Math.ceil(expiresAt.getTime() / 1000)], extendsGrant: true };
}

/**
 * One rotation (`ROTATE`, with those running beside it): consumes the retired refresh token and, only if that won, saves its
 * successor and the access token (their `modelRow` values; the refresh token's extends its grant).
 * Answers whether it won; when it did not, nothing was written.
 */
export async function rotateRefreshToken(
  db: Pick<pg.Pool, 'query'>,
  consume: { model: string; idHash: string; at: Date },
  refreshToken: unknown[],
  accessToken: unknown[],
): Promise<boolean> {
  const refreshRow = [...refreshToken, null, null].slice(0, 9); // no grant to keep alive: its id hash and exp are null
  return (await statementBatcher(db, ROTATE).run([consume.idHash, consume.model, consume.at, ...refreshRow, ...accessToken])) !== undefined;
}

/** The account a refresh acts for, read with its token (FIND_REFRESH_TOKEN): what `standingGrantUser` would answer. */
export interface GrantUserRead {
  userId: string;
  email: string;
  emailVerified: boolean;
  /** The grant is not revoked and its user still belongs to its workspace. */
  active: boolean;
}

const grantUsersRead = new WeakMap<object, Map<string, GrantUserRead>>();

/**
 * The user read with this request's refresh token for `grantId` (once; later lookups go to the
 * database): undefined when there was none; `null` when the grant no longer stands for `userId`.
 */
export function grantUserReadWithToken(ctx: object | undefined, grantId: string, userId: string): GrantUserRead | null | undefined {
  const read = ctx ? grantUsersRead.get(ctx) : undefined;
  const user = read?.get(grantId);
  if (!user) return undefined;
  read!.delete(grantId);
  return user.active && user.userId === userId ? user : null;
}

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
      const { values, extendsGrant } = modelRow(this.model, id, payload, expiresIn, clock);
      const rotation = tokenRequest.getStore()?.rotation;
      if (rotation && !rotation.refreshToken && extendsGrant) {
        rotation.refreshToken = values;
        return;
      }
      if (rotation?.refreshToken && this.model === 'AccessToken') return this.rotate(rotation, values);
      // A rotated refresh token lives 30 days from its rotation; its grant must outlive it (same statement: one round trip per rotation).
      await this.db.query({ ...(extendsGrant ? UPSERT_REFRESH_TOKEN : UPSERT), values });
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
      const idHash = sha256(id);
      const ahead = takeReadAhead(idHash);
      const row = ahead ? ahead.row : (await this.db.query<RefreshTokenRead>({ ...FIND_REFRESH_TOKEN, values: [idHash] })).rows[0];
      if (!row) return undefined;
      if (row.consumed_at && this.withinGrace(row.consumed_at)) return undefined;
      const ctx = Provider.ctx;
      if (ctx && row.grant_id && row.grant_payload) {
        const read = grantsRead.get(ctx) ?? new Map<string, Payload>();
        read.set(row.grant_id, this.revive(row.grant_id, row.grant_payload, row.grant_consumed_at));
        grantsRead.set(ctx, read);
      }
      if (ctx && row.grant_id && row.user_id) {
        const users = grantUsersRead.get(ctx) ?? new Map<string, GrantUserRead>();
        users.set(row.grant_id, { userId: row.user_id, email: row.user_email!, emailVerified: row.user_email_verified === true, active: row.grant_active === true });
        grantUsersRead.set(ctx, users);
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
      // A refresh (the token route's refresh_token grant) holds its consume for the rotation's one statement.
      const request = tokenRequest.getStore();
      const ctx = Provider.ctx;
      if (request && !request.client && !request.rotation && this.model === 'RefreshToken' && ctx?.oidc?.route === 'token' && ctx.oidc.params?.grant_type === 'refresh_token') {
        request.rotation = { consume: { model: this.model, idHash: sha256(id), at: new Date(clock.now()) } };
        return;
      }
      const { rowCount } = await (await this.consuming()).query({ ...CONSUME, values: [this.model, sha256(id), new Date(clock.now())] });
      if (rowCount === 0) throw new errors.InvalidGrant(`${this.model === 'RefreshToken' ? 'refresh token' : 'authorization code'} already used`);
    }

    /** Sends a held rotation with its access token (`row`): one statement; `invalid_grant` when another request consumed the token first. */
    private async rotate(rotation: PendingRotation, row: unknown[]): Promise<void> {
      const request = tokenRequest.getStore()!;
      request.rotation = undefined;
      if (!(await rotateRefreshToken(pool, rotation.consume, rotation.refreshToken!, row))) throw new errors.InvalidGrant('refresh token already used');
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
