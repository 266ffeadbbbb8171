import { Router } from 'express';

export interface AuthAppDeps {
  baseUrl: () => string;
}

/**
 * The OAuth 2.1 authorization server (oidc-provider under /oauth, discovery,
 * sign-in and consent pages). Its routes arrive with the OAuth issue; the app is
 * already mounted by the single-process start so the MCP endpoint and the
 * authorization server share one host, as the spec requires.
 */
export function createAuthApp(_deps: AuthAppDeps): Router {
  return Router();
}
