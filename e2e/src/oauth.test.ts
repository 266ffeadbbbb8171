import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import * as oauth from 'oauth4webapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { accessibilityViolations, keyboardReachable, launchChromium, openPage, saveScreenshot } from '@loupe/browser-testing';
import { latestCodeFor, startCallbackServer } from './callback-server';
import { runTool, startProcess, type Started } from './process';

// The authorization server as a person and a real client library meet it: `npm start`, a real
// Chromium on the real pages, oauth4webapi for the protocol. Screenshots land in test-artifacts/.
describe('OAuth with a real browser and a real client library', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: Started;
  let browser: Browser;
  let callbacks: Awaited<ReturnType<typeof startCallbackServer>>;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  const insecure = { [oauth.allowInsecureRequests]: true } as const; // the embedded default listens on http://localhost

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-oauth-'));
    delete process.env.DATABASE_URL;
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
    [service, browser, callbacks] = await Promise.all([startProcess(env), launchChromium(), startCallbackServer()]);
    const issuer = new URL(service.url);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
    client = (await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { client_name: 'E2E Notebook', redirect_uris: [callbacks.redirectUri], token_endpoint_auth_method: 'none' }, insecure),
    )) as oauth.Client;
  });
  afterAll(async () => {
    await browser?.close();
    await callbacks?.close();
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function authorizationUrl(scope = 'openid email mcp:read mcp:write') {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      response_type: 'code',
      client_id: client.client_id,
      redirect_uri: callbacks.redirectUri,
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier),
      code_challenge_method: 'S256',
      state,
      scope,
      resource: `${service.url}/api/mcp`,
    }).toString();
    return { url, verifier, state };
  }

  async function signIn(page: Page, email: string, shot?: string) {
    await page.getByLabel('Work email').fill(email);
    if (shot) await saveScreenshot(page, `${shot}-1-sign-in`);
    await page.getByRole('button', { name: 'Email me a code' }).click();
    await page.getByLabel('Sign-in code').waitFor();
    if (shot) await saveScreenshot(page, `${shot}-2-code`);
    let code: string | undefined;
    for (let i = 0; i < 50 && !code; i++) {
      code = latestCodeFor(service.output(), email);
      if (!code) await new Promise((r) => setTimeout(r, 100));
    }
    expect(code, 'the sign-in code is printed in the service log').toMatch(/^\d{6}$/);
    await page.getByLabel('Sign-in code').fill(code!);
    await page.getByRole('button', { name: 'Sign in' }).click();
  }

  async function exchange(callback: URL, verifier: string, state: string) {
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, callbacks.redirectUri, verifier, insecure);
    return oauth.processAuthorizationCodeResponse(as, client, res);
  }

  it('sign-up by email → create workspace → consent → code → token → userinfo → refresh → revoke', async () => {
    const page = await openPage(browser);
    const { url, verifier, state } = await authorizationUrl();
    await page.goto(url.toString());
    await expect(page.getByRole('heading', { name: 'Sign in to Loupe' }).isVisible()).resolves.toBe(true);
    expect(await accessibilityViolations(page)).toEqual([]);
    await signIn(page, 'ada@acme.test', 'signup');
    await page.getByLabel('Workspace name').fill('Acme product team');
    await saveScreenshot(page, 'signup-3-create-workspace');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: 'Connect E2E Notebook to Acme product team?' }).waitFor();
    await saveScreenshot(page, 'signup-4-consent');
    expect(await accessibilityViolations(page)).toEqual([]);
    expect(await keyboardReachable(page, ['Approve', 'Deny'])).toEqual(['Approve', 'Deny']);
    const seen = callbacks.received.length;
    await page.getByRole('button', { name: 'Approve' }).click();
    const callback = await callbacks.next(seen);
    await page.context().close();

    const tokens = await exchange(callback, verifier, state);
    expect(tokens.access_token).toMatch(/^loupe_at_/);
    expect(tokens.refresh_token).toMatch(/^loupe_rt_/);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);

    const info = await oauth.processUserInfoResponse(as, client, oauth.skipSubjectCheck, await oauth.userInfoRequest(as, client, tokens.access_token, insecure));
    expect(info).toMatchObject({ email: 'ada@acme.test', email_verified: true });

    // The token opens the MCP endpoint to the MCP SDK's own client, bound to the workspace chosen on the pages.
    const mcp = new Client({ name: 'e2e', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }));
    const names = (await mcp.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['get_products', 'find_sources', 'read_source', 'add_source']));
    const products = await mcp.callTool({ name: 'get_products', arguments: {} });
    expect(products.isError).toBeFalsy();
    expect(products.structuredContent).toMatchObject({ products: [], default_product_id: null });
    await mcp.close();

    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    // The spec's metadata (4.2) does not list revocation_endpoint; the endpoint is documented in 4.3.
    const withRevocation = { ...as, revocation_endpoint: `${service.url}/oauth/revoke` };
    await oauth.processRevocationResponse(await oauth.revocationRequest(withRevocation, client, oauth.None(), refreshed.refresh_token!, insecure));
    const after = await oauth.userInfoRequest(as, client, refreshed.access_token, insecure);
    expect(after.status).toBe(401);

    const outbox = await runTool('tools/src/admin.ts', ['mail', 'list', '--to', 'ada@acme.test'], env);
    expect(outbox.code, outbox.stderr).toBe(0);
    expect(outbox.stdout).toContain('E2E Notebook was connected to your Loupe workspace Acme product team');
    expect(outbox.stdout).toMatch(/sign-in code/i);
  });

  it('an authorization the server cannot honour explains itself on a page, without redirecting', async () => {
    const page = await openPage(browser);
    const { url } = await authorizationUrl();
    url.searchParams.set('redirect_uri', 'https://evil.example.com/steal');
    const res = await page.goto(url.toString());
    expect(res!.status()).toBe(400);
    expect(page.url()).toContain('/oauth/authorize');
    await page.getByRole('heading', { name: 'This connection cannot continue' }).waitFor();
    await saveScreenshot(page, 'error-unregistered-redirect');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.context().close();
  });

  it('Deny sends access_denied back to the client', async () => {
    const page = await openPage(browser);
    const { url, state } = await authorizationUrl();
    await page.goto(url.toString());
    await signIn(page, 'ada@acme.test');
    await page.getByRole('button', { name: 'Deny' }).waitFor();
    const seen = callbacks.received.length;
    await page.getByRole('button', { name: 'Deny' }).click();
    const callback = await callbacks.next(seen);
    await page.context().close();
    expect(callback.searchParams.get('error')).toBe('access_denied');
    expect(callback.searchParams.get('state')).toBe(state);
  });

  it('a person with two workspaces chooses one, and the token is bound to it', async () => {
    const page = await openPage(browser);
    const created = await runTool('tools/src/admin.ts', ['workspace', 'create', '--name', 'Zeta research', '--owner', 'ada@acme.test'], env);
    expect(created.code, created.stderr).toBe(0);
    const { url, verifier, state } = await authorizationUrl('mcp:read');
    await page.goto(url.toString());
    await signIn(page, 'ada@acme.test');
    await page.getByRole('heading', { name: 'Choose a workspace' }).waitFor();
    await saveScreenshot(page, 'two-workspaces-1-choose');
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.getByLabel(/Zeta research/).check();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByRole('heading', { name: 'Connect E2E Notebook to Zeta research?' }).waitFor();
    await saveScreenshot(page, 'two-workspaces-2-consent');
    const seen = callbacks.received.length;
    await page.getByRole('button', { name: 'Approve' }).click();
    const tokens = await exchange(await callbacks.next(seen), verifier, state);
    await page.context().close();
    expect(tokens.scope).toBe('mcp:read');
  });
});
