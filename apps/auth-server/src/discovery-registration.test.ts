import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { KNOWN_CLIENTS } from '@loupe/oauth';
import { Person, registerClient, startAuthServer, type AuthHarness } from './test/harness';
import { authorizeUrl, connect, exchange, type Client } from './test/flow';

let h: AuthHarness;
beforeAll(async () => {
  h = await startAuthServer();
});
afterAll(() => h.close());

describe('authorization server metadata (spec 4.2)', () => {
  it.each(['/.well-known/oauth-authorization-server', '/.well-known/openid-configuration'])('%s has exactly the listed fields, cacheable for an hour', async (path) => {
    const res = await fetch(`${h.url}${path}`);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(await res.json()).toEqual({
      issuer: h.url,
      authorization_endpoint: `${h.url}/oauth/authorize`,
      token_endpoint: `${h.url}/oauth/token`,
      registration_endpoint: `${h.url}/oauth/register`,
      userinfo_endpoint: `${h.url}/oauth/userinfo`,
      response_types_supported: ['code'],
      grant_types_supported: ['authorization_code', 'refresh_token'],
      code_challenge_methods_supported: ['S256'],
      token_endpoint_auth_methods_supported: ['none'],
      scopes_supported: ['mcp:read', 'mcp:write', 'mcp:thirdparty', 'openid', 'email'],
      claims_supported: ['sub', 'email', 'email_verified'],
      client_id_metadata_document_supported: true,
      authorization_response_iss_parameter_supported: true, // RFC 9207: `iss` on every authorization response (MCP 2026-07-28)
    });
  });
});

describe('authorization server metadata at the path-inserted addresses (RFC 8414 3.1, MCP authorization; issue 25)', () => {
  it.each([
    ['/.well-known/oauth-authorization-server/api/mcp', '/.well-known/oauth-authorization-server'],
    ['/.well-known/openid-configuration/api/mcp', '/.well-known/openid-configuration'],
    ['/api/mcp/.well-known/openid-configuration', '/.well-known/openid-configuration'],
    ['/api/mcp/.well-known/oauth-authorization-server', '/.well-known/oauth-authorization-server'],
  ])('%s is the issuer\'s own document, cacheable for an hour', async (path, root) => {
    const [res, expected] = await Promise.all([fetch(`${h.url}${path}`), fetch(`${h.url}${root}`).then((r) => r.json())]);
    expect(res.status).toBe(200);
    expect(res.headers.get('cache-control')).toBe('public, max-age=3600');
    expect(await res.json()).toEqual(expected);
  });

  it('other paths after the suffix are not metadata', async () => {
    expect((await fetch(`${h.url}/.well-known/oauth-authorization-server/elsewhere`)).status).toBe(404);
  });
});

