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
import { startCallbackServer } from './callback-server';
import { insecure, registerOAuthClient } from './oauth-flow';
import { runTool, startProcess, type Started } from './process';

// The authorization server as a person and a real client library meet it: `npm start`, a real
// Chromium on the real pages, oauth4webapi for the protocol. Screenshots land in test-artifacts/.
describe('OAuth with a real browser and a real client library', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: Started;
  let browser: Browser;
  let callbacks: Awaited<ReturnType<typeof startCallbackServer>>;
  let flow: Awaited<ReturnType<typeof registerOAuthClient>>;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-oauth-'));
    delete process.env.DATABASE_URL;
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
    [service, browser, callbacks] = await Promise.all([startProcess(env), launchChromium(), startCallbackServer()]);
    flow = await registerOAuthClient(service, callbacks);
  });
  afterAll(async () => {
    await browser?.close();
    await callbacks?.close();
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  // The sign-up flow keeps a screenshot of each sign-in step.
  const signIn = (page: Page, email: string, shot?: string) =>
    flow.signIn(page, email, async (step) => {
      if (shot) await saveScreenshot(page, `${shot}-${step === 'sign-in' ? '1-sign-in' : '2-code'}`);
    });

  it('sign-up by email → create workspace → consent → code → token → userinfo → refresh → revoke', async () => {
    const page = await openPage(browser);
    const { url, verifier, state } = await flow.authorizationUrl();
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

    const tokens = await flow.exchange(callback, verifier, state);
    expect(tokens.access_token).toMatch(/^loupe_at_/);
    expect(tokens.refresh_token).toMatch(/^loupe_rt_/);
    expect(tokens.token_type).toBe('bearer');
    expect(tokens.expires_in).toBe(3600);

    const info = await oauth.processUserInfoResponse(flow.as, flow.client, oauth.skipSubjectCheck, await oauth.userInfoRequest(flow.as, flow.client, tokens.access_token, insecure));
    expect(info).toMatchObject({ email: 'ada@acme.test', email_verified: true });

    // The token opens the MCP endpoint to the MCP SDK's own client, bound to the workspace chosen on the pages.
    const mcp = new Client({ name: 'e2e', version: '1.0.0' });
    await mcp.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/api/mcp`), { requestInit: { headers: { authorization: `Bearer ${tokens.access_token}` } } }));
    const names = (await mcp.listTools()).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(['get_products', 'find_sources', 'read_source', 'add_source']));
    const products = await mcp.callTool({ name: 'get_products', arguments: {} });
    expect(products.isError).toBeFalsy();
    expect(products.structuredContent).toEqual({ products: [] }); // no default product: left out (results carry no nulls)
    await mcp.close();

    const refreshed = await oauth.processRefreshTokenResponse(flow.as, flow.client, await oauth.refreshTokenGrantRequest(flow.as, flow.client, oauth.None(), tokens.refresh_token!, insecure));
    expect(refreshed.refresh_token).not.toBe(tokens.refresh_token);

    // The spec's metadata (4.2) does not list revocation_endpoint; the endpoint is documented in 4.3.
    const withRevocation = { ...flow.as, revocation_endpoint: `${service.url}/oauth/revoke` };
    await oauth.processRevocationResponse(await oauth.revocationRequest(withRevocation, flow.client, oauth.None(), refreshed.refresh_token!, insecure));
    const after = await oauth.userInfoRequest(flow.as, flow.client, refreshed.access_token, insecure);
    expect(after.status).toBe(401);

    const outbox = await runTool('tools/src/admin.ts', ['mail', 'list', '--to', 'ada@acme.test'], env);
    expect(outbox.code, outbox.stderr).toBe(0);
    // The subject is fixed text (issue 23: no free text chosen by others); the names are in the body.
    expect(outbox.stdout).toContain('An application was connected to your Loupe workspace');
    expect(outbox.stdout).toContain('E2E Notebook now has access to the Loupe workspace "Acme product team"');
    expect(outbox.stdout).toMatch(/sign-in code/i);
  });

  it('an authorization the server cannot honour explains itself on a page, without redirecting', async () => {
    const page = await openPage(browser);
    const { url } = await flow.authorizationUrl();
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
    const { url, state } = await flow.authorizationUrl();
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
    const { url, verifier, state } = await flow.authorizationUrl('mcp:read');
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
    const tokens = await flow.exchange(await callbacks.next(seen), verifier, state);
    await page.context().close();
    expect(tokens.scope).toBe('mcp:read');
  });
});
