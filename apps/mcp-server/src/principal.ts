/** Who is calling, established from the credential alone (spec 5.1): the workspace never comes from the request. */
export interface Principal {
  kind: 'oauth' | 'api_key';
  workspaceId: string;
  /** The person acting: the token's user, or the user who created the key (null for a key made by the admin CLI). */
  userId: string | null;
  /** mcp:read, mcp:write (and mcp:thirdparty for keys). */
  scopes: ReadonlySet<string>;
  /** A key's default product; OAuth connections have none. */
  defaultProductId: string | null;
  clientId?: string;
  keyId?: string;
  /** What the per-credential rate limit counts: one access token, or one API key. */
  rateKey: string;
}
