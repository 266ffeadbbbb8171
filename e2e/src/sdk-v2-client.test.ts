import { randomBytes } from 'node:crypto';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import {
  Client, InsufficientScopeError, StreamableHTTPClientTransport, UnauthorizedError,
  type OAuthClientMetadata, type OAuthClientProvider, type OAuthDiscoveryState, type StoredOAuthClientInformation, type StoredOAuthTokens,
} from '@modelcontextprotocol/client';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { launchChromium, openPage } from '@loupe/browser-testing';
import { signInWithLoggedCode, startCallbackServer } from './callback-server';
import { registerOAuthClient } from './oauth-flow';
import { startProcess, type Started } from './process';

// Issue 25: a client of MCP revision 2026-07-28 against `npm start`: the MCP SDK v2 client
// (@modelcontextprotocol/client 2.4.0), pinned to 2026-07-28, runs discovery (its server/discover
// probe meets the 401), OAuth (protected resource metadata, authorization server metadata, dynamic
// registration, PKCE, the real sign-in and consent pages), then tools/list and tools/call, all without
// an initialize. The 2025-11-25 client (SDK v1) runs the same flow in sdk-client.test.ts.

const MODERN = '2026-07-28';

class V2Store implements OAuthClientProvider {
  client?: StoredOAuthClientInformation;
  current?: StoredOAuthTokens;
  verifier = '';
  lastState = '';
  authorizationUrls: URL[] = [];
  constructor(readonly redirectUrl: string, readonly clientName: string) {}
  get clientMetadata(): OAuthClientMetadata {
    return {
      client_name: this.clientName, redirect_uris: [this.redirectUrl], grant_types: ['authorization_code', 'refresh_token'],
      response_types: ['code'], token_endpoint_auth_method: 'none',
    };
  }
  state() {
    return (this.lastState = randomBytes(16).toString('base64url'));
  }
  clientInformation() {
    return this.client;
  }
  saveClientInformation(info: StoredOAuthClientInformation) {
    this.client = info;
  }
  tokens() {
    return this.current;
  }
  saveTokens(tokens: StoredOAuthTokens) {
    this.current = tokens;
  }
  redirectToAuthorization(url: URL) {
    this.authorizationUrls.push(url);
  }
  saveCodeVerifier(verifier: string) {
    this.verifier = verifier;
  }
  codeVerifier() {
    return this.verifier;
  }
  // Kept with the verifier, so the callback leg can check the authorization server it began with (SEP-2352).
  discovery?: OAuthDiscoveryState;
  saveDiscoveryState(state: OAuthDiscoveryState) {
    this.discovery = state;
  }
  discoveryState() {
    return this.discovery;
  }
}

