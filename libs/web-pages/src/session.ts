import { randomBytes } from 'node:crypto';
import type { Request, RequestHandler, Response } from 'express';
import session from 'express-session';
import type pg from 'pg';
import { HashedSessionStore, WEB_SESSION_TTL_MS, type Accounts } from '@loupe/accounts';
import type { Logger } from '@loupe/http';

export const sessionCookieName = (secure: boolean) => (secure ? '__Host-loupe_session' : 'loupe_session');

/**
 * The web pages' sessions (sign-in, consent, the console, identity-provider sign-in share one, in every app):
 * express-session with its store in PostgreSQL, so they survive restarts and work across instances.
 * 256-bit ids, signed cookies, a fixed 14-day life; only the signed-in user's id is kept.
 */
export function createSessionMiddleware(deps: { pool: pg.Pool; secret: string; secure: boolean; log: Logger }): RequestHandler {
  return session({
    store: new HashedSessionStore(deps.pool, (message, err) => deps.log.error({ err }, `web session store: ${message}`)),
    name: sessionCookieName(deps.secure),
    secret: deps.secret,
    genid: () => randomBytes(32).toString('base64url'),
    resave: false,
    saveUninitialized: false,
    rolling: false,
    // An https issuer sits behind a TLS-terminating proxy: its X-Forwarded-Proto says the request was secure.
    proxy: deps.secure,
    cookie: { httpOnly: true, sameSite: 'lax', secure: deps.secure, path: '/', maxAge: WEB_SESSION_TTL_MS },
  });
}

/** What the session helpers need of an app's runtime. */
export interface SessionRuntime {
  session: RequestHandler;
  secure: boolean;
  accounts: Accounts;
}

const run = (handler: RequestHandler, req: Request, res: Response) =>
  new Promise<void>((resolve, reject) => handler(req, res, (err?: unknown) => (err ? reject(err as Error) : resolve())));

/** Loads the request's session (once; later calls are free). */
export const loadSession = (rt: SessionRuntime, req: Request, res: Response) => (req.session ? Promise.resolve() : run(rt.session, req, res));

/** The person this browser is signed in as, if any. */
export async function signedInUser(rt: SessionRuntime, req: Request, res: Response) {
  await loadSession(rt, req, res);
  return req.session.userId ? rt.accounts.sessionUser(req.session.userId) : undefined;
}

/** Signs the browser in: a new session id (never one the browser brought), saved before the response goes. */
export async function signIn(rt: SessionRuntime, req: Request, res: Response, userId: string) {
  await loadSession(rt, req, res);
  await new Promise<void>((resolve, reject) => req.session.regenerate((err) => (err ? reject(err as Error) : resolve())));
  req.session.userId = userId;
  await new Promise<void>((resolve, reject) => req.session.save((err) => (err ? reject(err as Error) : resolve())));
}

/** Signs the browser out: the session is destroyed and its cookie cleared. */
export async function signOut(rt: SessionRuntime, req: Request, res: Response) {
  await loadSession(rt, req, res);
  await new Promise<void>((resolve, reject) => req.session.destroy((err) => (err ? reject(err as Error) : resolve())));
  clearSessionCookie(rt, res);
}

/** Clears the cookie with the attributes it was set with (a `__Host-` cookie is only replaced by a Secure one). */
export function clearSessionCookie(rt: { secure: boolean }, res: Response) {
  res.clearCookie(sessionCookieName(rt.secure), { httpOnly: true, sameSite: 'lax', secure: rt.secure, path: '/' });
}
