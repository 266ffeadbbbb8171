import { stat } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { accessibilityViolations, keyboardReachable, launchChromium, openPage, saveScreenshot, type Browser } from './index';

const good = `<!doctype html><html lang="en"><head><title>Good form</title></head><body><main>
<h1>Say hello</h1><form method="post" action="/sent"><label for="name">Your name</label>
<input id="name" name="name"><button type="submit">Send</button></form></main></body></html>`;
const bad = `<!doctype html><html lang="en"><head><title>Bad form</title></head><body><main><h1>Oops</h1><input name="x"></main></body></html>`;

let server: http.Server;
let url = '';
let browser: Browser;
beforeAll(async () => {
  server = http.createServer((req, res) => {
    if (req.method === 'POST') {
      let body = '';
      req.on('data', (d) => (body += d));
      req.on('end', () => res.writeHead(200, { 'content-type': 'text/html' }).end(`<!doctype html><title>Sent</title><p>Got ${new URLSearchParams(body).get('name')}</p>`));
      return;
    }
    res.writeHead(200, { 'content-type': 'text/html' }).end(req.url === '/bad' ? bad : good);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  browser = await launchChromium();
});
afterAll(async () => {
  await browser?.close();
  await new Promise((r) => server.close(r));
});

describe('browser testing helpers', () => {
  it('drives a real page: fill, submit, screenshot', async () => {
    const page = await openPage(browser);
    await page.goto(url);
    expect(await page.title()).toBe('Good form');
    await page.getByLabel('Your name').fill('Ada');
    await page.getByRole('button', { name: 'Send' }).click();
    await page.getByText('Got Ada').waitFor();
    const file = await saveScreenshot(page, 'browser-testing-sent');
    expect((await stat(file)).size).toBeGreaterThan(0);
    await page.context().close();
  });

  it('finds accessibility violations, and none on a labelled form', async () => {
    const page = await openPage(browser);
    await page.goto(url);
    expect(await accessibilityViolations(page)).toEqual([]);
    await page.goto(`${url}/bad`);
    expect((await accessibilityViolations(page)).map((v) => v.id)).toContain('label');
    await page.context().close();
  });

  it('tells which controls the keyboard reaches', async () => {
    const page = await openPage(browser);
    await page.goto(url);
    expect(await keyboardReachable(page, ['Your name', 'Send', 'Missing'])).toEqual(['Your name', 'Send']);
    await page.context().close();
  });
});
