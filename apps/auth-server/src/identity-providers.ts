import { createCipheriv, createDecipheriv, createHmac, randomBytes } from 'node:crypto';
import { Router, type NextFunction, type Request, type Response } from 'express';
import cookieParser from 'cookie-parser';
import * as oidc from 'openid-client';
import type { IdentityProviderConfig } from '@loupe/config';
import type { Logger } from '@loupe/http';
import { signIn } from '@loupe/web-pages';
import { renderPage } from './pages';
import type { AuthRuntime } from './runtime';

type Runtime = () => Promise<AuthRuntime>;

/** How long a sign-in at a provider may take, from the start link to the callback. */
export const IDP_STATE_TTL_MS = 10 * 60_000;
export const IDP_CALLBACK_PATH = '/auth/idp/callback';
const DISCOVERY_TIMEOUT_SECONDS = 10;

export interface IdentityProviderDeps {
  providers: readonly IdentityProviderConfig[];
  log: Logger;
  /** Lets discovery and token calls go to an `http://` issuer (a provider on loopback, in tests). */
  allowLoopback?: boolean;
}

/** What the start link hands to the callback, sealed (AES-256-GCM) in a short-lived httpOnly cookie. */
interface Pending {
  /** provider id */
  p: string;
  /** state, nonce, PKCE code verifier */
  s: string;
  n: string;
  v: string;
  /** where to go once signed in */
  r: string;
  /** expiry, ms since epoch (by the injected clock) */
  x: number;
}

export const idpStateCookieName = (secure: boolean) => (secure ? '__Host-loupe_idp' : 'loupe_idp');

/**
 * Where a person may be sent back after signing in: a same-origin path under `/oauth/interaction/`
 * or `/account`. Anything else (other hosts, `//host`, backslashes, dot segments that climb out) is `/account`.
 */
export function safeReturnTo(value: unknown): string {
  if (typeof value !== 'string' || !value.startsWith('/') || value.startsWith('//') || /[\\\u0000-\u001f\u007f]/.test(value) || value.length > 512) {
    return '/account';
  }
  const base = 'http://loupe.invalid';
  let url: URL;
  try {
    url = new URL(value, base);
  } catch {
    return '/account';
  }
  if (url.origin !== base) return '/account';
  const ok = /^\/oauth\/interaction\/[^/]+(\/|$)/.test(url.pathname) || url.pathname === '/account' || url.pathname.startsWith('/account/');
  return ok ? `${url.pathname}${url.search}` : '/account';
}

function sealer(secret: string) {
  const key = createHmac('sha256', secret).update('loupe identity-provider state cookie v1').digest();
  return {
    seal(pending: Pending): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv('aes-256-gcm', key, iv);
      const body = Buffer.concat([cipher.update(JSON.stringify(pending), 'utf8'), cipher.final()]);
      return [iv, body, cipher.getAuthTag()].map((b) => b.toString('base64url')).join('.');
    },
    open(sealed: unknown): Pending | undefined {
      if (typeof sealed !== 'string' || sealed.length > 2048) return undefined;
      const [iv, body, tag] = sealed.split('.').map((p) => Buffer.from(p, 'base64url'));
      if (!iv || !body || !tag || iv.length !== 12 || tag.length !== 16) return undefined;
      try {
        const decipher = createDecipheriv('aes-256-gcm', key, iv);
        decipher.setAuthTag(tag);
        const pending = JSON.parse(Buffer.concat([decipher.update(body), decipher.final()]).toString('utf8')) as Pending;
        return typeof pending.s === 'string' && typeof pending.x === 'number' ? pending : undefined;
      } catch {
        return undefined; // tampered, or sealed with another secret
      }
    },
  };
}

/** A failure the person can act on: the error page, with a way back when there is one. */
function problem(res: Response, status: number, heading: string, message: string, code: string, back?: string) {
  res.setHeader('cache-control', 'no-store');
  renderPage(res, 'error', {
    title: heading,
    heading,
    message,
    code,
    link: back ? { href: back, text: back.startsWith('/oauth/interaction/') ? 'Back to sign-in' : 'Go to your account' } : undefined,
  }, status);
}

/** The provider could not be reached (network, timeout, a 5xx or a non-JSON answer). */
const unreachable = (error: unknown) =>
  error instanceof TypeError ||
  ['TimeoutError', 'AbortError'].includes((error as { name?: string })?.name ?? '') ||
  (error instanceof oidc.ClientError && ['OAUTH_RESPONSE_IS_NOT_CONFORM', 'OAUTH_RESPONSE_IS_NOT_JSON'].includes(error.code ?? ''));

