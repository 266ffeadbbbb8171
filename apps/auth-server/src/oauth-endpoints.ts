import express, { Router, type NextFunction, type Request, type Response } from 'express';
import {
  answerPlainRefresh, checkRegistration, clientIdProblem, grantableScopes, isOurResource, KNOWN_CLIENTS, knownClientMetadata, markNoGrantableScope, mcpResourceUrl,
  revokeToken, TOKEN_ENDPOINT_UNAVAILABLE,
} from '@loupe/oauth';
import { deferredPerIpCheck, isDatabaseUnavailable, sendPerIpRateLimited, takeTogether, type Logger } from '@loupe/http';
import type { AuthRuntime } from './runtime';
import { OAUTH_TOKEN_PATH, sendOAuthRateLimited, takeRefreshLimits } from './rate-limits';
import { renderErrorPage } from './pages';

type Runtime = () => Promise<AuthRuntime>;

const form = express.urlencoded({ extended: false, limit: '64kb', parameterLimit: 100 });
const json = express.json({ limit: '64kb', type: () => true });

const oauthError = (res: Response, status: number, error: string, description: string) =>
  res.status(status).setHeader('cache-control', 'no-store').json({ error, error_description: description });

/**
 * A token response with the headers oidc-provider gives it: no-store, and CORS for the origin that asks
 * (clientBasedCORS allows all); written as it writes one, with no ETag (never cached, so never revalidated).
 */
const sendTokenResponse = (req: Request, res: Response, body: Record<string, unknown>) =>
  res.status(200).setHeader('cache-control', 'no-store').vary('Origin')
    .setHeader('access-control-allow-origin', req.get('origin') ?? '*').setHeader('access-control-expose-headers', 'WWW-Authenticate')
    .setHeader('content-type', 'application/json; charset=utf-8')
    .end(JSON.stringify(body));

/** The longest query the `/authorize` alias passes on in its redirect. */
const MAX_REDIRECTED_QUERY = 8192;

const str = (v: unknown) => (typeof v === 'string' ? v : undefined);

/**
 * What we add in front of oidc-provider: the rules it cannot express (registration policy, default
 * and dropped scopes, the `resource` check on the token endpoint), the OAuth rate limits, revocation
 * that always answers 200, and the pre-registered clients' metadata documents.
 */
