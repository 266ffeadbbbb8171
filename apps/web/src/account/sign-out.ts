import { Router } from 'express';
import { signOut } from '@loupe/web-pages';
import { form, pages, type Runtime } from './context';

/** The console's sign-out button: the session ends on every app and instance, back to the sign-in page. */
export function signOutPage(runtime: Runtime): Router {
  const router = Router();
  const { base } = pages(runtime);
  router.post('/account/sign-out', form, base(async (rt, req, res) => {
    await signOut(rt, req, res);
    res.redirect(303, '/account/sign-in');
  }));
  return router;
}
