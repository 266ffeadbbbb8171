import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { accessibilityViolations, keyboardReachable, launchChromium, saveScreenshot, type Browser } from '@loupe/browser-testing';
import { freePort } from '@loupe/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signInWithLoggedCode } from './callback-server';
import { startProcess, type Started } from './process';

// The front door of `npm start`: GET / is a page for a browser and the service's addresses as JSON for
// everything else. The page is the web app's; its Sign in link leads to the authorization server's
// sign-in page, on the same origin.
let h: Started;
let browser: Browser;
let dataDir: string;
beforeAll(async () => {
  dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-front-door-'));
  delete process.env.DATABASE_URL;
  const env = { DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
  [h, browser] = await Promise.all([startProcess(env), launchChromium()]);
}, 120_000);
afterAll(async () => {
  await browser?.close();
  await h?.stop();
  await rm(dataDir, { recursive: true, force: true });
});

const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const front = (accept?: string, method = 'GET') => fetch(`${h.url}/`, { method, headers: accept === undefined ? {} : { accept } });

describe('GET / for a browser', () => {
  it.each([['text/html'], [BROWSER_ACCEPT]])('answers the page in the shared layout for Accept: %s', async (accept) => {
    const res = await front(accept);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(res.headers.get('vary')).toMatch(/accept/i);
    expect(res.headers.get('content-security-policy')).toContain("script-src 'self'");
    const html = await res.text();
    expect(html).toContain('<link rel="stylesheet" href="/oauth/assets/loupe.css">');
    expect(html).toContain('href="/account/sign-in"');
    expect(html).toContain('href="/account"');
    expect(html).toContain('href="/docs"');
    expect(html).toContain(`value="${h.url}/api/mcp"`);
    expect(html).toContain(`>claude mcp add --transport http loupe ${h.url}/api/mcp</pre>`);
    expect(html).toContain('Claude, ChatGPT, Cursor and VS Code take the same URL');
  });

  it('answers HEAD with the headers alone', async () => {
    const res = await front('text/html', 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^text\/html/);
    expect(await res.text()).toBe('');
  });
});

describe('GET / for an API client', () => {
  it.each([['*/*'], ['application/json'], [undefined], ['application/json, text/html;q=0.5']])('answers JSON for Accept: %s', async (accept) => {
    const res = await front(accept);
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.headers.get('vary')).toMatch(/accept/i);
    expect(await res.json()).toEqual({
      name: 'Loupe',
      description: 'Customer evidence for product teams, served to AI assistants over MCP.',
      mcp: `${h.url}/api/mcp`,
      api: `${h.url}/api/v1`,
      openapi: `${h.url}/api/v1/openapi.json`,
      docs: `${h.url}/docs`,
      account: `${h.url}/account`,
      authorization_server: `${h.url}/.well-known/oauth-authorization-server`,
    });
  });

  it('answers HEAD with JSON headers and no body', async () => {
    const res = await front('*/*', 'HEAD');
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await res.text()).toBe('');
  });

  it('leaves other methods to the JSON 404', async () => {
    const res = await fetch(`${h.url}/`, { method: 'POST', headers: { accept: '*/*' } });
    expect(res.status).toBe(404);
    expect((await res.json()).error).toBe('NOT_FOUND');
  });
});

describe('the front page in a browser', () => {
  it('has no accessibility violations, every action reachable by keyboard, and its links lead where they say (screenshots)', async () => {
    for (const [name, viewport] of [['front-door', { width: 1200, height: 900 }], ['front-door-narrow', { width: 390, height: 844 }]] as const) {
      const context = await browser.newContext({ viewport });
      try {
        const page = await context.newPage();
        const res = await page.goto(`${h.url}/`);
        expect(res?.status()).toBe(200);
        expect(await page.title()).toBe('Customer evidence for product teams · Loupe');
        expect(await page.getByRole('textbox', { name: 'MCP server URL' }).inputValue()).toBe(`${h.url}/api/mcp`);
        expect(await page.locator('#claude-code').textContent()).toBe(`claude mcp add --transport http loupe ${h.url}/api/mcp`);
        expect(await accessibilityViolations(page)).toEqual([]);
        const file = await saveScreenshot(page, name);
        expect((await readFile(file)).length).toBeGreaterThan(10_000);
        const actions = ['Sign in', 'Open the evidence pages', 'Copy the MCP server URL', 'Copy the Claude Code command', 'API reference'];
        expect(await keyboardReachable(page, actions)).toEqual(actions);
        if (name === 'front-door') {
          // The copy button puts the command on the clipboard (the account pages' own script, allowed by the page's CSP).
          await context.grantPermissions(['clipboard-read', 'clipboard-write'], { origin: h.url });
          await page.getByRole('button', { name: 'Copy the Claude Code command' }).click();
          await expect.poll(() => page.getByRole('button', { name: 'Copy the Claude Code command' }).textContent()).toBe('Copied');
          expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(`claude mcp add --transport http loupe ${h.url}/api/mcp`);
          await page.getByRole('link', { name: 'Sign in' }).click();
          await page.waitForURL(`${h.url}/account/sign-in`);
          expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in to Loupe');
        }
      } finally {
        await context.close();
      }
    }
  });
});

// The console (web app) and the sign-in page (authorization server) on one origin: one sign-in, one session.
describe('one sign-in for every page', () => {
  it('a console page visited signed out sends the browser to the sign-in page, and back to that page once signed in', async () => {
    const context = await browser.newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${h.url}/account?all=1`);
      await page.waitForURL(`${h.url}/account/sign-in?return_to=%2Faccount%3Fall%3D1`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sign in to Loupe');
      await signInWithLoggedCode(page, 'returning@front-door.test', h.output);
      await page.waitForURL(`${h.url}/account?all=1`);
      expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Your account');
    } finally {
      await context.close();
    }
  });
});
