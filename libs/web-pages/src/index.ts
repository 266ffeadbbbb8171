export {
  clearSessionCookie, createSessionMiddleware, loadSession, sessionCookieName, signedInUser, signIn, signOut, type SessionRuntime,
} from './session';
export { createSessionCsrf, formPages, type CsrfRuntime, type SessionCsrf } from './csrf';
export { createPageRenderer, sharedViewsDir, type PageRenderer } from './render';
export { ASSETS_PATH, assetsDir, pageAssets } from './assets';
export { securityHeaders, securityHeadersFor } from './security-headers';
export { loadWebSecrets } from './secrets';
