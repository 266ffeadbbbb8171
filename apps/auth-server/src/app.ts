import { Router, type NextFunction, type Request, type Response } from 'express';
import cookieParser from 'cookie-parser';
import type pg from 'pg';
import { createAccounts } from '@loupe/accounts';
import type { IdentityProviderConfig } from '@loupe/config';
import type { Db } from '@loupe/db';
import type { Clock, Logger } from '@loupe/http';
import { createOAuthProvider } from '@loupe/oauth';
import type { SafeFetchSettings } from '@loupe/safe-fetch';
import { ASSETS_PATH, createSessionMiddleware, loadWebSecrets, pageAssets, securityHeadersFor } from '@loupe/web-pages';
import { accountSignIn } from './account-sign-in';
import { inboundMailWebhook, inboundReplyHandler } from './inbound-mail';
import { identityProviderRoutes } from './identity-providers';
import { interactionPages, type Mailer } from './interaction';
import { oauthEndpoints } from './oauth-endpoints';
import { renderOAuthErrorHtml } from './pages';
import { createOAuthLimiters } from './rate-limits';
import type { AuthRuntime } from './runtime';

export interface AuthAppDeps {
  pool: pg.Pool;
  db: Db;
  clock: Clock;
  log: Logger;
  mailer: Mailer;
  /** The public base URL (known once the server listens): the issuer and the MCP host. */
  baseUrl: () => string;
  servicePrefix: string;
  /** Behind a TLS-terminating proxy. */
  trustProxy?: boolean;
  /** For the client metadata document fetcher (tests allow loopback and their own CA). */
  fetchSettings?: SafeFetchSettings;
  /** Access-token lifetime in seconds (config.accessTokenTtlSeconds); the spec's hour when absent. */
  accessTokenTtlSeconds?: number;
  /** Revocation by replying to the confirmation mail: the reply domain and the webhook's secret (config.replies). */
  replies?: { domain: string; webhookSecret?: string | undefined } | undefined;
  /** OpenID Connect identity providers offered beside email sign-in (config.identityProviders). */
  identityProviders?: readonly IdentityProviderConfig[];
}

/** Paths oidc-provider serves; everything else falls through to the other apps and the 404. */
const PROVIDER_PATHS = /^\/(oauth\/|\.well-known\/(openid-configuration|oauth-authorization-server)$)/;

/**
 * The authorization server metadata at the addresses clients derive from the MCP endpoint's URL
 * (`{base}/api/mcp`) when they take it for the issuer: RFC 8414 3.1 path insertion for the OAuth and
 * the OpenID Connect well-known suffixes, and OpenID Connect's path appending (the order the MCP
 * authorization spec, 2025-11-25 and 2026-07-28, makes clients try for an issuer with a path). The
 * document is the issuer's own (`issuer` stays `{base}`), served by the same handler.
 */
const PATH_INSERTED_METADATA: Record<string, string> = {
  '/.well-known/oauth-authorization-server/api/mcp': '/.well-known/oauth-authorization-server',
  '/.well-known/openid-configuration/api/mcp': '/.well-known/openid-configuration',
  '/api/mcp/.well-known/openid-configuration': '/.well-known/openid-configuration',
  '/api/mcp/.well-known/oauth-authorization-server': '/.well-known/oauth-authorization-server',
};

/**
 * The OAuth 2.1 authorization server: oidc-provider under /oauth with our rules in front of it,
 * discovery, the pre-registered clients, and the sign-in, workspace and consent pages (the console's
 * sign-in page too: one sign-in for every page). The console itself is the web app.
 */
export function createAuthApp(deps: AuthAppDeps): Router {
  let starting: Promise<AuthRuntime> | undefined;
  const runtime = () =>
    (starting ??= build(deps).catch((error: unknown) => {
      starting = undefined; // a database that was down at the first request must not break every later one
      throw error;
    }));

  // Only on oidc-provider's paths (not router.use(path), which would strip the path oidc-provider routes on).
  const onProviderPaths = (fn: (req: Request, res: Response, next: NextFunction) => unknown) => (req: Request, res: Response, next: NextFunction) =>
    PROVIDER_PATHS.test(req.path) ? fn(req, res, next) : next();

  const router = Router();
  router.get(Object.keys(PATH_INSERTED_METADATA), (req, _res, next) => {
    req.url = PATH_INSERTED_METADATA[req.path]! + req.url.slice(req.path.length);
    next();
  });
  const headersFor = securityHeadersFor(deps.baseUrl);
  router.use(onProviderPaths(headersFor));
  router.use(onProviderPaths(cookieParser()));
  router.use(ASSETS_PATH, pageAssets());
  router.use(oauthEndpoints(runtime));
  router.use(interactionPages(runtime, { mailer: deps.mailer, log: deps.log, identityProviders: deps.identityProviders, replyDomain: deps.replies?.domain }));
  if (deps.replies) {
    const handle = inboundReplyHandler({ pool: deps.pool, clock: deps.clock, mailer: deps.mailer, log: deps.log, domain: deps.replies.domain });
    router.use(inboundMailWebhook(handle, deps.replies.webhookSecret));
  }
  router.use('/auth/idp', headersFor, identityProviderRoutes(runtime, { providers: deps.identityProviders ?? [], log: deps.log, allowLoopback: deps.fetchSettings?.allowLoopback }));
  // The console's sign-in page: the pages' headers (one script of ours, as on every console page).
  router.use('/account/sign-in', securityHeadersFor(deps.baseUrl, { ownScripts: true }), cookieParser());
  router.use(accountSignIn(runtime, { identityProviders: deps.identityProviders }));
  router.use(onProviderPaths((req, res, next) => runtime().then((rt) => rt.handle(req, res), next)));
  return router;
}

async function build(deps: AuthAppDeps): Promise<AuthRuntime> {
  const issuer = deps.baseUrl();
  const secure = issuer.startsWith('https://');
  const [provider, { signInCodeSecret: codeSecret, csrfSecret, sessionSecret }] = await Promise.all([
    createOAuthProvider({
      pool: deps.pool,
      clock: deps.clock,
      issuer,
      servicePrefix: deps.servicePrefix,
      // An https issuer sits behind a TLS-terminating proxy: trust its X-Forwarded-Proto so cookies can be Secure.
      trustProxy: deps.trustProxy ?? secure,
      fetchSettings: deps.fetchSettings,
      accessTokenTtlSeconds: deps.accessTokenTtlSeconds,
      log: deps.log,
      renderError: (ctx, out) => {
        ctx.type = 'html';
        ctx.body = renderOAuthErrorHtml(out);
      },
    }),
    loadWebSecrets(deps.pool),
  ]);
  provider.on('server_error', (_ctx, err) => deps.log.error({ err }, 'oauth server error'));
  const accounts = createAccounts({ pool: deps.pool, db: deps.db, clock: deps.clock, mailer: deps.mailer, codeSecret });
  return { issuer, secure, provider, handle: provider.callback(), accounts, limiters: createOAuthLimiters(deps.pool, deps.clock), csrfSecret,
    session: createSessionMiddleware({ pool: deps.pool, secret: sessionSecret, secure, log: deps.log }), pool: deps.pool, clock: deps.clock, servicePrefix: deps.servicePrefix };
}