export function oauthEndpoints(runtime: Runtime): Router {
  const router = Router();
  const wrap = (fn: (req: Request, res: Response, next: NextFunction) => Promise<unknown>) => (req: Request, res: Response, next: NextFunction) =>
    fn(req, res, next).catch(next);

  router.post(
    '/oauth/register',
    wrap(async (req, res, next) => {
      const { limiters, issuer } = await runtime();
      const decision = await limiters.registration.take(`oauth-register:${req.ip}`);
      if (!decision.allowed) return sendOAuthRateLimited(res, decision, 'client registrations from this IP address');
      json(req, res, (error?: unknown) => {
        if (error) return oauthError(res, 400, 'invalid_client_metadata', 'The registration body must be valid JSON (Content-Type: application/json)');
        const checked = checkRegistration(req.body, issuer);
        if (!checked.ok) return oauthError(res, 400, checked.error, checked.error_description);
        req.body = checked.metadata;
        next();
      });
    }),
  );

  // Scopes: the default when none is sent, then only what the client may hold (spec 5.3). A client
  // that cannot be resolved here is refused here: letting oidc-provider look again (a metadata document
  // that failed to parse once may load the next time) would let its scopes through unfiltered (issue 23 item 6).
  router.all(
    '/oauth/authorize',
    (req, res, next) => (req.method === 'POST' ? form(req, res, next) : next()),
    wrap(async (req, res, next) => {
      const { provider } = await runtime();
      const params = (req.method === 'POST' ? req.body : req.query) as Record<string, unknown>;
      const clientId = str(params?.client_id);
      if (!clientId) return next(); // oidc-provider answers invalid_request: client_id is missing
      let client: Awaited<ReturnType<typeof provider.Client.find>>;
      let cause = '';
      try {
        client = await provider.Client.find(clientId);
      } catch (error) {
        (req as Request & { log?: Logger }).log?.warn({ err: error, clientId: clientId.slice(0, 300) }, 'authorization refused: the client could not be resolved');
        // oidc-provider's own description (e.g. "client_id metadata document fetch failed"), never a stack.
        const description = (error as { error_description?: unknown }).error_description;
        cause = typeof description === 'string' ? ` (${description.slice(0, 200)})` : '';
        client = undefined;
      }
      if (!client) {
        return renderErrorPage(res, 400, 'Unknown application',
          `The application that sent you here is not registered with Loupe, or its client metadata document could not be used${cause}. Nothing was authorized; go back to the application and try again.`,
          'invalid_client');
      }
      const scopes = grantableScopes(str(params.scope), client.scope);
      if (scopes.length === 0) {
        markNoGrantableScope(req);
      } else if (req.method === 'POST') {
        (req.body as Record<string, unknown>).scope = scopes.join(' ');
      } else {
        const url = new URL(req.url, 'http://placeholder');
        url.searchParams.set('scope', scopes.join(' '));
        req.url = `${url.pathname}${url.search}`;
      }
      next();
    }),
  );

  // The shell leaves this path's per-IP count to the route when it is deployed so (OAUTH_TOKEN_PATH in
  // perIpDeferredPaths): counted with the grant's own limits in one statement, and alone on every other way out.
  const ipAllowsAlone = async (res: Response) => {
    const ipCheck = deferredPerIpCheck(res);
    const decision = ipCheck && (await ipCheck.limiter.take(ipCheck.key));
    if (decision && !decision.allowed) sendPerIpRateLimited(res, decision);
    return !decision || decision.allowed;
  };
  router.all(OAUTH_TOKEN_PATH, wrap(async (req, res, next) => {
    if (req.method === 'POST' || (await ipAllowsAlone(res))) next();
  }));
  router.post(
    OAUTH_TOKEN_PATH,
    (req, res, next) => form(req, res, (error?: unknown) => {
      if (!error) return next();
      ipAllowsAlone(res).then((allowed) => allowed && next(error), next);
    }),
    wrap(async (req, res, next) => {
      const { limiters, issuer, pool, provider, clock } = await runtime();
      const body = (req.body ?? {}) as Record<string, unknown>;
      const clientId = str(body.client_id) ?? '';
      const resource = body.resource;
      const ipCheck = deferredPerIpCheck(res);
      // A client_id no client can have is refused here, counted against the IP alone: it never joins the
      // statements that count other requests (a NUL character in one would fail them all).
      const clientIdRefused = clientIdProblem(clientId);
      if (clientIdRefused) {
        if (!(await ipAllowsAlone(res))) return;
        return oauthError(res, 400, 'invalid_request', clientIdRefused);
      }
      if (resource !== undefined && (typeof resource !== 'string' || !isOurResource(resource, mcpResourceUrl(issuer)))) {
        if (!(await ipAllowsAlone(res))) return;
        return oauthError(res, 400, 'invalid_target', `resource must be this service's MCP endpoint, ${mcpResourceUrl(issuer)}`);
      }
      if (body.grant_type === 'authorization_code') {
        const [ip, decision] = await takeTogether(pool, [...(ipCheck ? [ipCheck] : []), { limiter: limiters.codeExchange, key: `oauth-code:${clientId}:${req.ip}` }])
          .then((d) => (ipCheck ? d : [undefined, ...d]));
        if (ip && !ip.allowed) return sendPerIpRateLimited(res, ip);
        if (!decision!.allowed) return sendOAuthRateLimited(res, decision!, 'code exchanges for this client from this IP address');
      } else if (body.grant_type === 'refresh_token') {
        // Per client connection: pre-registered and metadata-document clients share one client_id among all their users.
        const decisions = await takeRefreshLimits(req, pool, limiters.refresh, clientId, str(body.refresh_token) ?? '', ipCheck);
        if (decisions.ip && !decisions.ip.allowed) return sendPerIpRateLimited(res, decisions.ip);
        if (!decisions.refresh.allowed) return sendOAuthRateLimited(res, decisions.refresh, 'token refreshes for this client');
        // The common refresh is answered here, the rest by oidc-provider (see answerPlainRefresh).
        let answer: Record<string, unknown> | undefined;
        try {
          answer = await answerPlainRefresh({ provider, pool, clock }, body, decisions.token);
        } catch (error) {
          if (!isDatabaseUnavailable(error)) throw error;
          res.setHeader('retry-after', '1');
          return oauthError(res, 503, TOKEN_ENDPOINT_UNAVAILABLE.error, TOKEN_ENDPOINT_UNAVAILABLE.error_description);
        }
        if (answer) return sendTokenResponse(req, res, answer);
      } else if (!(await ipAllowsAlone(res))) {
        return;
      }
      next();
    }),
  );

  router.post(
    '/oauth/revoke',
    form,
    wrap(async (req, res) => {
      const { pool, clock } = await runtime();
      const body = (req.body ?? {}) as Record<string, unknown>;
      await revokeToken(pool, str(body.token) ?? '', str(body.client_id), clock);
      res.status(200).setHeader('cache-control', 'no-store').end();
    }),
  );

  router.get(
    '/oauth/clients/:slug',
    wrap(async (req, res) => {
      const { issuer } = await runtime();
      const known = KNOWN_CLIENTS.find((c) => c.slug === req.params.slug);
      if (!known) return oauthError(res, 404, 'invalid_client', `No pre-registered client is called ${JSON.stringify(String(req.params.slug).slice(0, 64))}`);
      res.setHeader('cache-control', 'public, max-age=3600');
      res.json(knownClientMetadata(issuer, known));
    }),
  );
  router.get('/oauth/clients', (_req, res) => {
    res.json({ clients: KNOWN_CLIENTS.map((c) => ({ slug: c.slug, client_name: c.clientName, metadata: `/oauth/clients/${c.slug}` })) });
  });

  // Clients of the 2025-03-26 MCP revision fall back to these root paths when discovery fails.
  // The redirect repeats the query: one too long for a Location header a client can read (HTTP clients
  // stop at 8–16 KB of headers) is refused here rather than sent as a redirect nobody can follow.
  router.get('/authorize', (req, res) => {
    const query = req.url.slice('/authorize'.length);
    if (query.length > MAX_REDIRECTED_QUERY) {
      return renderErrorPage(res, 414, 'Authorization request too long', `This authorization request is ${query.length} characters long; at most ${MAX_REDIRECTED_QUERY} are accepted. Start the connection again from your application.`);
    }
    res.redirect(302, `/oauth/authorize${query}`);
  });
  router.post('/token', (_req, res) => res.redirect(307, '/oauth/token'));
  router.post('/register', (_req, res) => res.redirect(307, '/oauth/register'));

  // What the form parser refuses (too large, too many parameters, another charset) in the OAuth error shape (spec 7.1), not as a 500.
  router.use(['/oauth/token', '/oauth/revoke', '/oauth/authorize'], (error: { type?: string }, _req: Request, res: Response, next: NextFunction) => {
    const type = error?.type ?? '';
    if (type === 'entity.too.large' || type === 'parameters.too.many') return oauthError(res, 413, 'invalid_request', 'The form body is too large: at most 64 KB and 100 parameters');
    if (['charset.unsupported', 'encoding.unsupported', 'request.aborted', 'request.size.invalid'].includes(type)) {
      return oauthError(res, 400, 'invalid_request', 'The form body could not be read: send application/x-www-form-urlencoded in UTF-8, whole');
    }
    next(error);
  });
  return router;
}
