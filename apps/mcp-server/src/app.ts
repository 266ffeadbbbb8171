import { Router } from 'express';

export interface McpAppDeps {
  baseUrl: () => string;
}

export const MCP_PATH = '/api/mcp';
export const MCP_SCOPES = ['mcp:read', 'mcp:write', 'mcp:thirdparty', 'openid', 'email'] as const;

/** RFC 9728 protected-resource metadata for the MCP endpoint. */
export function protectedResourceMetadata(baseUrl: string) {
  return {
    resource: `${baseUrl}${MCP_PATH}`,
    authorization_servers: [baseUrl],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ['header'],
    resource_signing_alg_values_supported: ['RS256'],
  };
}

/**
 * The MCP surface as far as the transport rules go (spec 4.1, 4.2, 5.1): discovery,
 * 405 for GET/DELETE, and the 401 challenge for requests without credentials.
 * Tools arrive with the MCP issue.
 */
export function createMcpApp(deps: McpAppDeps): Router {
  const router = Router();
  const metadata = (_req: unknown, res: import('express').Response) => {
    res.setHeader('cache-control', 'public, max-age=3600');
    // Browser-based clients (the MCP Inspector) read it cross-origin.
    res.setHeader('access-control-allow-origin', '*');
    res.json(protectedResourceMetadata(deps.baseUrl()));
  };
  router.get('/.well-known/oauth-protected-resource', metadata);
  router.get(`/.well-known/oauth-protected-resource${MCP_PATH}`, metadata);
  router.all(MCP_PATH, (req, res, next) => {
    if (req.method === 'GET' || req.method === 'DELETE') {
      res.status(405).setHeader('allow', 'POST');
      res.json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed: this server is stateless; use POST' }, id: null });
      return;
    }
    if (req.method === 'POST' && !req.get('authorization') && !req.get('x-api-key')) {
      res.status(401).setHeader(
        'www-authenticate',
        `Bearer resource_metadata="${deps.baseUrl()}/.well-known/oauth-protected-resource${MCP_PATH}"`,
      );
      res.json({ error: 'Unauthorized', error_description: 'Send an OAuth access token (Authorization: Bearer) or an API key (x-api-key)' });
      return;
    }
    next();
  });
  return router;
}
