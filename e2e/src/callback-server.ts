import type { Page } from 'playwright-core';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** A client's redirect endpoint on loopback: records each callback and answers with a small page. */
export async function startCallbackServer() {
  const received: URL[] = [];
  const waiters: Array<(u: URL) => void> = [];
  const server = http.createServer((req, res) => {
    const url = new URL(req.url!, `http://${req.headers.host}`);
    received.push(url);
    waiters.splice(0).forEach((w) => w(url));
    res.writeHead(200, { 'content-type': 'text/html' }).end('<!doctype html><title>Connected</title><p>You can close this window.</p>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    redirectUri: `http://127.0.0.1:${port}/callback`,
    received,
    /** The next callback (or the latest, when one arrived since `after`). */
    next(after = 0): Promise<URL> {
      if (received.length > after) return Promise.resolve(received[received.length - 1]!);
      return new Promise((resolve) => waiters.push(resolve));
    },
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

/**
 * The newest sign-in code the service logged for `email`: without SMTP_URL the local outbox's log line
 * of a sign-in mail carries its code (`signInCode`), and nothing else of any mail.
 */
export function latestCodeFor(log: string, email: string): string | undefined {
  let code: string | undefined;
  for (const line of log.split('\n')) {
    if (!line.includes('local outbox') || !line.includes(email)) continue;
    try {
      const entry = JSON.parse(line) as { to?: string; signInCode?: string; kind?: string };
      if (entry.to !== email || entry.kind !== 'sign-in-code') continue;
      const m = /\b(\d{3})[ -]?(\d{3})\b/.exec(entry.signInCode ?? '');
      if (m) code = `${m[1]}${m[2]}`;
    } catch {
      // not a JSON log line
    }
  }
  return code;
}

/** Fills the sign-in page with `email` and the code the service logged for it, and submits. */
export async function signInWithLoggedCode(page: Page, email: string, log: () => string, onStep?: (step: 'sign-in' | 'code') => Promise<void>) {
  await page.getByLabel('Work email').fill(email);
  await onStep?.('sign-in');
  await page.getByRole('button', { name: 'Email me a code' }).click();
  await page.getByLabel('Sign-in code').waitFor();
  await onStep?.('code');
  let code: string | undefined;
  for (let i = 0; i < 50 && !code; i++) {
    code = latestCodeFor(log(), email);
    if (!code) await new Promise((r) => setTimeout(r, 100));
  }
  if (!code) throw new Error(`no sign-in code for ${email} in the service log`);
  await page.getByLabel('Sign-in code').fill(code);
  await page.getByRole('button', { name: 'Sign in' }).click();
}
