import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpApp } from './app';

describe('MCP transport rules', () => {
  let base: string;
  let close: () => void;
  beforeAll(async () => {
    const app = express();
    app.use(createMcpApp({ baseUrl: () => base }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((r) => server.once('listening', r));
    base = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    close = () => server.close();
  });
  afterAll(() => close());

  it('publishes protected-resource metadata at both addresses, cacheable for an hour', async () => {
    for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/mcp']) {
      const res = await fetch(base + path);
      expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
      expect(await res.json()).toMatchObject({ resource: `${base}/api/mcp`, authorization_servers: [base], bearer_methods_supported: ['header'] });
    }
  });

  it('answers GET and DELETE with 405 and JSON-RPC -32000', async () => {
    for (const method of ['GET', 'DELETE']) {
      const res = await fetch(`${base}/api/mcp`, { method });
      expect(res.status).toBe(405);
      expect(((await res.json()) as { error: { code: number } }).error.code).toBe(-32000);
    }
  });

  it('challenges a request without credentials', async () => {
    const res = await fetch(`${base}/api/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(res.headers.get('www-authenticate')).toBe(`Bearer resource_metadata="${base}/.well-known/oauth-protected-resource/api/mcp", scope="mcp:read mcp:write"`);
  });
});
