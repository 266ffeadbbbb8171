export const API_KEY_PERMISSIONS = ['api:read', 'api:write', 'mcp:read', 'mcp:write', 'mcp:thirdparty'] as const;
export type ApiKeyPermission = (typeof API_KEY_PERMISSIONS)[number];

/** Parses a comma- or space-separated list; throws naming the unknown ones. */
export function parsePermissions(input: string | readonly string[]): ApiKeyPermission[] {
  const items = (typeof input === 'string' ? input.split(/[\s,]+/) : [...input]).filter(Boolean);
  const unknown = items.filter((p) => !(API_KEY_PERMISSIONS as readonly string[]).includes(p));
  if (unknown.length) {
    throw new Error(`Unknown permission ${unknown.map((u) => `"${u}"`).join(', ')}; allowed: ${API_KEY_PERMISSIONS.join(', ')}`);
  }
  if (items.length === 0) throw new Error(`At least one permission is required; allowed: ${API_KEY_PERMISSIONS.join(', ')}`);
  return [...new Set(items)] as ApiKeyPermission[];
}
