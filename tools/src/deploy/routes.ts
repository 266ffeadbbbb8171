/**
 * Which app answers which path when the apps run as separate processes behind one public host (the MCP
 * specification puts the authorization server and the MCP endpoint on one origin; the console and the
 * sign-in pages share the session cookie). The sample proxy configurations in `deploy/` are generated
 * from this table (`npm run docs:proxy`) and the end-to-end test of separate apps routes by it.
 * The longest matching prefix wins, as in nginx's prefix locations.
 */
export const APPS = ['ingest-api', 'mcp-server', 'auth-server', 'web'] as const;
export type HttpApp = (typeof APPS)[number];

export interface Route {
  /** A path prefix (`/oauth` matches `/oauth` and `/oauth/…`), or an exact path when `exact`. */
  path: string;
  exact?: boolean;
  app: HttpApp;
  why: string;
}

export const ROUTES: readonly Route[] = [
  { path: '/api/v1', app: 'ingest-api', why: 'ingestion, batches, export, deletion, erasure, companies, connections, the OpenAPI document' },
  { path: '/docs', app: 'ingest-api', why: 'the API reference' },
  { path: '/api/mcp', app: 'mcp-server', why: 'the MCP endpoint and its icons' },
  { path: '/.well-known/oauth-protected-resource', app: 'mcp-server', why: 'protected resource metadata (RFC 9728)' },
  { path: '/api/mcp/.well-known', app: 'auth-server', why: 'authorization server metadata at the paths clients derive from the MCP URL' },
  { path: '/.well-known/oauth-authorization-server', app: 'auth-server', why: 'authorization server metadata (RFC 8414)' },
  { path: '/.well-known/openid-configuration', app: 'auth-server', why: 'OpenID discovery' },
  { path: '/oauth', app: 'auth-server', why: 'OAuth endpoints, sign-in, consent and the pages\' stylesheets' },
  { path: '/authorize', app: 'auth-server', why: 'authorization endpoint alias' },
  { path: '/token', app: 'auth-server', why: 'token endpoint alias' },
  { path: '/register', app: 'auth-server', why: 'dynamic client registration alias' },
  { path: '/auth/idp', app: 'auth-server', why: 'sign-in with an identity provider' },
  { path: '/account/sign-in', app: 'auth-server', why: 'the console\'s sign-in' },
  { path: '/inbound/mail', app: 'auth-server', why: 'replies that revoke a connection (webhook)' },
  { path: '/account', app: 'web', why: 'the console: account and evidence pages' },
  { path: '/', exact: true, app: 'web', why: 'the front page (JSON for API clients)' },
];

/** Where a path not in the table goes: the console, which answers 404 pages (and JSON to API clients). */
export const DEFAULT_APP: HttpApp = 'web';

function matches(route: Route, path: string): boolean {
  if (route.exact) return path === route.path;
  return path === route.path || path.startsWith(`${route.path}/`);
}

/** The app that answers `path` (the part of the URL before `?`). */
export function routeOf(path: string): HttpApp {
  let best: Route | undefined;
  for (const route of ROUTES) {
    if (matches(route, path) && (!best || route.path.length > best.path.length)) best = route;
  }
  return best?.app ?? DEFAULT_APP;
}
