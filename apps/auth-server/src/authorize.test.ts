import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { Person, registerClient, startAuthServer, uidOf, type AuthHarness } from './test/harness';
import { authorizeUrl, connect, exchange, type Client } from './test/flow';

let h: AuthHarness;
let client: Client;
beforeAll(async () => {
  h = await startAuthServer();
  client = (await registerClient(h.url, { client_name: 'Authorize Tests', redirect_uris: ['http://127.0.0.1:9999/callback', 'https://app.example.com/cb'] })).body as Client;
});
afterAll(() => h.close());
afterEach(() => vi.useRealTimers());

/** The authorization endpoint's answer: an error sent back to the client, or the page a person sees. */
async function authorize(extra: Record<string, string | undefined>, c: Client = client) {
  const person = new Person(h, 'someone@acme.test');
  const res = await person.get(authorizeUrl(c, extra).path);
  const location = res.headers.get('location') ?? '';
  const url = location ? new URL(location, h.url) : undefined;
  // Errors come in the query, or in the fragment for a response_type whose default mode is the fragment.
  const params = url ? (url.hash ? new URLSearchParams(url.hash.slice(1)) : url.searchParams) : undefined;
  return { res, url, params, error: params?.get('error'), description: params?.get('error_description'), html: location ? '' : await res.text() };
}

describe('authorization requests (spec 5.5, 7.1)', () => {
  it('a valid request goes to our sign-in page', async () => {
    const { url } = await authorize({});
    expect(url!.pathname).toMatch(/^\/oauth\/interaction\//);
  });

  it.each([
    ['response_type other than code', { response_type: 'token' }, 'unsupported_response_type'],
    ['missing code_challenge', { code_challenge: undefined }, 'invalid_request'],
    ['plain PKCE', { code_challenge_method: 'plain' }, 'invalid_request'],
    ['missing state', { state: undefined }, 'invalid_request'],
    ['only unknown scopes', { scope: 'admin superuser' }, 'invalid_scope'],
    ['only mcp:thirdparty', { scope: 'mcp:thirdparty' }, 'invalid_scope'],
    ['a foreign resource', { resource: 'https://other.example.com/api/mcp' }, 'invalid_target'],
  ])('%s → %s to the client, with state', async (_name, extra, error) => {
    const { url, params, error: got, description } = await authorize(extra as Record<string, string | undefined>);
    expect(url!.origin + url!.pathname).toBe('http://127.0.0.1:9999/callback');
    expect(got).toBe(error);
    expect(description).toBeTruthy();
    if (!('state' in extra)) expect(params!.get('state')).toBeTruthy();
  });

  it('our own MCP endpoint is accepted as resource', async () => {
    const { url } = await authorize({ resource: `${h.url}/api/mcp` });
    expect(url!.pathname).toMatch(/^\/oauth\/interaction\//);
  });

  it('the root /authorize of the 2025-03-26 fallback redirects with its query, and refuses one too long to redirect', async () => {
    const query = authorizeUrl(client, {}).path.slice('/oauth/authorize'.length);
    const alias = await fetch(`${h.url}/authorize${query}`, { redirect: 'manual' });
    expect([alias.status, alias.headers.get('location')]).toEqual([302, `/oauth/authorize${query}`]);
    // As the hostile suite generated it: a 16 KB parameter would make a Location header no HTTP client reads.
    const long = await fetch(`${h.url}/authorize${query}&code_challenge_method=${'%C3%A9'.repeat(2000)}`, { redirect: 'manual' });
    expect(long.status).toBe(414);
    expect(long.headers.get('location')).toBeNull();
    expect(await long.text()).toContain('at most 8192 are accepted');
  });

  it('an unknown client_id gets an error page, never a redirect', async () => {
    const { res, html } = await authorize({ client_id: 'cli_unknown' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(html).toContain('invalid_client');
  });

  it('an unregistered redirect_uri gets an error page (no open redirect)', async () => {
    const { res, html } = await authorize({ redirect_uri: 'https://evil.example.com/cb' });
    expect(res.status).toBe(400);
    expect(res.headers.get('location')).toBeNull();
    expect(html).toContain('invalid_redirect_uri');
    const sneaky = await authorize({ redirect_uri: 'https://app.example.com/cb/../../evil' });
    expect(sneaky.res.headers.get('location')).toBeNull();
  });

  it('a loopback redirect_uri may use another port (RFC 8252 §7.3); the token request must repeat it', async () => {
    const person = new Person(h, 'ports@acme.test');
    const c = await connect(person, client, { extra: { redirect_uri: 'http://127.0.0.1:51234/callback' } });
    expect(c.callback.origin).toBe('http://127.0.0.1:51234');
    expect(c.callback.searchParams.get('state')).toBe(c.state);
    expect((await exchange(h, client, c)).status).toBe(200);
    const { url } = await authorize({ redirect_uri: 'http://127.0.0.1:51234/other-path' });
    expect(url).toBeUndefined();
  });

  it('scopes: default mcp:read mcp:write; unknown, unregistered and mcp:thirdparty dropped', async () => {
    const person = new Person(h, 'scopes@acme.test');
    const none = await exchange(h, client, await connect(person, client, { extra: { scope: undefined } }));
    expect(none.body.scope).toBe('mcp:read mcp:write');
    const mixed = await exchange(h, client, await connect(person, client, { extra: { scope: 'mcp:read admin mcp:thirdparty' } }));
    expect(mixed.body.scope).toBe('mcp:read');
    const narrow = (await registerClient(h.url, { scope: 'mcp:read openid' })).body as Client;
    const dropped = await exchange(h, narrow, await connect(person, narrow, { extra: { scope: 'mcp:read mcp:write email' } }));
    expect(dropped.body.scope).toBe('mcp:read');
    const { error } = await authorize({ scope: 'mcp:write' }, narrow);
    expect(error).toBe('invalid_scope');
  });

  it('authorization requests expire after 10 minutes', async () => {
    vi.useFakeTimers({ toFake: ['Date'], shouldAdvanceTime: true });
    const person = new Person(h, 'slow@acme.test');
    const start = await person.get(authorizeUrl(client).path);
    const page = await person.get(start.headers.get('location')!);
    expect(page.status).toBe(200);
    vi.setSystemTime(Date.now() + 10 * 60_000 + 1000);
    const late = await person.get(`/oauth/interaction/${uidOf(start.headers.get('location')!)}`);
    expect(late.status).toBe(400);
    expect(await late.text()).toContain('expired');
  });
});
