import type { Provider } from 'oidc-provider';
import type pg from 'pg';
import type { Clock } from '@loupe/http';
import { modelRow, rotateRefreshToken, type Payload, type RefreshTokenRead } from './adapter';
import { sha256 } from './hash';

/** What a plain refresh sends (`resource` already checked by the token route): any other parameter goes to oidc-provider. */
const PLAIN_PARAMETERS = new Set(['grant_type', 'refresh_token', 'client_id', 'resource']);

/** Bindings and requests we do not answer here: a token carrying one goes to oidc-provider. */
const BOUND = ['expiresWithSession', 'x5t#S256', 'jkt', 'attestationJkt', 'rar'] as const;

const GTY = 'refresh_token';

const epochNow = () => Math.floor(Date.now() / 1000); // oidc-provider's own clock for exp

interface TokenModel {
  jti?: string;
  gty?: string;
  scope?: string;
  claims?: unknown;
  scopes: Set<string>;
  expiration: number;
  generateTokenId(): string;
  getValueAndPayload(): Promise<{ value: string; payload: Payload }>;
}
type TokenClass = new (fields: Record<string, unknown>) => TokenModel;
type GrantClass = new (fields: Record<string, unknown>) => { getOIDCScopeFiltered(filter: Set<string>): string };

export interface PlainRefreshDeps {
  provider: Provider;
  pool: Pick<pg.Pool, 'query'>;
  clock: Clock;
}

/**
 * The token response to a refresh_token grant in the common case, answered here rather than through
 * oidc-provider's request pipeline, with oidc-provider's own models (token values, payloads and
 * lifetimes are its), from the row the token route's rate-limit statement read (`read`), and written
 * by the rotation's one statement. The common case: a public client sending only the token (and the
 * resource), a live unused token of that client, its live grant, its user still a member.
 *
 * Undefined for anything else, and when another request rotated the token first: oidc-provider then
 * answers, errors included (a retired token's grace or replay, an expired grant, a narrowed scope).
 * Every check oidc-provider's refresh grant makes is made here first, so it can only fall through.
 */
export async function answerPlainRefresh(
  { provider, pool, clock }: PlainRefreshDeps,
  params: Record<string, unknown>,
  read: RefreshTokenRead | undefined,
): Promise<Record<string, unknown> | undefined> {
  if (params.grant_type !== GTY || !read || read.consumed_at || !read.grant_payload || read.grant_consumed_at) return undefined;
  if (!Object.entries(params).every(([name, value]) => PLAIN_PARAMETERS.has(name) && typeof value === 'string' && value !== '')) return undefined;
  const clientId = params.client_id as string;
  const token = read.payload;
  const grant = read.grant_payload;
  const now = epochNow();
  if (token.kind !== 'RefreshToken' || token.clientId !== clientId || typeof token.exp !== 'number' || token.exp <= now) return undefined;
  if (BOUND.some((binding) => token[binding] !== undefined && token[binding] !== false)) return undefined;
  if (grant.clientId !== clientId || grant.accountId !== token.accountId || typeof grant.exp !== 'number' || grant.exp <= now) return undefined;
  if (read.grant_active !== true || read.user_id !== token.accountId) return undefined;

  // A client that cannot be resolved now (a metadata document that failed to load, a database gone) is oidc-provider's to answer.
  const client = await provider.Client.find(clientId).catch(() => undefined);
  if (!client || client.clientAuthMethod !== 'none' || !client.grantTypeAllowed(GTY)) return undefined;

  const RefreshToken = provider.RefreshToken as unknown as TokenClass;
  const AccessToken = provider.AccessToken as unknown as TokenClass;
  const Grant = provider.Grant as unknown as GrantClass;
  // As oidc-provider's refresh grant rotates (lib/actions/grants/refresh_token.js).
  const successor = new RefreshToken({
    accountId: token.accountId, acr: token.acr, amr: token.amr, authTime: token.authTime, claims: token.claims, client,
    expiresWithSession: token.expiresWithSession, iiat: token.iiat, grantId: token.grantId, gty: token.gty, nonce: token.nonce,
    resource: token.resource, rotations: typeof token.rotations === 'number' ? token.rotations + 1 : 1, scope: token.scope,
    sessionUid: token.sessionUid, sid: token.sid,
  });
  if (successor.gty && !successor.gty.endsWith(GTY)) successor.gty = `${successor.gty} ${GTY}`;
  const accessToken = new AccessToken({
    accountId: token.accountId, client, expiresWithSession: token.expiresWithSession, grantId: token.grantId, gty: successor.gty,
    sessionUid: token.sessionUid, sid: token.sid,
  });
  accessToken.claims = successor.claims;
  accessToken.scope = new Grant(grant).getOIDCScopeFiltered(successor.scopes);

  // As the models' save() does, with the row for the rotation's statement instead of the adapter's upsert.
  const issue = async (model: TokenModel, kind: string) => {
    model.jti = model.generateTokenId();
    const { value, payload } = await model.getValueAndPayload();
    return { value, values: modelRow(kind, value, payload, model.expiration, clock).values };
  };
  const [refreshRow, accessRow] = await Promise.all([issue(successor, 'RefreshToken'), issue(accessToken, 'AccessToken')]);
  const consume = { model: 'RefreshToken', idHash: sha256(params.refresh_token as string), at: new Date(clock.now()) };
  if (!(await rotateRefreshToken(pool, consume, refreshRow.values, accessRow.values))) return undefined;
  return {
    access_token: accessRow.value,
    expires_in: accessToken.expiration,
    refresh_token: refreshRow.value,
    scope: successor.scope ? accessToken.scope : accessToken.scope || undefined,
    token_type: 'bearer',
  };
}
