/** Every scope the service knows, in the order discovery lists them (spec 4.2). */
export const SCOPES = ['mcp:read', 'mcp:write', 'mcp:thirdparty', 'openid', 'email'] as const;
export type Scope = (typeof SCOPES)[number];

/** What a client gets when it sends no `scope` (spec 5.3 rule 1). */
export const DEFAULT_SCOPES: readonly Scope[] = ['mcp:read', 'mcp:write'];

/** Reserved for API keys: never granted to an OAuth client, whatever it asks (spec 5.3). */
export const API_KEY_ONLY_SCOPES: readonly Scope[] = ['mcp:thirdparty'];

const known = new Set<string>(SCOPES);

/**
 * The scopes an authorization request may be granted: the requested ones (the default when none
 * were sent) that the service knows, that the client registered (when it registered any), and that
 * an OAuth client may hold. Empty means `invalid_scope`.
 */
export function grantableScopes(requested: string | undefined, registered: string | undefined): Scope[] {
  const asked = requested === undefined || requested.trim() === '' ? [...DEFAULT_SCOPES] : requested.split(/\s+/);
  const allowed = registered ? new Set(registered.split(/\s+/)) : undefined;
  const out: Scope[] = [];
  for (const scope of asked) {
    if (!known.has(scope) || API_KEY_ONLY_SCOPES.includes(scope as Scope)) continue;
    if (allowed && !allowed.has(scope)) continue;
    if (!out.includes(scope as Scope)) out.push(scope as Scope);
  }
  return out;
}

/** Plain words for the consent page, one line per scope. */
export const SCOPE_DESCRIPTIONS: Record<Scope, string> = {
  'mcp:read': 'Read the products, sources, signals, opportunities and shaping notes of the workspace, and add sources and shaping notes',
  'mcp:write': 'Add and update signals',
  'mcp:thirdparty': 'Use the third-party tools connected to the workspace',
  openid: 'Know who you are (your account id)',
  email: 'See your email address',
};
