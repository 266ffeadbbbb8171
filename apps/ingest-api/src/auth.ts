import { keyRefusal, ROLE_RULES, type RoleRule } from '@loupe/accounts';
import { authenticateApiKey, type ApiKeyPermission, type ApiKeyPrincipal } from '@loupe/api-keys';
import { ApiError, type RateLimiter } from '@loupe/http';
import type { RequestHandler } from 'express';
import type pg from 'pg';

declare module 'express-serve-static-core' {
  interface Request {
    principal?: ApiKeyPrincipal;
  }
}

/** `x-api-key` → the key's principal (401 when missing, unknown or revoked), then its rate limit (429). */
export function apiKeyAuth(pool: pg.Pool, servicePrefix: string, limiter: RateLimiter): RequestHandler {
  return async (req, res, next) => {
    try {
      const presented = req.get('x-api-key');
      if (!presented) throw ApiError.unauthorized('Missing API key: send it in the x-api-key header');
      const principal = await authenticateApiKey(pool, presented, servicePrefix);
      if (!principal) throw ApiError.unauthorized('Invalid API key: it is unknown or has been revoked');
      const decision = await limiter.take(`ingest:${principal.keyId}`);
      res.setHeader('x-ratelimit-limit', String(decision.limit));
      res.setHeader('x-ratelimit-remaining', String(decision.remaining));
      if (!decision.allowed) {
        throw new ApiError(429, 'RATE_LIMITED', `Rate limit of ${decision.limit} requests per second per API key exceeded`, {
          retryAfter: decision.retryAfterSeconds,
          headers: { 'retry-after': String(decision.retryAfterSeconds) },
        });
      }
      req.principal = principal;
      next();
    } catch (error) {
      next(error);
    }
  };
}

/** 403 unless the key holds one of `anyOf`. */
export function requirePermission(...anyOf: ApiKeyPermission[]): RequestHandler {
  return (req, _res, next) => {
    const held = req.principal?.permissions ?? [];
    if (anyOf.some((p) => held.includes(p))) return next();
    next(ApiError.forbidden(`This API key lacks the ${anyOf.map((p) => `"${p}"`).join(' or ')} permission`));
  };
}

/**
 * 403 unless the key's creator may do what `rule` guards, by their role in the workspace now (read
 * with the key on every request): a key acts as its creator, so it can do no more than the account
 * pages let that person do (issue 41 finding 6; the rule is libs/accounts' ROLE_RULES, the pages').
 * A key made by the admin CLI without a creator acts as the workspace and may.
 */
export function requireCreatorRole(rule: RoleRule): RequestHandler {
  return (req, _res, next) => {
    const refusal = keyRefusal(req.principal!, rule);
    if (!refusal) return next();
    next(new ApiError(403, 'FORBIDDEN', refusal, { details: { requiredRoles: [...ROLE_RULES[rule].roles], creatorRole: req.principal!.creatorRole } }));
  };
}
