import type { IncomingMessage } from 'node:http';
import { Provider, errors, type Configuration, type KoaContextWithOIDC } from 'oidc-provider';
import type pg from 'pg';
import { newId } from '@loupe/db';
import { isDatabaseUnavailable, type Clock, type Logger } from '@loupe/http';
import { createSafeFetch, type SafeFetchSettings } from '@loupe/safe-fetch';
import { createAdapterClass, grantUserReadWithToken, inTokenTransaction } from './adapter';
import { isLoopbackNative, isOurResource } from './client-rules';
import { standingGrantUser } from './grants';
import { KNOWN_CLIENTS } from './known-clients';
import { DEFAULT_SCOPES, SCOPES } from './scopes';
import { newSigningKey, randomSecret, sharedSecret } from './secrets';

export const OAUTH_TTL = {
  authorizationCode: 600,
  interaction: 600,
  accessToken: 3600,
  refreshToken: 30 * 24 * 3600,
} as const;

/** Client metadata documents (spec 5.4, 8.4): 5 s, 64 KB, no redirects, cached 5 minutes. */
export const CLIENT_METADATA_FETCH = { timeoutMs: 5000, maxBytes: 64 * 1024, cacheSeconds: 300 } as const;

export interface OAuthProviderDeps {
  pool: pg.Pool;
  clock: Clock;
  /** The public base URL: the issuer, and the host of /api/mcp. */
  issuer: string;
  servicePrefix: string;
  /** The page oidc-provider shows when it cannot send an error back to the client. */
  renderError: (ctx: KoaContextWithOIDC, error: { error: string; error_description?: string }) => void | Promise<void>;
  /** Behind a TLS-terminating proxy: trust X-Forwarded-Proto so cookies are marked Secure. */
  trustProxy?: boolean;
  /** Settings of the SSRF-safe fetcher used for client metadata documents (tests allow loopback and a test CA). */
  fetchSettings?: SafeFetchSettings;
  /** Access-token lifetime in seconds (config ACCESS_TOKEN_TTL_SECONDS); the spec's hour when absent. */
  accessTokenTtlSeconds?: number;
  /** Where a client metadata document that could not be fetched is reported, with its cause (the page only says it failed). */
  log?: Logger;
}

/** A token request that met a database it cannot reach: 503, retry (nothing was changed). */
export const TOKEN_ENDPOINT_UNAVAILABLE = Object.freeze({
  error: 'temporarily_unavailable',
  error_description: 'The service cannot reach its database right now and nothing was changed; retry in a moment',
});

export const mcpResourceUrl = (issuer: string) => `${issuer}/api/mcp`;
export const knownClientId = (issuer: string, slug: string) => `${issuer}/oauth/clients/${slug}`;

const NO_GRANTABLE_SCOPE = Symbol('loupe.noGrantableScope');

/** Set by the authorization pre-check when none of the requested scopes can be granted: the request ends with `invalid_scope`. */
export function markNoGrantableScope(req: IncomingMessage) {
  (req as IncomingMessage & { [NO_GRANTABLE_SCOPE]?: boolean })[NO_GRANTABLE_SCOPE] = true;
}

/**
 * RFC 8414 metadata, exactly the fields of spec 4.2 plus the metadata-document flag and RFC 9207's flag:
 * every authorization response (success or error) carries `iss`, which MCP 2026-07-28 clients validate.
 */
export function authorizationServerMetadata(issuer: string) {
  return {
    issuer,
    authorization_endpoint: `${issuer}/oauth/authorize`,
    token_endpoint: `${issuer}/oauth/token`,
    registration_endpoint: `${issuer}/oauth/register`,
    userinfo_endpoint: `${issuer}/oauth/userinfo`,
    response_types_supported: ['code'],
    grant_types_supported: ['authorization_code', 'refresh_token'],
    code_challenge_methods_supported: ['S256'],
    token_endpoint_auth_methods_supported: ['none'],
    scopes_supported: [...SCOPES],
    claims_supported: ['sub', 'email', 'email_verified'],
    client_id_metadata_document_supported: true,
    authorization_response_iss_parameter_supported: true,
  };
}