/**
 * Sign-in through OpenID Connect identity providers (spec 5.2 rule 1), mounted at `/auth/idp`:
 * `GET /:provider/start?return_to=` sends the browser to the provider with state, nonce and PKCE (S256)
 * sealed in a 10-minute cookie; `GET /callback` checks them, exchanges the code with the client secret,
 * signs the person in by (provider, sub) or verified email, and sets the same web session as email sign-in.
 */
export function identityProviderRoutes(runtime: Runtime, deps: IdentityProviderDeps): Router {
  const byId = new Map(deps.providers.map((p) => [p.id, p]));
  // Discovery once per provider and process; a failure is not cached, so the next attempt retries.
  const configurations = new Map<string, Promise<oidc.Configuration>>();
  const configurationOf = (p: IdentityProviderConfig) => {
    let found = configurations.get(p.id);
    if (!found) {
      found = discover(p, deps.allowLoopback ?? false);
      found.catch(() => configurations.delete(p.id));
      configurations.set(p.id, found);
    }
    return found;
  };
  let seals: ReturnType<typeof sealer> | undefined;
  const sealsFor = (rt: AuthRuntime) => (seals ??= sealer(rt.csrfSecret));

  const handle = (fn: (rt: AuthRuntime, req: Request, res: Response) => Promise<unknown>) => async (req: Request, res: Response, next: NextFunction) => {
    try {
      await fn(await runtime(), req, res);
    } catch (error) {
      next(error);
    }
  };

  const router = Router();
  router.use(cookieParser());

  router.get('/:provider/start', handle(async (rt, req, res) => {
    const returnTo = safeReturnTo(req.query.return_to);
    const provider = byId.get(String(req.params.provider));
    if (!provider) {
      return problem(res, 404, 'This sign-in option is not available', 'Loupe does not offer this identity provider. Go back and sign in another way, for example with your email.', 'unknown_identity_provider', returnTo);
    }
    let config: oidc.Configuration;
    try {
      config = await configurationOf(provider);
    } catch (err) {
      deps.log.warn({ err, provider: provider.id }, 'identity provider discovery failed');
      return problem(res, 502, `${provider.name} cannot be reached`, `Loupe could not reach ${provider.name} just now. Try again in a few minutes, or go back and sign in with your email.`, 'identity_provider_unavailable', returnTo);
    }
    const pending: Pending = {
      p: provider.id,
      s: oidc.randomState(),
      n: oidc.randomNonce(),
      v: oidc.randomPKCECodeVerifier(),
      r: returnTo,
      x: rt.clock.now() + IDP_STATE_TTL_MS,
    };
    const url = oidc.buildAuthorizationUrl(config, {
      redirect_uri: `${rt.issuer}${IDP_CALLBACK_PATH}`,
      scope: provider.scopes,
      state: pending.s,
      nonce: pending.n,
      code_challenge: await oidc.calculatePKCECodeChallenge(pending.v),
      code_challenge_method: 'S256',
    });
    res.cookie(idpStateCookieName(rt.secure), sealsFor(rt).seal(pending), {
      httpOnly: true, sameSite: 'lax', secure: rt.secure, path: '/', maxAge: IDP_STATE_TTL_MS,
    });
    res.setHeader('cache-control', 'no-store');
    res.redirect(303, url.href);
  }));

  router.get('/callback', handle(async (rt, req, res) => {
    const cookieName = idpStateCookieName(rt.secure);
    const pending = sealsFor(rt).open(req.cookies?.[cookieName]);
    // Single use, whatever happens next.
    res.clearCookie(cookieName, { httpOnly: true, sameSite: 'lax', secure: rt.secure, path: '/' });
    const provider = pending ? byId.get(pending.p) : undefined;
    if (!pending || !provider) {
      return problem(res, 400, 'This sign-in has expired', 'Signing in with an identity provider has to finish within 10 minutes, in the browser where it started. Go back to the application and connect again.', 'idp_state_missing');
    }
    const back = pending.r;
    if (pending.x <= rt.clock.now()) {
      return problem(res, 400, 'This sign-in has expired', `Signing in with ${provider.name} has to finish within 10 minutes. Go back to the sign-in page and start again.`, 'idp_state_expired', back);
    }
    const query = new URL(req.originalUrl, 'http://loupe.invalid').searchParams;
    if (query.get('state') !== pending.s) {
      return problem(res, 400, 'This sign-in cannot be completed', `The answer from ${provider.name} does not belong to the sign-in started in this browser. Go back to the sign-in page and start again.`, 'idp_state_mismatch', back);
    }
    const error = query.get('error');
    if (error) {
      if (error === 'access_denied') {
        return problem(res, 403, `You did not sign in with ${provider.name}`, `Signing in at ${provider.name} was cancelled. Go back to the sign-in page to try again, or sign in with your email instead.`, 'idp_access_denied', back);
      }
      deps.log.warn({ provider: provider.id, error, description: query.get('error_description') }, 'identity provider returned an error');
      return problem(res, 502, `${provider.name} could not sign you in`, `${provider.name} answered with an error. Go back to the sign-in page and try again, or sign in with your email instead.`, `idp_${error.replace(/[^a-z_]/g, '').slice(0, 40)}`, back);
    }

    let claims: { sub: string; email?: unknown; email_verified?: unknown };
    try {
      const config = await configurationOf(provider);
      const currentUrl = new URL(`${rt.issuer}${IDP_CALLBACK_PATH}`);
      currentUrl.search = query.toString();
      const tokens = await oidc.authorizationCodeGrant(config, currentUrl, {
        pkceCodeVerifier: pending.v,
        expectedState: pending.s,
        expectedNonce: pending.n,
        idTokenExpected: true,
      });
      claims = tokens.claims()!;
      if (typeof claims.email !== 'string' || !claims.email) {
        // Some providers put the email in userinfo only.
        const info = await oidc.fetchUserInfo(config, tokens.access_token, claims.sub);
        claims = { ...claims, email: info.email, email_verified: info.email_verified };
      }
    } catch (err) {
      if (unreachable(err)) {
        deps.log.warn({ err, provider: provider.id }, 'identity provider unreachable at the callback');
        return problem(res, 502, `${provider.name} cannot be reached`, `Loupe could not finish signing you in because ${provider.name} did not answer. Try again in a few minutes, or go back and sign in with your email.`, 'identity_provider_unavailable', back);
      }
      deps.log.warn({ err, provider: provider.id }, 'identity provider sign-in could not be verified');
      return problem(res, 400, 'This sign-in could not be verified', `The answer from ${provider.name} could not be verified. Go back to the sign-in page and start again.`, 'idp_response_invalid', back);
    }

    const result = await rt.accounts.signInWithIdentity({
      provider: provider.id,
      subject: claims.sub,
      email: typeof claims.email === 'string' ? claims.email : undefined,
      // Some providers send the claim as a string.
      emailVerified: claims.email_verified === true || claims.email_verified === 'true',
    });
    if (!result.ok) {
      return result.reason === 'email_not_verified'
        ? problem(res, 403, 'Your email address is not verified', `${provider.name} has not verified the email address of your account, so Loupe cannot use it to sign you in. Verify it at ${provider.name} and try again, or go back and sign in with a code sent to your email.`, 'email_not_verified', back)
        : problem(res, 403, `${provider.name} did not share your email address`, `Loupe needs your email address to sign you in. Allow ${provider.name} to share it and try again, or go back and sign in with your email.`, 'no_email', back);
    }
    deps.log.info({ provider: provider.id, userId: result.user.id, linked: result.linked }, 'signed in with an identity provider');
    await signIn(rt, req, res, result.user.id);
    res.setHeader('cache-control', 'no-store');
    res.redirect(303, back);
  }));

  return router;
}

async function discover(p: IdentityProviderConfig, allowLoopback: boolean): Promise<oidc.Configuration> {
  const insecure = allowLoopback && p.issuer.startsWith('http://');
  const execute = insecure ? [oidc.allowInsecureRequests] : [];
  const found = await oidc.discovery(new URL(p.issuer), p.clientId, p.clientSecret, undefined, { execute, timeout: DISCOVERY_TIMEOUT_SECONDS });
  // client_secret_basic is the default of OpenID Connect; use client_secret_post only where basic is not offered.
  const server = found.serverMetadata();
  const methods = server.token_endpoint_auth_methods_supported;
  const auth = !methods || methods.includes('client_secret_basic') ? oidc.ClientSecretBasic(p.clientSecret) : oidc.ClientSecretPost(p.clientSecret);
  const config = new oidc.Configuration(server, p.clientId, p.clientSecret, auth);
  config.timeout = DISCOVERY_TIMEOUT_SECONDS;
  for (const extension of execute) extension(config);
  return config;
}
