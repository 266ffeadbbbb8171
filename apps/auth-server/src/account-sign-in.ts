import express, { Router } from 'express';
import { createSessionCsrf, formPages, signedInUser, signIn } from '@loupe/web-pages';
import { safeReturnTo } from './identity-providers';
import { renderErrorPage, renderPage } from './pages';
import type { AuthRuntime } from './runtime';
import { codeProblem, codeRequestProblem } from './sign-in-problems';

type Runtime = () => Promise<AuthRuntime>;

const form = express.urlencoded({ extended: false, limit: '16kb', parameterLimit: 40 });
const str = (v: unknown) => (typeof v === 'string' ? v : '');

/**
 * Sign-in to the console (the web app's /account pages) with an emailed code: the same codes and
 * sessions as the authorization pages. The console sends a signed-out person here with `return_to`,
 * and they go back there once signed in. Its forms carry the CSRF tokens the console's pages use.
 */
export function accountSignIn(runtime: Runtime, deps: { identityProviders?: readonly { id: string; name: string }[] }): Router {
  const router = Router();
  const csrf = createSessionCsrf();
  const providers = (deps.identityProviders ?? []).map(({ id, name }) => ({ id, name }));
  const page = formPages(runtime, csrf, renderErrorPage);

  router.get('/account/sign-in', page(async (rt, req, res) => {
    const returnTo = safeReturnTo(req.query.return_to);
    if (await signedInUser(rt, req, res)) return res.redirect(303, returnTo);
    renderPage(res, 'account-signin', { title: 'Sign in', csrf: csrf.token(rt, req, res), returnTo, providers, email: str(req.query.email) });
  }));

  router.post('/account/sign-in', form, page(async (rt, req, res) => {
    const returnTo = safeReturnTo(req.body.return_to);
    const email = str(req.body.email).trim();
    const sent = await rt.accounts.requestSignInCode({ email, ip: req.ip ?? 'unknown' });
    const token = csrf.token(rt, req, res);
    if (!sent.ok) {
      const error = codeRequestProblem(sent);
      return renderPage(res, 'account-signin', { title: 'Sign in', csrf: token, returnTo, providers, email, error }, sent.reason === 'invalid_email' ? 400 : 429);
    }
    renderPage(res, 'account-code', { title: 'Check your email', csrf: token, returnTo, email: email.toLowerCase() });
  }));

  router.post('/account/sign-in/code', form, page(async (rt, req, res) => {
    const returnTo = safeReturnTo(req.body.return_to);
    const email = str(req.body.email).trim().toLowerCase();
    const result = await rt.accounts.verifySignInCode({ email, code: str(req.body.code) });
    if (!result.ok) {
      const error = codeProblem(result);
      return renderPage(res, 'account-code', { title: 'Check your email', csrf: csrf.token(rt, req, res), returnTo, email, error }, 400);
    }
    await signIn(rt, req, res, result.user.id);
    res.redirect(303, returnTo);
  }));

  return router;
}
