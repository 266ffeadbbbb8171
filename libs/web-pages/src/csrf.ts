import type { NextFunction, Request, Response } from 'express';
import { doubleCsrf } from 'csrf-csrf';
import { sessionCookieName } from './session';

/** What the CSRF tokens need of an app's runtime: the shared secret and the scheme. */
export interface CsrfRuntime {
  csrfSecret: string;
  secure: boolean;
}

const csrfCookie = (secure: boolean) => (secure ? '__Host-loupe_account_csrf' : 'loupe_account_csrf');

/**
 * Double-submit CSRF tokens bound to the web session (or, before sign-in, to no one); one per app
 * instance. The same secret and cookie in every app, so a form one app renders (the console's sign-out
 * button) is accepted by another (the sign-in pages) on the same origin.
 */
export function createSessionCsrf() {
  let csrf: ReturnType<typeof doubleCsrf> | undefined;
  const of = (rt: CsrfRuntime) =>
    (csrf ??= doubleCsrf({
      getSecret: () => rt.csrfSecret,
      getSessionIdentifier: (req) => String(req.cookies?.[sessionCookieName(rt.secure)] ?? 'signed-out'),
      cookieName: csrfCookie(rt.secure),
      cookieOptions: { sameSite: 'lax', path: '/', secure: rt.secure, httpOnly: true },
      getCsrfTokenFromRequest: (req) => (req.body as Record<string, unknown> | undefined)?._csrf as string | undefined,
    }));
  return {
    valid: (rt: CsrfRuntime, req: Request) => of(rt).validateRequest(req),
    token: (rt: CsrfRuntime, req: Request, res: Response) => of(rt).generateCsrfToken(req, res, { overwrite: false, validateOnReuse: false }),
  };
}

export type SessionCsrf = ReturnType<typeof createSessionCsrf>;

type ErrorPage = (res: Response, status: number, title: string, message: string, code: string) => unknown;

/**
 * Wraps the handlers of pages with forms: each gets the app's runtime, a POST whose CSRF token does not
 * check out gets the "page has expired" page (403) instead, and errors go to `next`.
 */
export function formPages<R extends CsrfRuntime>(runtime: () => Promise<R>, csrf: SessionCsrf, renderErrorPage: ErrorPage) {
  return (fn: (rt: R, req: Request, res: Response) => Promise<unknown>) => async (req: Request, res: Response, next: NextFunction) => {
    try {
      const rt = await runtime();
      if (req.method === 'POST' && !csrf.valid(rt, req)) {
        return renderErrorPage(res, 403, 'This page has expired', 'For your security this form can no longer be sent. Go back, reload the page and try again.', 'invalid_csrf_token');
      }
      await fn(rt, req, res);
    } catch (error) {
      next(error);
    }
  };
}