/** A pre-registered client's metadata: served at /oauth/clients/{slug} and known statically to oidc-provider. */
export function knownClientMetadata(issuer: string, c: (typeof KNOWN_CLIENTS)[number]) {
  const nativeOnly = c.redirectUris.some((u) => !u.startsWith('https://'));
  return {
    client_id: knownClientId(issuer, c.slug),
    client_name: c.clientName,
    ...(c.clientUri ? { client_uri: c.clientUri } : {}),
    redirect_uris: c.redirectUris,
    application_type: nativeOnly ? ('native' as const) : ('web' as const),
    grant_types: ['authorization_code', 'refresh_token'],
    response_types: ['code' as const],
    token_endpoint_auth_method: 'none' as const,
  };
}

/** A WHATWG fetch for oidc-provider that goes through our SSRF-safe fetcher with the spec's caps. */
function metadataDocumentFetch(settings: SafeFetchSettings | undefined, log: Logger | undefined) {
  const safeFetch = createSafeFetch({
    ...settings,
    userAgent: 'Loupe/1.0 (+client metadata document fetcher)',
    timeouts: { connectMs: CLIENT_METADATA_FETCH.timeoutMs, responseMs: CLIENT_METADATA_FETCH.timeoutMs, idleMs: CLIENT_METADATA_FETCH.timeoutMs, totalMs: CLIENT_METADATA_FETCH.timeoutMs },
  });
  // A document that could not be fetched is not fetched again for 30 s: one authorization asks for its
  // client more than once, and a failing server should not be hammered.
  const failures = new Map<string, { at: number; error: unknown }>();
  return async (url: URL | string): Promise<Response> => {
    const target = String(url);
    if (!target.startsWith('https://')) throw new Error('client metadata documents are fetched over https only');
    const failed = failures.get(target);
    if (failed && Date.now() - failed.at < 30_000) throw failed.error;
    let res;
    try {
      res = await safeFetch.bytes(target, { maxBytes: CLIENT_METADATA_FETCH.maxBytes, followRedirects: false, headers: { accept: 'application/json' } });
      failures.delete(target);
    } catch (error) {
      log?.warn({ err: error, clientId: target }, 'client metadata document could not be fetched');
      if (failures.size > 1000) failures.clear();
      failures.set(target, { at: Date.now(), error });
      throw error;
    }
    const headers = new Headers();
    for (const [name, value] of Object.entries(res.headers)) {
      if (typeof value === 'string') headers.set(name, value);
    }
    return new Response(new Uint8Array(res.body), { status: res.status, headers });
  };
}

/**
 * oidc-provider configured to the spec: code flow with S256 PKCE only, public clients, opaque
 * prefixed tokens stored hashed, a fresh consent (and workspace choice) on every authorization,
 * refresh tokens rotated on every use with a 30-second grace for the retired one.
 */
