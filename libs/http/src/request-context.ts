import { randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Logger } from './logger';

declare module 'express-serve-static-core' {
  interface Request {
    id: string;
    log: Logger;
  }
}

/**
 * A path as it may be logged: a segment that looks like a secret (40+ URL-safe characters, such as the
 * 43-character token of an invitation link, /account/invitations/<token>) is replaced by `[secret]`.
 */
export function loggablePath(path: string): string {
  return path.replace(/(?<=\/)[A-Za-z0-9_-]{40,}(?=\/|$)/g, '[secret]');
}

/** Gives every request an id (the caller's `x-request-id` when sane) and a child logger; logs the outcome. */
export function requestContext(log: Logger): RequestHandler {
  return (req, res, next) => {
    const incoming = req.get('x-request-id');
    req.id = incoming && /^[\w.:-]{1,128}$/.test(incoming) ? incoming : randomUUID();
    req.log = log.child({ requestId: req.id });
    res.setHeader('x-request-id', req.id);
    const started = process.hrtime.bigint();
    res.on('finish', () => {
      const ms = Number(process.hrtime.bigint() - started) / 1e6;
      req.log.debug({ method: req.method, path: loggablePath(req.path), status: res.statusCode, ms: Math.round(ms * 10) / 10 }, 'request');
    });
    next();
  };
}
