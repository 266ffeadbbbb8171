import * as oauth from 'oauth4webapi';
import type { Browser, Page } from 'playwright-core';
import { openPage } from '@loupe/browser-testing';
import { signInWithLoggedCode, type startCallbackServer } from './callback-server';
import type { Started } from './process';

type Callbacks = Awaited<ReturnType<typeof startCallbackServer>>;

// The embedded default listens on http://localhost.
export const insecure = { [oauth.allowInsecureRequests]: true } as const;

/**
 * A public OAuth client of `npm start`, as oauth4webapi drives it: discovery, dynamic registration,
 * then the steps a test takes around the real pages (authorization URL, sign-in by emailed code,
 * code exchange).
 */
export async function registerOAuthClient(service: Started, callbacks: Callbacks, clientName = 'E2E Notebook') {
  const issuer = new URL(service.url);
  const as = await oauth.processDiscoveryResponse(issuer, await oauth.discoveryRequest(issuer, { ...insecure, algorithm: 'oauth2' }));
  const client = (await oauth.processDynamicClientRegistrationResponse(
    await oauth.dynamicClientRegistrationRequest(as, { client_name: clientName, redirect_uris: [callbacks.redirectUri], token_endpoint_auth_method: 'none' }, insecure),
  )) as oauth.Client;

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

  /** Fills the sign-in page with `email` and the code the service printed for it. */
  const signIn = (page: Page, email: string, onStep?: (step: 'sign-in' | 'code') => Promise<void>) => signInWithLoggedCode(page, email, service.output, onStep);

  async function exchange(callback: URL, verifier: string, state: string) {
    const params = oauth.validateAuthResponse(as, client, callback, state);
    const res = await oauth.authorizationCodeGrantRequest(as, client, oauth.None(), params, callbacks.redirectUri, verifier, insecure);
    return oauth.processAuthorizationCodeResponse(as, client, res);
  }

  /**
   * The whole flow for a person with exactly one workspace: sign in on the real pages, approve
   * the consent for `workspaceName`, exchange the code. Returns the token response.
   */
  async function authorizeAs(browser: Browser, email: string, workspaceName: string, scope?: string) {
    const page = await openPage(browser);
    try {
      const { url, verifier, state } = await authorizationUrl(scope);
      await page.goto(url.toString());
      await signIn(page, email);
      await page.getByRole('heading', { name: `Connect ${clientName} to ${workspaceName}?` }).waitFor();
      const seen = callbacks.received.length;
      await page.getByRole('button', { name: 'Approve' }).click();
      return await exchange(await callbacks.next(seen), verifier, state);
    } finally {
      await page.context().close();
    }
  }

  return { as, client, authorizationUrl, signIn, exchange, authorizeAs };
}
