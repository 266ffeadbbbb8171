import { Router } from 'express';
import { companyPages } from './companies';
import { connectionPages } from './connections';
import { importPages } from './imports';
import { emailForwardingPages } from './email-forwarding';
import type { AccountDeps, Runtime } from './context';
import { homePages } from './home';
import { keyPages } from './keys';
import { memberPages } from './members';
import { notePages } from './notes';
import { privacyPages } from './privacy';
import { retentionPages } from './retention';
import { opportunityPages } from './opportunities';
import { signalPages } from './signals';
import { sourcePages } from './sources';
import { signOutPage } from './sign-out';
import { workspacePages } from './workspace-pages';

/** The console under /account: sign-out (sign-in is the authorization server's), workspaces, the evidence (signals, opportunities, companies), API keys, members, connected applications, products, usage. */
export function accountPages(runtime: Runtime, deps: AccountDeps): Router {
  const router = Router();
  router.use(signOutPage(runtime));
  router.use(homePages(runtime));
  router.use(keyPages(runtime, deps));
  router.use(memberPages(runtime, deps));
  router.use(workspacePages(runtime, deps));
  router.use(signalPages(runtime, deps));
  router.use(opportunityPages(runtime, deps));
  router.use(companyPages(runtime, deps));
  router.use(sourcePages(runtime, deps));
  router.use(notePages(runtime, deps));
  router.use(privacyPages(runtime, deps));
  router.use(retentionPages(runtime));
  router.use(connectionPages(runtime, deps));
  router.use(importPages(runtime, deps));
  router.use(emailForwardingPages(runtime, deps));
  return router;
}
