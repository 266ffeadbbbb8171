import { readFileSync } from 'node:fs';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Person, startAuthServer, type AuthHarness } from './test/harness';
import { authorizeUrl, connect, exchange, type Client } from './test/flow';

// A self-signed certificate for localhost/127.0.0.1 that only these tests trust.
const fixtures = path.resolve(import.meta.dirname, '../../../libs/oauth/src/testing');
const cert = readFileSync(path.join(fixtures, 'loopback-cert.pem'), 'utf8');
const key = readFileSync(path.join(fixtures, 'loopback-key.pem'), 'utf8');

let h: AuthHarness;
let docs: https.Server;
let docsUrl = '';
const hits = new Map<string, number>();
const documents = new Map<string, (res: import('node:http').ServerResponse, url: string) => void>();

beforeAll(async () => {
  h = await startAuthServer({ fetchSettings: { allowLoopback: true, ca: cert } });
  docs = https.createServer({ key, cert }, (req, res) => {
    hits.set(req.url!, (hits.get(req.url!) ?? 0) + 1);
    const handler = documents.get(req.url!);
    if (!handler) return res.writeHead(404).end();
    handler(res, `${docsUrl}${req.url}`);
  });
  await new Promise<void>((r) => docs.listen(0, '127.0.0.1', r));
  docsUrl = `https://localhost:${(docs.address() as AddressInfo).port}`;
});
afterAll(async () => {
  docs.closeAllConnections();
  await new Promise((r) => docs.close(r));
  await h.close();
});

afterEach(() => vi.useRealTimers());

const json = (body: unknown) => (res: import('node:http').ServerResponse) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));

async function authorizePage(client: Client) {
  const person = new Person(h, 'cimd@acme.test');
  const res = await person.get(authorizeUrl(client).path);
  return { res, html: res.headers.get('location') ? '' : await res.text() };
}

