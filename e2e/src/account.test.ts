import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import nodemailer from 'nodemailer';
import * as oauth from 'oauth4webapi';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { accessibilityViolations, launchChromium, saveScreenshot } from '@loupe/browser-testing';
import { startTestIdp, type TestIdp } from '@loupe/auth-server/testing';
import { signInWithLoggedCode, startCallbackServer } from './callback-server';
import { runTool, startProcess, type Started } from './process';

// The account pages of `npm start` in a real Chromium, and what they change seen from the MCP
// endpoint: keys, members and connected applications. Screenshots in test-artifacts/screenshots.
describe('account pages', () => {
  let dataDir: string;
  let service: Started;
  let browser: Browser;
  let callbacks: Awaited<ReturnType<typeof startCallbackServer>>;
  let as: oauth.AuthorizationServer;
  let client: oauth.Client;
  const insecure = { [oauth.allowInsecureRequests]: true } as const;
  const contexts: BrowserContext[] = [];
  let smtpPort: number;
  let idp: TestIdp;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-account-'));
    delete process.env.DATABASE_URL;
    smtpPort = await freePort();
    const port = await freePort();
    // A second OpenID Connect provider on loopback, configured the way an operator would: by environment.
    idp = await startTestIdp({ grace: { email: 'grace@acme.test', email_verified: true, name: 'Grace Hopper' } });
    idp.start(`http://localhost:${port}/auth/idp/callback`);
    const env = {
      DATA_DIR: dataDir, PORT: String(port), EMBEDDED_PG_PORT: String(await freePort()),
      MAIL_REPLY_DOMAIN: 'replies.loupe.test', INBOUND_SMTP_PORT: String(smtpPort),
      OIDC_PROVIDERS: 'testidp', OIDC_TESTIDP_ISSUER: idp.issuer, OIDC_TESTIDP_CLIENT_ID: idp.clientId,
      OIDC_TESTIDP_CLIENT_SECRET: idp.clientSecret, OIDC_TESTIDP_NAME: 'Test IdP', FETCH_ALLOW_LOOPBACK: 'true',
    };
    [service, browser, callbacks] = await Promise.all([startProcess(env), launchChromium(), startCallbackServer()]);
    const issuer = new URL(service.url);
    as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
    client = (await oauth.processDynamicClientRegistrationResponse(
      await oauth.dynamicClientRegistrationRequest(as, { client_name: 'Research Notebook', redirect_uris: [callbacks.redirectUri], token_endpoint_auth_method: 'none' }, insecure),
    )) as oauth.Client;
  }, 120_000);
  afterAll(async () => {
    for (const c of contexts) await c.close().catch(() => {});
    await browser?.close();
    await callbacks?.close();
    await service?.stop();
    await idp?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function newPage(): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1200, height: 860 } });
    contexts.push(context);
    return context.newPage();
  }

  /** Checks the page has no serious or critical accessibility violations, and saves its screenshot. */
  async function look(page: Page, name: string) {
    expect(await accessibilityViolations(page), name).toEqual([]);
    await saveScreenshot(page, `account-${name}`);
  }

  const signIn = (page: Page, email: string) => signInWithLoggedCode(page, email, () => service.output());

  /** The link of the newest invitation mail to `email`, from the local outbox (the log never shows it: it is a secret). */
  async function invitationLink(email: string): Promise<string | undefined> {
    const listed = await runTool('tools/src/admin.ts', ['mail', 'list', '--to', email, '--limit', '5'], { DATA_DIR: dataDir, LOG_LEVEL: 'error' });
    return /(http:\/\/\S+\/account\/invitations\/[\w-]+)/.exec(listed.stdout)?.[1];
  }

  async function mcp(headers: Record<string, string>) {
    const c = new Client({ name: 'e2e-account', version: '1.0.0' });
    await c.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/api/mcp`), { requestInit: { headers } }));
    return c;
  }
  const rawCall = (headers: Record<string, string>) => fetch(`${service.url}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_products', arguments: {} } }),
  });

  /** Connects the OAuth client as the person signed in on `page` (their session carries over), returning the tokens. */
  async function connectApplication(page: Page, firstTime?: { email: string; workspace: string }) {
    const verifier = oauth.generateRandomCodeVerifier();
    const state = oauth.generateRandomState();
    const url = new URL(as.authorization_endpoint!);
    url.search = new URLSearchParams({
      response_type: 'code', client_id: client.client_id, redirect_uri: callbacks.redirectUri, state, scope: 'mcp:read mcp:write',
      code_challenge: await oauth.calculatePKCECodeChallenge(verifier), code_challenge_method: 'S256', resource: `${service.url}/api/mcp`,
    }).toString();
    const seen = callbacks.received.length;
    await page.goto(url.toString());
    if (firstTime) {
      await signIn(page, firstTime.email);
      await page.getByLabel('Workspace name').fill(firstTime.workspace);
      await page.getByRole('button', { name: 'Create workspace' }).click();
    }
    await page.getByRole('button', { name: 'Approve' }).click();
    const callback = await callbacks.next(seen);
    const params = oauth.validateAuthResponse(as, client, callback, state);
    return oauth.processAuthorizationCodeResponse(as, client,
      await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, callbacks.redirectUri, verifier, insecure));
  }

  it('a new person signs in, creates a workspace, a product and a project, and an MCP key that works at once and stops when revoked', async () => {
    const page = await newPage();
    await page.goto(`${service.url}/account`);
    await page.getByRole('heading', { name: 'Sign in to Loupe' }).waitFor();
    await look(page, '01-sign-in');
    await signIn(page, 'ada@acme.test');
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    await look(page, '02-no-workspace');
    await page.getByLabel('New workspace').fill('Acme product team');
    await page.getByRole('button', { name: 'Create workspace' }).click();
    await page.getByRole('heading', { name: 'Products and projects' }).waitFor();
    await page.getByLabel('Name').fill('Acme app');
    await page.getByRole('button', { name: 'Create product' }).click();
    await page.getByLabel('New project in Acme app').fill('Onboarding');
    await page.getByRole('button', { name: 'Add project' }).click();
    await page.getByRole('status').filter({ hasText: 'Project created.' }).waitFor();
    await look(page, '03-products');

    await page.getByRole('link', { name: 'API keys' }).click();
    await page.getByRole('heading', { name: 'API keys' }).waitFor();
    await page.getByLabel('Name').fill('Claude Desktop');
    await page.getByLabel(/mcp:read/).check();
    await page.getByLabel(/mcp:write/).check();
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByText('Choose a default product', { exact: false }).or(page.getByText('MCP permissions need a default product')).first().waitFor();
    await look(page, '04-key-error');
    await page.getByLabel('Default product').selectOption({ label: 'Acme app' });
    await page.getByRole('button', { name: 'Create key' }).click();
    await page.getByRole('heading', { name: 'Your new API key' }).waitFor();
    await look(page, '05-key-created');
    const key = await page.getByLabel(/Key “Claude Desktop”/).inputValue();
    expect(key).toMatch(/^loupe_sk_/);

    const c = await mcp({ 'x-api-key': key });
    const products = await c.callTool({ name: 'get_products', arguments: {} });
    expect(products.structuredContent).toMatchObject({ products: [{ name: 'Acme app', projects: [{ name: 'Onboarding' }] }] });
    await c.close();

    await page.getByRole('link', { name: 'Done, back to API keys' }).click();
    await look(page, '06-keys');
    await page.getByRole('button', { name: 'Revoke the key Claude Desktop' }).click();
    await page.getByRole('status').filter({ hasText: 'Key revoked' }).waitFor();
    expect((await rawCall({ 'x-api-key': key })).status).toBe(401);
  }, 120_000);

  it('signs in through the identity provider configured by environment, beside email sign-in', async () => {
    const page = await newPage();
    await page.goto(`${service.url}/account`);
    await page.getByRole('link', { name: 'Continue with Test IdP' }).click();
    await page.getByRole('heading', { name: 'Test IdP' }).waitFor();
    expect(page.url().startsWith(idp.issuer)).toBe(true);
    await page.getByRole('button', { name: 'Sign in as Grace Hopper' }).click();
    await page.getByRole('heading', { name: 'Your account', exact: true }).waitFor();
    expect(page.url()).toBe(`${service.url}/account`);
    await page.getByText('grace@acme.test').first().waitFor();
    await look(page, '01b-signed-in-with-idp');
  }, 60_000);

  it('an invited member joins through the emailed link; removing them refuses their token on the next tool call', async () => {
    const owner = await newPage();
    await owner.goto(`${service.url}/account/sign-in`);
    await signIn(owner, 'ada@acme.test');
    await owner.getByRole('link', { name: 'Members' }).click();
    await owner.getByLabel('Email').fill('bo@acme.test');
    await owner.getByRole('button', { name: 'Send invitation' }).click();
    await owner.getByRole('status').filter({ hasText: 'Invitation sent.' }).waitFor();
    await look(owner, '07-members-invited');

    let link: string | undefined;
    for (let i = 0; i < 50 && !link; i++) {
      link = await invitationLink('bo@acme.test');
      if (!link) await new Promise((r) => setTimeout(r, 100));
    }
    expect(link).toBeTruthy();
    const bo = await newPage();
    await bo.goto(link!);
    await expect(bo.getByLabel('Work email').inputValue()).resolves.toBe('bo@acme.test');
    await signIn(bo, 'bo@acme.test');
    await bo.getByRole('heading', { name: 'Join Acme product team' }).waitFor();
    await look(bo, '08-invitation');
    await bo.getByRole('button', { name: 'Join Acme product team' }).click();
    await bo.getByRole('status').filter({ hasText: 'Welcome to Acme product team' }).waitFor();
    await look(bo, '09-member-keys');

    const tokens = await connectApplication(bo);
    const bearer = { authorization: `Bearer ${tokens.access_token}` };
    expect((await rawCall(bearer)).status).toBe(200);

    await owner.reload();
    await owner.getByRole('button', { name: 'Remove bo@acme.test' }).click();
    await owner.getByRole('status').filter({ hasText: 'Removed.' }).waitFor();
    const refused = await rawCall(bearer);
    expect(refused.status).toBe(401);
    expect(await refused.json()).toMatchObject({ error: 'invalid_token' });
  }, 120_000);

  it('lists connected applications and revoking one makes its refresh fail', async () => {
    const owner = await newPage();
    await owner.goto(`${service.url}/account/sign-in`);
    await signIn(owner, 'ada@acme.test');
    await owner.waitForURL(/\/account\/w\//);
    const tokens = await connectApplication(owner);
    await owner.goto(`${service.url}/account`);
    await owner.getByRole('link', { name: 'Connected applications' }).click();
    await owner.getByText('connected by ada@acme.test').waitFor();
    await look(owner, '10-apps');
    await owner.getByRole('button', { name: 'Revoke Research Notebook connected by ada@acme.test' }).click();
    await owner.getByRole('status').filter({ hasText: 'Disconnected' }).waitFor();
    const refreshed = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure);
    await expect(oauth.processRefreshTokenResponse(as, client, refreshed)).rejects.toMatchObject({ error: 'invalid_grant' });
    await owner.getByRole('link', { name: 'Credits and usage' }).click();
    await owner.getByRole('heading', { name: 'Credits and usage' }).waitFor();
    await look(owner, '11-usage');
  }, 120_000);

  it('a reply to the confirmation mail, over SMTP to npm start, disconnects the application', async () => {
    const page = await newPage();
    const tokens = await connectApplication(page, { email: 'dee@acme.test', workspace: 'Dee labs' });
    // The reply address is a secret: never in the log, read from the local outbox.
    let mail: { replyTo?: string; subject?: string } | undefined;
    for (let i = 0; i < 20 && !mail?.replyTo; i++) {
      const listed = (await runTool('tools/src/admin.ts', ['mail', 'list', '--to', 'dee@acme.test', '--limit', '5'], { DATA_DIR: dataDir, LOG_LEVEL: 'error' })).stdout;
      mail = { replyTo: /Reply-To: (\S+)/.exec(listed)?.[1], subject: 'Your connection' };
      if (!mail.replyTo) await new Promise((r) => setTimeout(r, 250));
    }
    expect(service.output()).not.toContain('revoke+');
    expect(mail?.replyTo).toMatch(/^revoke\+[\w-]{43}@replies\.loupe\.test$/);
    const refreshed = await oauth.processRefreshTokenResponse(as, client, await oauth.refreshTokenGrantRequest(as, client, oauth.None(), tokens.refresh_token!, insecure));
    await nodemailer.createTransport({ host: '127.0.0.1', port: smtpPort, secure: false, ignoreTLS: true })
      .sendMail({ from: 'dee@acme.test', to: mail!.replyTo, subject: `Re: ${mail!.subject}`, text: 'REVOKE' });
    const after = await oauth.refreshTokenGrantRequest(as, client, oauth.None(), refreshed.refresh_token!, insecure);
    await expect(oauth.processRefreshTokenResponse(as, client, after)).rejects.toMatchObject({ error: 'invalid_grant' });
    expect((await rawCall({ authorization: `Bearer ${refreshed.access_token}` })).status).toBe(401);
  }, 120_000);
});
