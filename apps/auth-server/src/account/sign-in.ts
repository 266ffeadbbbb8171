import { Router } from 'express';
import { codeProblem, codeRequestProblem, signedInUser, signIn, signOut } from '../web-session';
import { renderPage } from '../pages';
import { safeReturnTo } from '../identity-providers';
import { form, pages, str, type AccountDeps, type Runtime } from './context';

/**
 * Sign-in to the account pages with an emailed code (the same codes and sessions as the
 * authorization pages), and sign-out. `return_to` brings the person back where they were going.
 */
export function accountSignIn(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  const { base, csrfToken } = pages(runtime);
  const providers = (deps.identityProviders ?? []).map(({ id, name }) => ({ id, name }));

  router.get('/account/sign-in', base(async (rt, req, res) => {
    const returnTo = safeReturnTo(req.query.return_to);
    if (await signedInUser(rt, req, res)) return res.redirect(303, returnTo);
    renderPage(res, 'account-signin', { title: 'Sign in', csrf: csrfToken(rt, req, res), returnTo, providers, email: str(req.query.email) });
  }));

  router.post('/account/sign-in', form, base(async (rt, req, res) => {
    const returnTo = safeReturnTo(req.body.return_to);
    const email = str(req.body.email).trim();
    const sent = await rt.accounts.requestSignInCode({ email, ip: req.ip ?? 'unknown' });
    const csrf = csrfToken(rt, req, res);
    if (!sent.ok) {
      const error = codeRequestProblem(sent);
      return renderPage(res, 'account-signin', { title: 'Sign in', csrf, returnTo, providers, email, error }, sent.reason === 'invalid_email' ? 400 : 429);
    }
    renderPage(res, 'account-code', { title: 'Check your email', csrf, returnTo, email: email.toLowerCase() });
  }));

  router.post('/account/sign-in/code', form, base(async (rt, req, res) => {
    const returnTo = safeReturnTo(req.body.return_to);
    const email = str(req.body.email).trim().toLowerCase();
    const result = await rt.accounts.verifySignInCode({ email, code: str(req.body.code) });
    if (!result.ok) {
      const error = codeProblem(result);
      return renderPage(res, 'account-code', { title: 'Check your email', csrf: csrfToken(rt, req, res), returnTo, email, error }, 400);
    }
    await signIn(rt, req, res, result.user.id);
    res.redirect(303, returnTo);
  }));

  router.post('/account/sign-out', form, base(async (rt, req, res) => {
    await signOut(rt, req, res);
    res.redirect(303, '/account/sign-in');
  }));

  return router;
}
