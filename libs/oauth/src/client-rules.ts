import { KNOWN_CLIENTS } from './known-clients';

/** OAuth error bodies (spec 7.1): `error` and `error_description`. */
export interface OAuthErrorBody {
  error: string;
  error_description: string;
}

type Registration = { ok: true; metadata: Record<string, unknown> } | ({ ok: false } & OAuthErrorBody);

const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1']);
const GRANT_TYPES = new Set(['authorization_code', 'refresh_token']);

/** The longest client_id accepted: ours are short, and a client ID metadata document's URL fits in 2,048 characters as every browser's does. */
export const MAX_CLIENT_ID_LENGTH = 2048;

/**
 * Why a `client_id` sent to an endpoint cannot name any client, or undefined when it may: RFC 6749
 * (Appendix A.1) makes it printable ASCII (%x20-7E), and every id we issue or fetch is shorter than
 * `MAX_CLIENT_ID_LENGTH`. Refused before it reaches a statement shared with other requests.
 */
export function clientIdProblem(value: string): string | undefined {
  const bad = /[^\x20-\x7e]/.exec(value);
  if (bad) {
    const code = bad[0].codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0');
    return `client_id must be printable ASCII (RFC 6749, Appendix A.1); it holds U+${code} at position ${bad.index}`;
  }
  if (value.length > MAX_CLIENT_ID_LENGTH) return `client_id is ${value.length} characters long; at most ${MAX_CLIENT_ID_LENGTH} are accepted`;
  return undefined;
}

/** Why a redirect URI may not be registered dynamically (spec 5.4), or undefined when it may. */
export function redirectUriProblem(value: unknown): string | undefined {
  if (typeof value !== 'string' || value === '') return 'must be a non-empty string';
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return 'is not an absolute URL';
  }
  if (url.hash || value.includes('#')) return 'must not contain a fragment (#…)';
  if (url.protocol === 'https:') return undefined;
  if (url.protocol === 'http:') {
    return LOOPBACK_HOSTS.has(url.hostname) ? undefined : 'may use http:// only with the host localhost or 127.0.0.1; use https:// otherwise';
  }
  return `uses the scheme ${url.protocol.slice(0, -1)}; only https:// (or http:// on localhost or 127.0.0.1) is accepted`;
}

/**
 * A redirect URI dynamic registration refuses but a pre-registered client lists (Cursor registers its
 * cursor:// callback beside two others): the refusal names the client_id to use instead.
 */
function preRegisteredHint(uri: unknown, issuer: string | undefined): string {
  const known = KNOWN_CLIENTS.find((c) => c.redirectUris.includes(uri as string));
  if (!known) return '';
  return `. ${known.clientName} is pre-registered with this redirect URI: use the client_id ${issuer ?? ''}/oauth/clients/${known.slug}`;
}

/**
 * Loopback http redirect URIs mark a native app, whose port may differ per run (OAuth 2.1, RFC 8252
 * §7.3); oidc-provider lets the port vary only for application_type native. Not when a loopback https
 * URI is also listed (oidc-provider refuses those for native clients).
 */
export function isLoopbackNative(uris: unknown): boolean {
  if (!Array.isArray(uris)) return false;
  const parsed = uris.map((u) => (typeof u === 'string' ? URL.parse(u) : null));
  const loopbackHttp = parsed.some((u) => u?.protocol === 'http:' && LOOPBACK_HOSTS.has(u.hostname));
  const loopbackHttps = parsed.some((u) => u?.protocol === 'https:' && LOOPBACK_HOSTS.has(u.hostname));
  return loopbackHttp && !loopbackHttps;
}

/**
 * The registration rules oidc-provider cannot express (spec 5.4): every client is public (no secret,
 * `token_endpoint_auth_method` none), redirect URIs are https or loopback http, and only the code
 * flow with refresh tokens. Returns the metadata to register.
 */
export function checkRegistration(body: unknown, issuer?: string): Registration {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    return { ok: false, error: 'invalid_client_metadata', error_description: 'The registration body must be a JSON object' };
  }
  const unstorable = unstorableField(body);
  if (unstorable) {
    return { ok: false, error: 'invalid_client_metadata', error_description: `${unstorable} contains a NUL character or an unpaired UTF-16 surrogate, which cannot be stored` };
  }
  const metadata: Record<string, unknown> = { ...body };
  const uris = metadata.redirect_uris;
  if (!Array.isArray(uris) || uris.length === 0) {
    return { ok: false, error: 'invalid_client_metadata', error_description: 'redirect_uris is required: a non-empty array of redirect URLs' };
  }
  for (const [i, uri] of uris.entries()) {
    const problem = redirectUriProblem(uri);
    if (problem) return { ok: false, error: 'invalid_redirect_uri', error_description: `redirect_uris[${i}] ${problem}${preRegisteredHint(uri, issuer)}` };
  }
  const method = metadata.token_endpoint_auth_method ?? 'none';
  if (method !== 'none') {
    return {
      ok: false,
      error: 'invalid_client_metadata',
      error_description: `token_endpoint_auth_method ${JSON.stringify(method)} is not supported: clients are public, use "none" (PKCE protects the code)`,
    };
  }
  metadata.token_endpoint_auth_method = 'none';
  if (metadata.grant_types !== undefined) {
    const types = metadata.grant_types;
    if (!Array.isArray(types) || types.some((t) => !GRANT_TYPES.has(t as string)) || !types.includes('authorization_code')) {
      return {
        ok: false,
        error: 'invalid_client_metadata',
        error_description: 'grant_types must include "authorization_code" and may add "refresh_token"; no other grant is supported',
      };
    }
  } else {
    metadata.grant_types = ['authorization_code', 'refresh_token'];
  }
  if (metadata.response_types !== undefined) {
    const types = metadata.response_types;
    if (!Array.isArray(types) || types.length === 0 || types.some((t) => t !== 'code')) {
      return { ok: false, error: 'invalid_client_metadata', error_description: 'response_types may only be ["code"]' };
    }
  }
  if (metadata.client_name !== undefined && (typeof metadata.client_name !== 'string' || metadata.client_name.length > 200)) {
    return { ok: false, error: 'invalid_client_metadata', error_description: 'client_name must be a string of at most 200 characters' };
  }
  if (metadata.scope !== undefined && typeof metadata.scope !== 'string') {
    return { ok: false, error: 'invalid_client_metadata', error_description: 'scope must be a space-separated string' };
  }
  if (isLoopbackNative(uris)) metadata.application_type = 'native';
  delete metadata.client_secret;
  delete metadata.client_secret_expires_at;
  delete metadata.client_id;
  return { ok: true, metadata };
}

/** The first field (its path) whose key or text PostgreSQL cannot store (NUL, an unpaired surrogate), if any. */
function unstorableField(value: unknown, at = ''): string | undefined {
  const bad = (text: string) => text.includes('\u0000') || !text.isWellFormed();
  if (typeof value === 'string') return bad(value) ? at || 'the body' : undefined;
  if (Array.isArray(value)) {
    for (const [i, item] of value.entries()) {
      const found = unstorableField(item, `${at}[${i}]`);
      if (found) return found;
    }
    return undefined;
  }
  if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      const path = at ? `${at}.${key}` : key;
      if (bad(key)) return JSON.stringify(key);
      const found = unstorableField(item, path);
      if (found) return found;
    }
  }
  return undefined;
}

/** A `resource` parameter must name our MCP endpoint (RFC 8707); a trailing slash is forgiven. */
export function isOurResource(value: string, mcpUrl: string): boolean {
  return value.replace(/\/$/, '') === mcpUrl.replace(/\/$/, '');
}