describe('dynamic registration (spec 4.3, 5.4)', () => {
  it('201, public, never a secret, grant and response types filled in', async () => {
    const { status, body } = await registerClient(h.url, { client_name: 'Claude Code', redirect_uris: ['http://localhost:33418/callback', 'https://app.example.com/cb'] });
    expect(status).toBe(201);
    expect(body.client_id).toMatch(/^cli_/);
    expect(body.client_secret).toBeUndefined();
    expect(body.token_endpoint_auth_method).toBe('none');
    expect(body.grant_types).toEqual(['authorization_code', 'refresh_token']);
    expect(body.response_types).toEqual(['code']);
    expect(body.redirect_uris).toEqual(['http://localhost:33418/callback', 'https://app.example.com/cb']);
    expect(body.client_name).toBe('Claude Code');
  });

  it('a secret-based auth method is refused', async () => {
    const { status, body } = await registerClient(h.url, { token_endpoint_auth_method: 'client_secret_basic' });
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
  });

  it.each([
    ['http on a public host', ['http://app.example.com/cb']],
    ['a custom scheme', ['myapp://callback']],
    ['a fragment', ['https://app.example.com/cb#x']],
    ['a relative URL', ['/callback']],
  ])('redirect URI with %s → invalid_redirect_uri', async (_name, uris) => {
    const { status, body } = await registerClient(h.url, { redirect_uris: uris });
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_redirect_uri');
    expect(body.error_description).toMatch(/^redirect_uris\[0\]/);
  });

  it.each([
    ['no redirect_uris', { redirect_uris: undefined }],
    ['an empty list', { redirect_uris: [] }],
    ['a string instead of a list', { redirect_uris: 'https://app.example.com/cb' }],
  ])('%s → invalid_client_metadata', async (_name, metadata) => {
    const { status, body } = await registerClient(h.url, metadata);
    expect(status).toBe(400);
    expect(body.error).toBe('invalid_client_metadata');
  });

  it('a client name with an unpaired surrogate (found by the hostile suite) → invalid_client_metadata, not a 500', async () => {
    const body = '{"redirect_uris":["http://127.0.0.1:7/cb"],"client_name":"x\\ud83dy","grant_types":["authorization_code","refresh_token"],"response_types":["code"],"token_endpoint_auth_method":"none","scope":"mcp:read"}';
    // From an address of its own: registrations are limited per address.
    const res = await fetch(`${h.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-forwarded-for': '192.0.2.77' }, body });
    expect(res.status).toBe(400);
    expect(await res.json()).toMatchObject({ error: 'invalid_client_metadata', error_description: expect.stringMatching(/^client_name contains/) });
  });

  it('a body that is not JSON → invalid_client_metadata', async () => {
    const res = await fetch(`${h.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{nope' });
    expect(res.status).toBe(400);
    expect(((await res.json()) as any).error).toBe('invalid_client_metadata');
  });
});

describe('pre-registered clients (spec 5.4)', () => {
  it('serves a metadata document for each popular client', async () => {
    expect(KNOWN_CLIENTS.map((c) => c.slug)).toEqual(expect.arrayContaining(['claude', 'chatgpt', 'cursor', 'vscode', 'mcp-inspector']));
    for (const known of KNOWN_CLIENTS) {
      const res = await fetch(`${h.url}/oauth/clients/${known.slug}`);
      expect(res.status).toBe(200);
      const doc = await res.json();
      expect(doc).toMatchObject({ client_id: `${h.url}/oauth/clients/${known.slug}`, client_name: known.clientName, redirect_uris: known.redirectUris, token_endpoint_auth_method: 'none' });
    }
    expect((await fetch(`${h.url}/oauth/clients/nope`)).status).toBe(404);
  });

  it('is usable as client_id, and the consent page says it is verified', async () => {
    const inspector = KNOWN_CLIENTS.find((c) => c.slug === 'mcp-inspector')!;
    const client: Client = { client_id: `${h.url}/oauth/clients/mcp-inspector`, redirect_uris: inspector.redirectUris };
    const c = await connect(new Person(h, 'inspector@acme.test'), client);
    expect(c.consentHtml).toContain('verified by Loupe');
    expect(c.consentHtml).not.toContain('has not verified');
    expect((await exchange(h, client, c)).status).toBe(200);
  });
});

describe("Cursor's registration (issue 25 item 3)", () => {
  // A server of its own: the file's other registrations use up the per-IP registration limit (10 an hour).
  let cursorServer: AuthHarness;
  beforeAll(async () => {
    cursorServer = await startAuthServer();
  });
  afterAll(() => cursorServer.close());

  it("Cursor's own registration body (three URIs, one cursor://) is refused by the spec's https/loopback rule, naming the pre-registered client_id to use", async () => {
    // The body Cursor sends (erp-mafia/accounted#2225, soflyy/agent-connector-for-wp#111, 2026-09).
    const { status, body } = await registerClient(cursorServer.url, {
      client_name: 'Cursor', token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'],
      redirect_uris: ['cursor://anysphere.cursor-mcp/oauth/callback', 'https://www.cursor.com/agents/mcp/oauth/callback', 'http://localhost:8787/callback'],
    });
    expect(status).toBe(400);
    expect(body).toEqual({
      error: 'invalid_redirect_uri',
      error_description: `redirect_uris[0] uses the scheme cursor; only https:// (or http:// on localhost or 127.0.0.1) is accepted. Cursor is pre-registered with this redirect URI: use the client_id ${cursorServer.url}/oauth/clients/cursor`,
    });
    // That client_id, as Cursor's static OAuth configuration sends it, goes through to the code.
    const cursor = KNOWN_CLIENTS.find((c) => c.slug === 'cursor')!;
    const client: Client = { client_id: `${cursorServer.url}/oauth/clients/cursor`, redirect_uris: [cursor.redirectUris[0]!] };
    const c = await connect(new Person(cursorServer, 'cursor@acme.test'), client);
    expect(c.consentHtml).toContain('verified by Loupe');
    expect((await exchange(cursorServer, client, c)).status).toBe(200);
  });

});

describe('pre-registered loopback clients with an ephemeral port (RFC 8252 §7.3; issue 25 item 3)', () => {
  // Claude Code's own metadata document lists http://localhost/callback without a port and then sends the
  // port it listens on; VS Code falls back to a random port when 33418 is taken. Both must be let through.
  it.each([
    ['claude-code', 'http://localhost:54321/callback'],
    ['claude-code', 'http://127.0.0.1:49152/callback'],
    ['vscode', 'http://127.0.0.1:51007/'],
    ['mcp-inspector', 'http://127.0.0.1:40001/oauth/callback'],
  ])('%s with %s: authorized and exchanged', async (slug, redirectUri) => {
    const known = KNOWN_CLIENTS.find((c) => c.slug === slug)!;
    const client: Client = { client_id: `${h.url}/oauth/clients/${slug}`, redirect_uris: known.redirectUris };
    const c = await connect(new Person(h, `${slug}-${new URL(redirectUri).port}@acme.test`), client, { extra: { redirect_uri: redirectUri } });
    expect(c.callback.origin).toBe(new URL(redirectUri).origin);
    expect((await exchange(h, client, c)).status).toBe(200);
  });
});

describe('rate limits (spec 8.1, 7.3)', () => {
  // Counters use fixed windows: start each test at the top of an hour so no window ends mid-test.
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    vi.setSystemTime(Math.ceil(Date.now() / 3600_000) * 3600_000 + 1000);
  });
  afterEach(() => vi.useRealTimers());

  it('registration: 10 per hour per IP, then 429 rate_limit_exceeded with retry_after and Retry-After', async () => {
    const other = await startAuthServer();
    try {
      for (let i = 0; i < 10; i++) expect((await registerClient(other.url)).status).toBe(201);
      const res = await fetch(`${other.url}/oauth/register`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(res.status).toBe(429);
      const body = (await res.json()) as any;
      expect(body).toEqual({ error: 'rate_limit_exceeded', error_description: expect.any(String), retry_after: expect.any(Number) });
      expect(Number(res.headers.get('retry-after'))).toBe(body.retry_after);
      expect(body.retry_after).toBeGreaterThan(0);
      expect(body.retry_after).toBeLessThanOrEqual(3600);
    } finally {
      await other.close();
    }
  });

  it('code exchange: 20 per hour per client and IP', async () => {
    const client = (await registerClient(h.url)).body as Client;
    const form = { grant_type: 'authorization_code', code: 'x', redirect_uri: client.redirect_uris[0]!, client_id: client.client_id, code_verifier: 'v'.repeat(43) };
    const post = () => fetch(`${h.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams(form) });
    for (let i = 0; i < 20; i++) expect((await post()).status).toBe(400);
    const limited = await post();
    expect(limited.status).toBe(429);
    expect(((await limited.json()) as any).error).toBe('rate_limit_exceeded');
  });

  it('refresh: 60 per hour per client connection', async () => {
    const client = (await registerClient(h.url)).body as Client;
    const tokens = (await exchange(h, client, await connect(new Person(h, 'refresher@acme.test'), client))).body;
    let rt = tokens.refresh_token as string;
    const post = (token: string) => fetch(`${h.url}/oauth/token`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: new URLSearchParams({ grant_type: 'refresh_token', refresh_token: token, client_id: client.client_id }) });
    for (let i = 0; i < 60; i++) {
      const res = await post(rt);
      expect(res.status).toBe(200);
      rt = ((await res.json()) as any).refresh_token;
    }
    const limited = await post(rt);
    expect(limited.status).toBe(429);
    const body = (await limited.json()) as any;
    expect(body.error).toBe('rate_limit_exceeded');
    expect(limited.headers.get('retry-after')).toBe(String(body.retry_after));
  });

  it('2,000 requests a minute per IP over the authorization server, with the per-IP fields', async () => {
    const other = await startAuthServer();
    try {
      const get = () => fetch(`${other.url}/.well-known/oauth-authorization-server`);
      let ok = 0;
      for (let round = 0; round < 40; round++) {
        const statuses = await Promise.all(Array.from({ length: 50 }, () => get().then(async (r) => (await r.arrayBuffer(), r.status))));
        ok += statuses.filter((s) => s === 200).length;
      }
      expect(ok).toBe(2000);
      const res = await get();
      expect(res.status).toBe(429);
      const body = (await res.json()) as any;
      expect(body).toMatchObject({ msg: expect.any(String), retryAfterSeconds: expect.any(Number), error: 'rate_limit_exceeded' });
      expect(res.headers.get('retry-after')).toBe(String(body.retryAfterSeconds));
    } finally {
      await other.close();
    }
  });
});

describe('unused paths', () => {
  it('an authorize URL for a client the server cannot fetch says so on a page', async () => {
    const page = await new Person(h, 'x@acme.test').get(authorizeUrl({ client_id: 'https://127.0.0.1:1/client.json', redirect_uris: ['https://app.example.com/cb'] }).path);
    expect(page.status).toBe(400);
    expect(await page.text()).toContain('invalid_client');
  });
});