describe('an MCP 2026-07-28 client (SDK v2) against npm start', () => {
  let dataDir: string;
  let service: Started;
  let browser: Browser;
  let callbacks: Awaited<ReturnType<typeof startCallbackServer>>;
  let mcpUrl: URL;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-sdk-v2-'));
    delete process.env.DATABASE_URL;
    const env = { DATA_DIR: path.join(dataDir, 'data'), PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
    [service, browser, callbacks] = await Promise.all([startProcess(env), launchChromium(), startCallbackServer()]);
    mcpUrl = new URL(`${service.url}/api/mcp`);
  });
  afterAll(async () => {
    await browser?.close();
    await callbacks?.close();
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('discovery → OAuth authorization → tools/list → tools/call, with no initialize and every request at 2026-07-28', async () => {
    const provider = new V2Store(callbacks.redirectUri, 'Modern Notebook');
    const traffic: Array<{ method: string; path: string; status: number; version?: string; mcpMethod?: string; rpc?: string; scopeHint?: string }> = [];
    const observed = async (input: string | URL | Request, init?: RequestInit) => {
      const res = await fetch(input, init);
      const url = new URL(input instanceof Request ? input.url : String(input));
      const headers = new Headers(init?.headers);
      const rpc = typeof init?.body === 'string' ? (JSON.parse(init.body) as { method?: string }).method : undefined;
      traffic.push({
        method: init?.method ?? 'GET', path: url.pathname, status: res.status, rpc,
        version: headers.get('mcp-protocol-version') ?? undefined, mcpMethod: headers.get('mcp-method') ?? undefined,
        scopeHint: /scope="([^"]*)"/.exec(res.headers.get('www-authenticate') ?? '')?.[1],
      });
      return res;
    };
    const newClient = () => new Client({ name: 'modern-e2e', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });

    // No token: the server/discover probe meets the 401 (with the scope hint), the client discovers the
    // authorization server from the metadata, registers and asks the user to authorize.
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: observed });
    await expect(newClient().connect(first)).rejects.toThrow(UnauthorizedError);
    const flow = traffic.map((t) => `${t.method} ${t.path} ${t.status}`);
    expect(flow[0]).toBe('POST /api/mcp 401');
    expect(traffic[0]).toMatchObject({ rpc: 'server/discover', version: MODERN, mcpMethod: 'server/discover', scopeHint: 'mcp:read mcp:write' });
    expect(flow).toContain('GET /.well-known/oauth-protected-resource/api/mcp 200');
    expect(flow.filter((f) => /^GET \/\.well-known\/(oauth-authorization-server|openid-configuration)/.test(f))).not.toEqual([]);
    expect(flow.at(-1)).toBe('POST /oauth/register 201');
    const authorizationUrl = provider.authorizationUrls[0]!;
    expect(Object.fromEntries(authorizationUrl.searchParams)).toMatchObject({
      response_type: 'code', client_id: provider.client!.client_id, redirect_uri: callbacks.redirectUri,
      code_challenge_method: 'S256', resource: mcpUrl.href, state: provider.lastState, scope: 'mcp:read mcp:write',
    });

    // The person signs up on the real pages, creates a workspace and approves.
    const page = await openPage(browser);
    await page.goto(authorizationUrl.href);
    await signInWithLoggedCode(page, 'modern@acme.test', () => service.output());
    await page.getByLabel('Workspace name').fill('Modern team');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: 'Connect Modern Notebook to Modern team?' }).waitFor();
    const seen = callbacks.received.length;
    await page.getByRole('button', { name: 'Approve' }).click();
    const callback = await callbacks.next(seen);
    await page.context().close();
    expect(callback.searchParams.get('state')).toBe(provider.lastState);
    expect(callback.searchParams.get('iss')).toBe(service.url); // RFC 9207, which 2026-07-28 clients validate
    await first.finishAuth(callback.searchParams); // code and iss, the issuer checked first
    expect(provider.tokens()).toMatchObject({ token_type: 'bearer', access_token: expect.stringMatching(/^loupe_at_/), scope: 'mcp:read mcp:write' });

    // With the token: server/discover, then tools, all at 2026-07-28 and none of them initialize.
    const mark = traffic.length;
    const client = newClient();
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: observed }));
    expect(client.getNegotiatedProtocolVersion()).toBe(MODERN);
    expect(client.getServerVersion()).toMatchObject({ name: 'loupe', websiteUrl: service.url });
    const { tools } = await client.listTools();
    const names = tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['get_products', 'find_sources', 'read_source', 'add_source', 'add_signals']));
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(names); // deterministic order
    const products = await client.callTool({ name: 'get_products', arguments: {} });
    expect(products.isError).toBeFalsy();
    expect(products.structuredContent).toEqual({ products: [] });
    const unknown = await client.callTool({ name: 'no_such_tool', arguments: {} }).then(() => undefined, (e: unknown) => e as Error);
    expect(unknown?.message).toMatch(/Unknown tool no_such_tool/);
    const posts = traffic.slice(mark).filter((t) => t.method === 'POST' && t.path === '/api/mcp');
    expect(posts.map((t) => t.rpc)).not.toContain('initialize');
    expect(posts.map((t) => t.rpc)).toEqual(expect.arrayContaining(['server/discover', 'tools/list', 'tools/call']));
    for (const t of posts) expect(t, JSON.stringify(t)).toMatchObject({ version: MODERN, mcpMethod: t.rpc });
    await client.close();
  });

  it('a token without mcp:write calling a signal writer: 403 insufficient_scope that the client reads as a step-up naming mcp:write', async () => {
    // A read-only token for the same person and workspace, by oauth4webapi on the real pages.
    const oauth = await registerOAuthClient(service, callbacks, 'Reader Notebook');
    const tokens = await oauth.authorizeAs(browser, 'modern@acme.test', 'Modern team', 'mcp:read');
    expect(tokens.scope).toBe('mcp:read');
    const client = new Client({ name: 'modern-reader', version: '1.0.0' }, { versionNegotiation: { mode: { pin: MODERN } } });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }));
    expect((await client.listTools()).tools.map((t) => t.name)).not.toContain('add_signals');
    expect((await client.callTool({ name: 'get_products', arguments: {} })).isError).toBeFalsy();
    const refused = await client.callTool({ name: 'add_signals', arguments: { source_id: 'src_x', signals: [{ type: 'need', title: 't', content: 'c' }] } })
      .then(() => undefined, (e: unknown) => e);
    expect(refused).toBeInstanceOf(InsufficientScopeError);
    expect(refused).toMatchObject({ requiredScope: 'mcp:read mcp:write', resourceMetadataUrl: new URL(`${service.url}/.well-known/oauth-protected-resource/api/mcp`) });
    await client.close();
  });
});
