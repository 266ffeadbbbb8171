import express, { type Express } from 'express';
import { errorHandler, notFoundHandler } from './error-handler';
import type { Logger } from './logger';
import { perIpRateLimit } from './per-ip-limit';
import type { RateLimiter } from './rate-limit';
import { requestContext } from './request-context';

export interface ShellOptions {
  /** Proxies whose X-Forwarded-For is believed (express "trust proxy"); loopback unless said. */
  trustedProxies?: string;
  /** The per-IP limit over everything this server answers (spec 8.1); none when absent. */
  perIp?: RateLimiter;
  /** Paths whose route counts the per-IP limit itself, with its own limits in one statement. */
  perIpDeferredPaths?: readonly string[];
}

/**
 * The shell every app is served in, alone or together: request context (id, logging) and the
 * per-IP limit first, then the routes `mount` adds, then the JSON 404 and the error handler that
 * keeps stack traces inside.
 */
export function appShell(log: Logger, mount: (app: Express) => void, options: ShellOptions = {}): Express {
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', options.trustedProxies ?? 'loopback');
  app.use(requestContext(log));
  if (options.perIp) app.use(perIpRateLimit(options.perIp, { deferredPaths: options.perIpDeferredPaths ?? [] }));
  mount(app);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
