import express, { type Express } from 'express';
import { errorHandler, notFoundHandler } from './error-handler';
import type { Logger } from './logger';
import { requestContext } from './request-context';

/**
 * The shell every app is served in, alone or together: request context (id, logging) first, then
 * the routes `mount` adds, then the JSON 404 and the error handler that keeps stack traces inside.
 */
export function appShell(log: Logger, mount: (app: Express) => void): Express {
  const app = express();
  app.disable('x-powered-by');
  app.use(requestContext(log));
  mount(app);
  app.use(notFoundHandler);
  app.use(errorHandler);
  return app;
}