export async function createOAuthProvider(deps: OAuthProviderDeps): Promise<Provider> {
  const { pool, clock, issuer } = deps;
  const accessTokenTtl = deps.accessTokenTtlSeconds ?? OAUTH_TTL.accessToken;
  const [signingKey, cookieKeys] = await Promise.all([
    sharedSecret(pool, 'oauth.signing-key', newSigningKey),
    sharedSecret(pool, 'oauth.cookie-keys', () => [randomSecret()]),
  ]);
  const mcpUrl = mcpResourceUrl(issuer);
  const secureCookies = issuer.startsWith('https://');
  const ownClientPrefix = `${issuer}/oauth/clients/`;

  const configuration: Configuration = {
    adapter: createAdapterClass({ pool, clock }),
    clients: KNOWN_CLIENTS.map((c) => knownClientMetadata(issuer, c)),
    jwks: { keys: [signingKey as never] },
    cookies: {
      keys: cookieKeys,
      long: { signed: true, httpOnly: true, sameSite: 'lax', secure: secureCookies },
      short: { signed: true, httpOnly: true, sameSite: 'lax', secure: secureCookies },
    },
    routes: {
      authorization: '/oauth/authorize',
      token: '/oauth/token',
      registration: '/oauth/register',
      userinfo: '/oauth/userinfo',
      jwks: '/oauth/jwks',
      revocation: '/oauth/revoke',
      end_session: '/oauth/logout',
      code_verification: '/oauth/device',
      device_authorization: '/oauth/device/auth',
      introspection: '/oauth/introspect',
      pushed_authorization_request: '/oauth/par',
      backchannel_authentication: '/oauth/backchannel',
      challenge: '/oauth/challenge',
    },
    responseTypes: ['code'],
    clientAuthMethods: ['none'],
    clientDefaults: {
      grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'],
      token_endpoint_auth_method: 'none',
      id_token_signed_response_alg: 'RS256',
    },
    scopes: ['mcp:read', 'mcp:write', 'mcp:thirdparty'],
    claims: { openid: ['sub'], email: ['email', 'email_verified'] },
    pkce: { required: () => true },
    allowOmittingSingleRegisteredRedirectUri: false,
    // Client ID metadata documents rarely say application_type (Claude Code's lists http://localhost/callback
    // and http://127.0.0.1/callback without it, then sends an ephemeral port: anthropics/claude-code#37767):
    // loopback http redirect URIs make a client native, as registration does, so the port may vary (RFC 8252 §7.3).
    extraClientMetadata: {
      properties: ['application_type'],
      validator(_ctx, key, _value, metadata) {
        if (key === 'application_type' && isLoopbackNative(metadata.redirect_uris)) metadata.application_type = 'native';
      },
    },
    extraParams: {
      // `state` is required (spec 4.3); checked here so the error goes back to a valid redirect_uri.
      async state(ctx: KoaContextWithOIDC, value: unknown) {
        if (typeof value !== 'string' || value === '') {
          throw new errors.InvalidRequest("missing required parameter 'state'");
        }
        if ((ctx.req as IncomingMessage & { [NO_GRANTABLE_SCOPE]?: boolean })[NO_GRANTABLE_SCOPE]) {
          throw new errors.InvalidScope(
            `none of the requested scopes is available to this client (known scopes: ${DEFAULT_SCOPES.join(', ')}, openid, email)`,
            String(ctx.oidc.params?.scope ?? ''),
          );
        }
      },
      async resource(_ctx: KoaContextWithOIDC, value: unknown) {
        if (value === undefined) return;
        if (typeof value !== 'string' || !isOurResource(value, mcpUrl)) {
          throw new errors.InvalidTarget(`resource must be this service's MCP endpoint, ${mcpUrl}`);
        }
      },
    },
    features: {
      devInteractions: { enabled: false },
      rpInitiatedLogout: { enabled: false },
      pushedAuthorizationRequests: { enabled: false },
      dPoP: { enabled: false },
      introspection: { enabled: false },
      revocation: { enabled: false }, // served by our own route: it must answer 200 even without client_id
      resourceIndicators: { enabled: false }, // one opaque token serves MCP and userinfo; `resource` is checked above
      userinfo: { enabled: true },
      registration: { enabled: true, issueRegistrationAccessToken: false, idFactory: () => newId('cli') },
      clientIdMetadataDocument: {
        enabled: true,
        ack: 'draft-02',
        cacheDuration: { min: CLIENT_METADATA_FETCH.cacheSeconds, max: CLIENT_METADATA_FETCH.cacheSeconds },
        // Our own pre-registered clients are listed statically; never fetch our own URLs.
        allowFetch: async (_ctx: unknown, id: string) => !id.startsWith(ownClientPrefix),
      },
    } as Configuration['features'],
    fetch: metadataDocumentFetch(deps.fetchSettings, deps.log) as never,
    fetchResponseBodyLimits: { 'client_id metadata document': CLIENT_METADATA_FETCH.maxBytes } as never,
    ttl: {
      AccessToken: accessTokenTtl,
      AuthorizationCode: OAUTH_TTL.authorizationCode,
      RefreshToken: OAUTH_TTL.refreshToken,
      Interaction: OAUTH_TTL.interaction,
      IdToken: accessTokenTtl,
      Session: 24 * 3600,
      // Kept alive by every refresh (see the adapter); this is the first family's lifetime.
      Grant: OAUTH_TTL.refreshToken,
    },
    // Every value is checked by the clock that issued it: no tolerance, so lifetimes end exactly (10 min, 1 h, 30 days).
    clockTolerance: 0,
    rotateRefreshToken: true,
    issueRefreshToken: async (_ctx, client) => client.grantTypeAllowed('refresh_token'),
    expiresWithSession: async () => false,
    // Every authorization asks again: the workspace is chosen each time (spec 5.2).
    loadExistingGrant: async (ctx) => {
      const grantId = ctx.oidc.result?.consent?.grantId;
      return grantId ? ctx.oidc.provider.Grant.find(grantId) : undefined;
    },
    interactions: { url: async (_ctx, interaction) => `/oauth/interaction/${interaction.uid}` },
    findAccount: async (ctx, sub, token) => {
      const grantId = (token as { grantId?: string } | undefined)?.grantId;
      // A refresh read its user with its token (one statement); anything else asks now.
      const read = grantId ? grantUserReadWithToken(ctx, grantId, sub) : undefined;
      const user = read !== undefined
        ? read && { id: read.userId, email: read.email, email_verified: read.emailVerified }
        : grantId
          ? await standingGrantUser(pool, grantId, sub)
          : (await pool.query<{ id: string; email: string; email_verified: boolean }>('SELECT id, email, email_verified FROM users WHERE id = $1', [sub])).rows[0];
      if (!user) return undefined;
      return { accountId: user.id, claims: async () => ({ sub: user.id, email: user.email, email_verified: user.email_verified }) };
    },
    renderError: async (ctx, out) => deps.renderError(ctx, out as { error: string; error_description?: string }),
    clientBasedCORS: () => true,
  };

  const provider = new Provider(issuer, configuration);
  provider.proxy = deps.trustProxy ?? false;
  prefixTokenValues(provider, deps.servicePrefix);
  skipIdTokenSigning(provider);

  // A token request's consume and the tokens it issues commit together (kept unless it failed on our
  // side); a database that cannot be reached is a 503 to retry, not a server_error.
  provider.on('server_error', (ctx, error) => void (ctx.state.serverError = error));
  provider.use(async (ctx, next) => {
    try {
      if (ctx.method === 'POST' && ctx.path === configuration.routes!.token) {
        await inTokenTransaction(async () => {
          await next();
          return ctx.status < 500;
        });
      } else {
        await next();
      }
    } catch (error) {
      if (!isDatabaseUnavailable(error)) throw error;
      ctx.state.serverError = error;
      ctx.status = 500;
      ctx.body = { error: 'server_error' };
    }
    if (ctx.status === 500 && isDatabaseUnavailable(ctx.state.serverError)) {
      ctx.status = 503;
      ctx.set('retry-after', '1');
      ctx.set('cache-control', 'no-store');
      if (ctx.body && typeof ctx.body === 'object' && 'error' in ctx.body) ctx.body = { ...TOKEN_ENDPOINT_UNAVAILABLE };
    }
  });
  provider.use(async (ctx, next) => {
    await next();
    const route = ctx.oidc?.route;
    if (route === 'discovery' && ctx.status === 200) {
      ctx.body = authorizationServerMetadata(issuer);
      ctx.set('cache-control', 'public, max-age=3600');
    } else if (route === 'token' && ctx.status === 200 && ctx.body && typeof ctx.body === 'object') {
      // The spec's token response: access_token, refresh_token, token_type bearer, expires_in (and scope, RFC 6749 §5.1).
      const body = ctx.body as Record<string, unknown>;
      delete body.id_token;
      body.token_type = 'bearer';
    }
  });
  return provider;
}

/**
 * The token response never carries an ID token (spec 5.6; the token route's middleware drops it), so
 * none is signed only to be thrown away: an RS256 signature on every code exchange and refresh.
 */
function skipIdTokenSigning(provider: Provider) {
  const proto = provider.IdToken.prototype as unknown as { issue(options: { use: string }): Promise<string | undefined> };
  const issue = proto.issue;
  proto.issue = async function issueUnlessIdToken(this: unknown, options: { use: string }) {
    return options?.use === 'idtoken' ? undefined : issue.call(this, options);
  };
}

/** Opaque values with the spec's prefixes: `<prefix>at_…` and `<prefix>rt_…` (spec 5.6). */
function prefixTokenValues(provider: Provider, servicePrefix: string) {
  for (const [Model, tag] of [[provider.AccessToken, 'at_'], [provider.RefreshToken, 'rt_']] as const) {
    const proto = Model.prototype as unknown as { generateTokenId(): string };
    const generate = proto.generateTokenId;
    proto.generateTokenId = function prefixed(this: unknown) {
      return `${servicePrefix}${tag}${generate.call(this)}`;
    };
  }
}
