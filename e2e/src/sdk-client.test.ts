import { randomBytes } from 'node:crypto';
import https from 'node:https';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { UnauthorizedError, type OAuthClientProvider } from '@modelcontextprotocol/sdk/client/auth.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { OAuthClientInformationMixed, OAuthClientMetadata, OAuthTokens } from '@modelcontextprotocol/sdk/shared/auth.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { accessibilityViolations, launchChromium, openPage, saveScreenshot } from '@loupe/browser-testing';
import { signInWithLoggedCode, startCallbackServer } from './callback-server';
import { startProcess, type Started } from './process';
import { createTestCa, type TestCa } from './test-ca';

// Two ways real clients meet `npm start`, neither written by us: the MCP SDK's own client, which runs
// the whole OAuth flow itself (discovery from the 401, dynamic registration, PKCE, refresh on expiry),
// and oauth4webapi with a client ID metadata document served over https by this test.
// Access tokens live ACCESS_TOKEN_TTL_SECONDS here, so expiry happens for real, on the service's own clock.
const ACCESS_TOKEN_TTL_SECONDS = 10;
const insecure = { [oauth.allowInsecureRequests]: true } as const; // the service listens on http://localhost

describe('real OAuth clients against npm start', () => {
  let dataDir: string;
  let service: Started;
  let browser: Browser;
  let callbacks: Awaited<ReturnType<typeof startCallbackServer>>;
  let ca: TestCa;
  let mcpUrl: URL;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-sdk-'));
    ca = createTestCa(dataDir);
    delete process.env.DATABASE_URL;
    const env = {
      DATA_DIR: path.join(dataDir, 'data'), PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()),
      ACCESS_TOKEN_TTL_SECONDS: String(ACCESS_TOKEN_TTL_SECONDS),
      // The metadata documents below are on loopback, over https signed by the test's CA: the service
      // trusts that CA through Node's own NODE_EXTRA_CA_CERTS, in addition to the system's.
      FETCH_ALLOW_LOOPBACK: 'true', NODE_EXTRA_CA_CERTS: ca.caPath,
    };
    [service, browser, callbacks] = await Promise.all([startProcess(env), launchChromium(), startCallbackServer()]);
    mcpUrl = new URL(`${service.url}/api/mcp`);
  });
  afterAll(async () => {
    await browser?.close();
    await callbacks?.close();
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** Signs up on the real pages with the emailed code, creates the first workspace, approves; the callback. */
  async function signUpAndApprove(page: Page, email: string, workspace: string, clientName: string, shot: string, onConsent?: () => Promise<void>) {
    await signInWithLoggedCode(page, email, () => service.output());
    await page.getByLabel('Workspace name').fill(workspace);
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: `Connect ${clientName} to ${workspace}?` }).waitFor();
    await saveScreenshot(page, `${shot}-consent`);
    expect(await accessibilityViolations(page)).toEqual([]);
    await onConsent?.();
    const seen = callbacks.received.length;
    await page.getByRole('button', { name: 'Approve' }).click();
    return callbacks.next(seen);
  }

  it('MCP SDK client: 401 → discovery → registration → sign-in and consent → tools → expiry and refresh by itself → revoke → unauthorized', async () => {
    const provider = new SdkClientStore(callbacks.redirectUri, 'SDK Notebook');
    const traffic: Array<{ method: string; path: string; status: number }> = [];
    // The SDK's requests, observed on their way through (discovery, registration, token and MCP requests alike).
    const observed: typeof fetch = async (input, init) => {
      const res = await fetch(input, init);
      const url = new URL(input instanceof Request ? input.url : String(input));
      traffic.push({ method: init?.method ?? 'GET', path: url.pathname, status: res.status });
      return res;
    };

    // No token yet: the SDK follows the 401 to the metadata, registers itself and asks the user to authorize.
    const first = new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: observed });
    await expect(new Client({ name: 'sdk-e2e', version: '1.0.0' }).connect(first)).rejects.toThrow(UnauthorizedError);
    expect(traffic.map((t) => `${t.method} ${t.path} ${t.status}`)).toEqual([
      'POST /api/mcp 401',
      'GET /.well-known/oauth-protected-resource/api/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /oauth/register 201',
    ]);
    expect(provider.client?.client_id).toMatch(/^cli_/);
    expect(provider.authorizationUrls).toHaveLength(1);
    const authorizationUrl = provider.authorizationUrls[0]!;
    expect(Object.fromEntries(authorizationUrl.searchParams)).toMatchObject({
      response_type: 'code', client_id: provider.client!.client_id, redirect_uri: callbacks.redirectUri,
      code_challenge_method: 'S256', resource: mcpUrl.href, state: provider.lastState,
    });

    const page = await openPage(browser);
    await page.goto(authorizationUrl.href);
    await page.getByRole('heading', { name: 'Sign in to Loupe' }).waitFor();
    await saveScreenshot(page, 'sdk-client-1-sign-in');
    const callback = await signUpAndApprove(page, 'sdk@acme.test', 'SDK team', 'SDK Notebook', 'sdk-client-2');
    await page.context().close();
    expect(callback.searchParams.get('state')).toBe(provider.lastState);
    await first.finishAuth(callback.searchParams.get('code')!);
    const issued = provider.saved[0]!;
    expect(issued.tokens).toMatchObject({ token_type: 'bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS });
    expect(issued.tokens.access_token).toMatch(/^loupe_at_/);
    expect(issued.tokens.refresh_token).toMatch(/^loupe_rt_/);
    // The 401's scope hint (MCP 2025-11-25) is what the SDK asks for, rather than every scope the metadata lists.
    expect(authorizationUrl.searchParams.get('scope')).toBe('mcp:read mcp:write');
    expect(issued.tokens.scope?.split(' ').sort()).toEqual(['mcp:read', 'mcp:write']);

    await first.close();

    // A new connection with the same provider, as the SDK's own examples do after finishAuth.
    const client = new Client({ name: 'sdk-e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(mcpUrl, { authProvider: provider, fetch: observed }));
    const names = (await client.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['get_products', 'find_sources', 'read_source', 'add_source']));
    const products = await client.callTool({ name: 'get_products', arguments: {} });
    expect(products.isError).toBeFalsy();
    expect(products.structuredContent).toEqual({ products: [] }); // no default product: left out (results carry no nulls)

    // Let the access token in hand lapse on the service's clock, then call again: the service answers
    // 401 invalid_token, and the SDK refreshes by itself and repeats the call.
    const held = provider.saved.at(-1)!;
    await new Promise((r) => setTimeout(r, Math.max(0, held.at + held.tokens.expires_in! * 1000 + 100 - Date.now())));
    const mark = traffic.length;
    const again = await client.callTool({ name: 'get_products', arguments: {} });
    expect(again.isError).toBeFalsy();
    expect(traffic.slice(mark).map((t) => `${t.method} ${t.path} ${t.status}`)).toEqual([
      'POST /api/mcp 401',
      'GET /.well-known/oauth-protected-resource/api/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /oauth/token 200',
      'POST /api/mcp 200',
    ]);
    const refreshed = provider.saved.at(-1)!.tokens;
    expect(refreshed.access_token).not.toBe(held.tokens.access_token);
    expect(refreshed.refresh_token).not.toBe(held.tokens.refresh_token);

    // RFC 7009 revocation of the refresh token, by oauth4webapi: the whole family ends. The SDK's next call
    // gets 401, its refresh is refused, it drops the tokens and asks the user to authorize again.
    const as = await oauth.processDiscoveryResponse(new URL(service.url), await oauth.discoveryRequest(new URL(service.url), { ...insecure, algorithm: 'oauth2' }));
    const withRevocation = { ...as, revocation_endpoint: `${service.url}/oauth/revoke` };
    const revocation = await oauth.revocationRequest(withRevocation, { client_id: provider.client!.client_id }, oauth.None(), refreshed.refresh_token!, insecure);
    expect(revocation.status).toBe(200);
    await oauth.processRevocationResponse(revocation);
    const beforeRevoked = traffic.length;
    await expect(client.callTool({ name: 'get_products', arguments: {} })).rejects.toThrow(UnauthorizedError);
    expect(traffic.slice(beforeRevoked).map((t) => `${t.method} ${t.path} ${t.status}`)).toEqual([
      'POST /api/mcp 401',
      'GET /.well-known/oauth-protected-resource/api/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
      'POST /oauth/token 400',
      'GET /.well-known/oauth-protected-resource/api/mcp 200',
      'GET /.well-known/oauth-authorization-server 200',
    ]);
    expect(provider.invalidated).toEqual(['tokens']);
    expect(provider.tokens()).toBeUndefined();
    expect(provider.authorizationUrls).toHaveLength(2);
    await client.close();
  });

  it('oauth4webapi with a client ID metadata document served over https on loopback', async () => {
    const clientName = 'Doc Notebook';
    const hits: string[] = [];
    const docs = https.createServer({ key: ca.key, cert: ca.cert }, (req, res) => {
      hits.push(req.url!);
      if (req.url !== '/mcp/client.json') return void res.writeHead(404).end();
      res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({
        client_id: clientId, client_name: clientName, redirect_uris: [callbacks.redirectUri],
        grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none',
      }));
    });
    const handshakeErrors: string[] = [];
    docs.on('tlsClientError', (error) => handshakeErrors.push(error.message));
    await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
    const clientId = `https://localhost:${(docs.address() as AddressInfo).port}/mcp/client.json`;
    try {
      const issuer = new URL(service.url);
      const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
      expect(as.client_id_metadata_document_supported).toBe(true);
      const client: oauth.Client = { client_id: clientId, token_endpoint_auth_method: 'none' };

      const verifier = oauth.generateRandomCodeVerifier();
      const state = oauth.generateRandomState();
      const url = new URL(as.authorization_endpoint!);
      url.search = new URLSearchParams({
        response_type: 'code', client_id: clientId, redirect_uri: callbacks.redirectUri, state, scope: 'mcp:read mcp:write',
        code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', resource: mcpUrl.href,
      }).toString();
      const page = await openPage(browser);
      await page.goto(url.href);
      await page.getByRole('heading', { name: 'Sign in to Loupe' }).waitFor();
      expect(hits).toEqual(['/mcp/client.json']);
      const callback = await signUpAndApprove(page, 'doc@acme.test', 'Doc team', clientName, 'cimd-client', async () => {
        // The consent page names the document's application and warns: not verified by Loupe, and it runs on this computer.
        await expect(page.getByText('Loupe has not verified this application.').isVisible()).resolves.toBe(true);
        await expect(page.getByText('It runs on a computer').isVisible()).resolves.toBe(true);
      });
      await page.context().close();

      const params = oauth.validateAuthResponse(as, client, callback, state);
      const tokens = await oauth.processAuthorizationCodeResponse(as, client,
        await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, callbacks.redirectUri, verifier, { ...insecure, additionalParameters: { resource: mcpUrl.href } }));
      expect(tokens).toMatchObject({ token_type: 'bearer', expires_in: ACCESS_TOKEN_TTL_SECONDS, scope: 'mcp:read mcp:write' });
      expect(hits, 'the document is fetched once and cached').toEqual(['/mcp/client.json']);

      const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure));
      expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);
      const mcp = new Client({ name: 'cimd-e2e', version: '1.0.0' });
      await mcp.connect(new StreamableHTTPClientTransport(mcpUrl, { requestInit: { headers: { authorization: `Bearer ${refreshed.access_token}` } } }));
      const products = await mcp.callTool({ name: 'get_products', arguments: {} });
      expect(products.structuredContent).toEqual({ products: [] }); // no default product: left out (results carry no nulls)
      await mcp.close();

      const withRevocation = { ...as, revocation_endpoint: `${service.url}/oauth/revoke` };
      await oauth.processRevocationResponse(await oauth.revocationRequest(withRevocation, client, oauth.None(), refreshed.refresh_token!, insecure));
      const dead = await fetch(mcpUrl, {
        method: 'POST',
        headers: { authorization: `Bearer ${refreshed.access_token}`, 'content-type': 'application/json', accept: 'application/json, text/event-stream' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
      });
      expect(dead.status).toBe(401);
      expect(await dead.json()).toMatchObject({ error: 'invalid_token' });
      const again = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, insecure);
      await expect(oauth.processRefreshTokenResponse(as, client, again)).rejects.toMatchObject({ error: 'invalid_grant' });
    } finally {
      docs.closeAllConnections();
      await new Promise((r) => docs.close(r));
    }
  });

  it('a metadata document behind a certificate the service does not trust is refused, not fetched blindly', async () => {
    const stranger = createTestCa(await mkdtemp(path.join(dataDir, 'stranger-')), 'Unknown CA');
    let served = 0;
    // A valid document: the certificate is the only thing wrong with it.
    const docs = https.createServer({ key: stranger.key, cert: stranger.cert }, (_req, res) => {
      served++;
      res.writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ client_id: clientId, client_name: 'Stranger', redirect_uris: [callbacks.redirectUri], token_endpoint_auth_method: 'none' }));
    });
    const handshakeErrors: string[] = [];
    docs.on('tlsClientError', (error) => handshakeErrors.push(error.message));
    await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
    const clientId = `https://localhost:${(docs.address() as AddressInfo).port}/mcp/client.json`;
    try {
      const url = new URL(`${service.url}/oauth/authorize`);
      url.search = new URLSearchParams({
        response_type: 'code', client_id: clientId, redirect_uri: callbacks.redirectUri, state: 'x',
        code_challenge: await oauth.calculatePKCECodeChallenge(oauth.generateRandomCodeVerifier()), code_challenge_method: 'S256',
      }).toString();
      const res = await fetch(url, { redirect: 'manual' });
      expect(res.status).toBe(400);
      expect(await res.text()).toMatch(/metadata document fetch failed[\s\S]*invalid_client/i);
      expect(served, 'no request got through').toBe(0);
      expect(handshakeErrors.length, 'the service broke off the TLS handshake').toBeGreaterThan(0);
    } finally {
      docs.closeAllConnections();
      await new Promise((r) => docs.close(r));
    }
  });
});

/**
 * What the SDK asks an application to keep for it (OAuthClientProvider): the registration, the tokens,
 * the PKCE verifier, the state. The flow itself is the SDK's; this only stores and records.
 */
class SdkClientStore implements OAuthClientProvider {
  client: OAuthClientInformationMixed | undefined;
  current: OAuthTokens | undefined;
  verifier = '';
  lastState = '';
  readonly saved: Array<{ tokens: OAuthTokens; at: number }> = [];
  readonly authorizationUrls: URL[] = [];
  readonly invalidated: string[] = [];

  constructor(readonly redirectUrl: string, private readonly clientName: string) {}

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
  saveClientInformation(info: OAuthClientInformationMixed) {
    this.client = info;
  }
  tokens() {
    return this.current;
  }
  saveTokens(tokens: OAuthTokens) {
    this.current = tokens;
    this.saved.push({ tokens, at: Date.now() });
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
  invalidateCredentials(scope: 'all' | 'client' | 'tokens' | 'verifier' | 'discovery') {
    this.invalidated.push(scope);
    if (scope === 'all' || scope === 'client') this.client = undefined;
    if (scope === 'all' || scope === 'tokens') this.current = undefined;
  }
}
