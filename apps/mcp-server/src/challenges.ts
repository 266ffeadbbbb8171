import { SCOPES } from '@loupe/oauth';
import type { Answer } from './modern';
import type { Principal } from './principal';
import type { ToolDefinition } from './tool-kit';

/** The MCP endpoint's path (spec 4.1). */
export const MCP_PATH = '/api/mcp';

/** Where a client finds the protected resource metadata (RFC 9728), named in every challenge. */
export const resourceMetadataUrl = (baseUrl: string) => `${baseUrl}/.well-known/oauth-protected-resource${MCP_PATH}`;

/** The scopes a connection needs to use the tools, hinted in the 401 challenge (MCP authorization, scope selection). */
export const CHALLENGE_SCOPES = 'mcp:read mcp:write';

/**
 * The 401 challenge (spec 5.1 rule 4) with the `scope` hint of MCP 2025-11-25 and 2026-07-28 (RFC 6750
 * section 3). Every era gets it: a client's first request (`initialize`) names no version in its headers,
 * and a client of an earlier revision ignores a parameter it does not know.
 */
export const challengeHeader = (baseUrl: string) => `Bearer resource_metadata="${resourceMetadataUrl(baseUrl)}", scope="${CHALLENGE_SCOPES}"`;

/** The protocol versions whose authorization text asks for the 403 step-up (2025-11-25 "Scope Challenge Handling", and 2026-07-28). */
export const STEP_UP_VERSIONS: readonly string[] = ['2026-07-28', '2025-11-25'];

/**
 * 403 insufficient_scope (RFC 6750 3.1; MCP authorization, runtime insufficient scope errors) when an
 * OAuth caller calls a tool that needs a scope its token lacks. The `scope` named is what the token holds
 * and what the tool needs (the revisions' recommended approach), so stepping up loses nothing already
 * granted. An API key cannot step up: it keeps spec 7.4's tool error, as do the earlier revisions.
 */
export function stepUp(baseUrl: string, principal: Principal, tool: ToolDefinition | undefined): Answer | undefined {
  if (principal.kind !== 'oauth' || tool?.access !== 'write' || principal.scopes.has('mcp:write')) return undefined;
  const scope = SCOPES.filter((s) => s === 'mcp:write' || principal.scopes.has(s)).join(' ');
  const description = `${tool.name} needs the mcp:write scope, which this access token was not granted: authorize again with mcp:write`;
  return {
    status: 403,
    headers: { 'www-authenticate': `Bearer error="insufficient_scope", scope="${scope}", resource_metadata="${resourceMetadataUrl(baseUrl)}", error_description="${description}"` },
    body: { error: 'insufficient_scope', error_description: description, scope },
  };
}