describe('client ID metadata documents (spec 5.4)', () => {
  it('a document shaped like Claude Code\'s (portless loopback callbacks, no application_type) is used on whatever port the client listens (RFC 8252 §7.3; issue 25 item 3)', async () => {
    // https://claude.ai/oauth/claude-code-client-metadata lists http://localhost/callback and http://127.0.0.1/callback
    // and then sends an ephemeral port (anthropics/claude-code#37767, #64705); servers matching exactly refused it.
    const redirectUris = ['http://localhost/callback', 'http://127.0.0.1/callback'];
    documents.set('/claude-code.json', (res, url) => json({
      client_id: url, client_name: 'Claude Code', redirect_uris: redirectUris,
      grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none',
    })(res));
    const client: Client = { client_id: `${docsUrl}/claude-code.json`, redirect_uris: redirectUris };
    for (const redirectUri of ['http://localhost:58135/callback', 'http://127.0.0.1:52163/callback']) {
      const c = await connect(new Person(h, `cc-${new URL(redirectUri).port}@acme.test`), client, { extra: { redirect_uri: redirectUri } });
      expect(c.callback.origin).toBe(new URL(redirectUri).origin);
      expect((await exchange(h, client, c)).status).toBe(200);
    }
    const { res, html } = await authorizePage({ ...client, redirect_uris: ['http://localhost:58135/elsewhere'] }); // the path still has to match
    expect(res.status).toBe(400);
    expect(html).toContain('invalid_redirect_uri');
  });

  it('an https client_id is fetched, used for the flow, and cached for 5 minutes', async () => {
    const id = `${docsUrl}/good.json`;
    documents.set('/good.json', (res, url) => json({ client_id: url, client_name: 'Doc Client', redirect_uris: ['http://127.0.0.1:7777/cb'] })(res));
    const client: Client = { client_id: id, redirect_uris: ['http://127.0.0.1:7777/cb'] };
    const person = new Person(h, 'cimd-user@acme.test');
    const c = await connect(person, client);
    expect(c.consentHtml).toContain('Doc Client');
    expect(c.consentHtml).toContain('Loupe has not verified this application');
    expect((await exchange(h, client, c)).status).toBe(200);
    await connect(person, client);
    expect(hits.get('/good.json')).toBe(1);
  });

  it("a document whose client_id is not its URL is refused", async () => {
    documents.set('/liar.json', json({ client_id: 'https://elsewhere.example.com/c.json', client_name: 'Liar', redirect_uris: ['https://app.example.com/cb'] }));
    const { res, html } = await authorizePage({ client_id: `${docsUrl}/liar.json`, redirect_uris: ['https://app.example.com/cb'] });
    expect(res.status).toBe(400);
    expect(html).toContain('invalid_client');
  });

  it('a document over 64 KB is refused', async () => {
    documents.set('/big.json', (res, url) => json({ client_id: url, client_name: 'x'.repeat(70 * 1024), redirect_uris: ['https://app.example.com/cb'] })(res));
    const { res } = await authorizePage({ client_id: `${docsUrl}/big.json`, redirect_uris: ['https://app.example.com/cb'] });
    expect(res.status).toBe(400);
  });

  it('a redirect is not followed', async () => {
    documents.set('/moved.json', (res) => res.writeHead(302, { location: `${docsUrl}/good.json` }).end());
    const before = hits.get('/good.json') ?? 0;
    const { res } = await authorizePage({ client_id: `${docsUrl}/moved.json`, redirect_uris: ['http://127.0.0.1:7777/cb'] });
    expect(res.status).toBe(400);
    expect(hits.get('/good.json') ?? 0).toBe(before);
  });

  it('a server that does not answer is given up after 5 seconds', async () => {
    documents.set('/slow.json', () => {});
    const started = Date.now();
    const { res } = await authorizePage({ client_id: `${docsUrl}/slow.json`, redirect_uris: ['https://app.example.com/cb'] });
    expect(res.status).toBe(400);
    expect(Date.now() - started).toBeGreaterThanOrEqual(4900);
  });

  it('private addresses are refused when loopback is not allowed (SSRF)', async () => {
    const strict = await startAuthServer({ fetchSettings: { ca: cert } });
    try {
      const id = `${docsUrl}/good.json`;
      const before = hits.get('/good.json') ?? 0;
      const res = await new Person(strict, 'ssrf@acme.test').get(authorizeUrl({ client_id: id, redirect_uris: ['http://127.0.0.1:7777/cb'] }).path);
      expect(res.status).toBe(400);
      expect(hits.get('/good.json') ?? 0).toBe(before);
    } finally {
      await strict.close();
    }
  });

  // Issue 23 item 6: a document that failed to parse once let the authorization through unfiltered,
  // and scope=mcp:thirdparty alone reached the consent page.
  it('a client that cannot be resolved is refused, never let through with its scopes unfiltered', async () => {
    let served = 0;
    documents.set('/flaky.json', (res, url) => {
      served++;
      if (served === 1) return res.writeHead(200, { 'content-type': 'application/json' }).end('{"client_id": ');
      json({ client_id: url, client_name: 'Flaky Client', redirect_uris: ['http://127.0.0.1:7777/cb'], scope: 'mcp:read mcp:write mcp:thirdparty' })(res);
    });
    const client: Client = { client_id: `${docsUrl}/flaky.json`, redirect_uris: ['http://127.0.0.1:7777/cb'] };
    const person = new Person(h, 'flaky@acme.test');
    const first = await person.get(authorizeUrl(client, { scope: 'mcp:thirdparty' }).path);
    const page = await person.follow(first);
    expect(page.location).toBeUndefined();
    expect(page.html).not.toContain('third-party tools');
    expect(page.res.status).toBe(400);
    expect(page.html).toContain('invalid_client');
    // Once the document loads, mcp:thirdparty alone is dropped like any scope an OAuth client cannot hold.
    const again = await person.follow(await person.get(authorizeUrl(client, { scope: 'mcp:thirdparty' }).path));
    expect(new URL(again.location!).searchParams.get('error')).toBe('invalid_scope');
  });

  // Issue 23 item 6: the grant took the scopes of the authorization request as they were when it began.
  it('scopes are checked again when the person approves: a document narrowed meanwhile grants only what it allows now', async () => {
    let scope = 'mcp:read mcp:write';
    documents.set('/narrowing.json', (res, url) => json({ client_id: url, client_name: 'Narrowing Client', redirect_uris: ['http://127.0.0.1:7777/cb'], scope })(res));
    const client: Client = { client_id: `${docsUrl}/narrowing.json`, redirect_uris: ['http://127.0.0.1:7777/cb'] };
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const connected = await connect(new Person(h, 'narrowed@acme.test'), client, {
      extra: { scope: 'mcp:read mcp:write' },
      beforeConsent: async () => {
        // The page was shown; the client then drops mcp:write, and the cached document expires.
        scope = 'mcp:read';
        vi.setSystemTime(Date.now() + 6 * 60_000);
      },
    });
    expect(connected.consentHtml).toContain('Add and update signals');
    expect(hits.get('/narrowing.json')).toBe(2);
    const tokens = await exchange(h, client, connected);
    expect(tokens.status).toBe(200);
    expect(tokens.body.scope).toBe('mcp:read');
  });
});
