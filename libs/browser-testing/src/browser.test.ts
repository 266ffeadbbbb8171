import { stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, keyboardReachable, launchChromium, openPage, saveScreenshot, type Browser } from './index';

const good = `<!doctype html><html lang="en"><head><title>Good form</title></head><body><main>
<h1>Say hello</h1><form method="post" action="/sent"><label for="name">Your name</label>
<input id="name" name="name"><button type="submit">Send</button> <a href="/bad">Send later</a></form></main></body></html>`;
const bad = `<!doctype html><html lang="en"><head><title>Bad form</title></head><body><main><h1>Oops</h1><input name="x"></main></body></html>`;

let server: http.Server;
let url = '';
let browser: Browser;
let launchMs = 0;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => {
        const name = new URLSearchParams(body).get('name') ?? '';
        res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><html lang="en"><title>Sent</title><p>Got ${name.replace(/[<&]/g, '')}</p></html>`);
      });
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/bad' ? bad : good);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  const started = performance.now();
  browser = await launchChromium();
  launchMs = Math.round(performance.now() - started);
  console.log(`launchChromium: ${launchMs} ms (${browser.version()})`);
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server?.close(r));
});

describe('browser testing helpers', () => {
  it('drives a real page: title, fill, submit, screenshot', async () => {
    const page = await openPage(browser);
    await page.goto(url);
    expect(await page.title()).toBe('Good form');
    await page.getByLabel('Your name').fill('Ada');
    await page.getByRole('button', { name: 'Send', exact: true }).click();
    await page.getByText('Got Ada').waitFor();
    expect(await page.title()).toBe('Sent');
    const file = await saveScreenshot(page, 'browser-testing-sent');
    expect(file).toMatch(/test-artifacts\/screenshots\/browser-testing-sent\.png$/);
    expect((await stat(file)).size).toBeGreaterThan(0);
    await page.context().close();
  });

  it('finds no accessibility violations on a labelled form, and the missing label on the other page', async () => {
    const page = await openPage(browser);
    await page.goto(url);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.goto(`${url}/bad`);
    const violations = await accessibilityViolations(page);
    expect(violations).toContainEqual(expect.objectContaining({ id: 'label', targets: ['input'] }));
    expect(await accessibilityViolations(page, { exclude: ['input'] })).toEqual([]);
    await page.context().close();
  });

  it('tells which controls the keyboard reaches, by whole accessible name, from the top', async () => {
    const page = await openPage(browser);
    await page.goto(url);
    // Focus the last control first: the walk must still start at the top of the page.
    await page.getByRole('link', { name: 'Send later' }).focus();
    expect(await keyboardReachable(page, ['your NAME', 'Send', 'Send later', 'Sen', 'Say hello', 'Missing'])).toEqual(['your NAME', 'Send', 'Send later']);
    expect(await page.locator('[data-loupe-tab-start]').count()).toBe(0);
    await page.goto(`${url}/bad`);
    expect(await keyboardReachable(page, ['x'])).toEqual([]);
    await page.context().close();
  });
});
