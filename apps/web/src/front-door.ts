import { Router, type RequestHandler } from 'express';
import { renderPage } from './pages';

/** Where the MCP endpoint is on the public host (the MCP server's MCP_PATH; apps do not import each other). */
const MCP_PATH = '/api/mcp';

/** The addresses a person or a program starts from, on the public base URL. */
export function frontDoorLinks(base: string) {
  return {
    name: 'Loupe',
    description: 'Customer evidence for product teams, served to AI assistants over MCP.',
    mcp: `${base}${MCP_PATH}`,
    api: `${base}/api/v1`,
    openapi: `${base}/api/v1/openapi.json`,
    docs: `${base}/docs`,
    account: `${base}/account`,
    authorization_server: `${base}/.well-known/oauth-authorization-server`,
  };
}

/**
 * `GET /` (and HEAD): the front door. A browser (one that prefers text/html to JSON) gets a small page:
 * sign in, the evidence pages, the MCP URL to copy, the API reference. Anything else, `*\/*` and no
 * Accept header included (curl, scripts), gets the same addresses as JSON.
 */
export function frontDoor(baseUrl: () => string, pageHeaders: RequestHandler): Router {
  const router = Router();
  router.get('/', (req, res, next) => {
    res.vary('Accept');
    const links = frontDoorLinks(baseUrl());
    if (req.accepts(['json', 'html']) !== 'html') {
      res.setHeader('cache-control', 'no-store');
      res.json(links);
      return;
    }
    pageHeaders(req, res, (error?: unknown) => {
      if (error) return next(error);
      renderPage(res, 'front', {
        title: 'Customer evidence for product teams',
        wide: true,
        copyScript: true,
        mcpUrl: links.mcp,
        cursorClientId: `${baseUrl()}/oauth/clients/cursor`,
      });
    });
  });
  return router;
}
