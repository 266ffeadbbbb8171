import { describe, expect, it } from 'vitest';
import { checkRegistration, isOurResource, redirectUriProblem } from './client-rules';
import { grantableScopes } from './scopes';

describe('grantableScopes (spec 5.3)', () => {
  it('defaults to mcp:read mcp:write', () => {
    expect(grantableScopes(undefined, undefined)).toEqual(['mcp:read', 'mcp:write']);
    expect(grantableScopes('  ', undefined)).toEqual(['mcp:read', 'mcp:write']);
  });
  it('drops unknown scopes, mcp:thirdparty, and scopes outside the registration', () => {
    expect(grantableScopes('openid admin mcp:thirdparty mcp:read', undefined)).toEqual(['openid', 'mcp:read']);
    expect(grantableScopes('mcp:read mcp:write email', 'mcp:read email')).toEqual(['mcp:read', 'email']);
    expect(grantableScopes(undefined, 'openid')).toEqual([]);
    expect(grantableScopes('mcp:thirdparty', undefined)).toEqual([]);
  });
});

describe('registration rules (spec 5.4)', () => {
  it.each([
    ['https://app.example.com/cb', undefined],
    ['http://localhost:1234/cb', undefined],
    ['http://127.0.0.1/cb', undefined],
    ['http://example.com/cb', 'may use http:// only'],
    ['http://[::1]:3000/cb', 'may use http:// only'],
    ['myapp:/cb', 'uses the scheme myapp'],
    ['https://app.example.com/cb#frag', 'fragment'],
    ['not a url', 'not an absolute URL'],
  ])('%s', (uri, problem) => {
    const got = redirectUriProblem(uri);
    if (problem === undefined) expect(got).toBeUndefined();
    else expect(got).toContain(problem);
  });

  it('makes every client public and fills the grant types', () => {
    const r = checkRegistration({ redirect_uris: ['https://a.example/cb'], client_secret: 'x' });
    expect(r).toEqual({ ok: true, metadata: { redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'none', grant_types: ['authorization_code', 'refresh_token'] } });
    const native = checkRegistration({ redirect_uris: ['http://127.0.0.1:3000/cb', 'https://a.example/cb'] });
    expect(native).toMatchObject({ ok: true, metadata: { application_type: 'native' } });
  });

  it.each([
    [null, 'invalid_client_metadata'],
    [{}, 'invalid_client_metadata'],
    [{ redirect_uris: ['https://a.example/cb'], grant_types: ['client_credentials'] }, 'invalid_client_metadata'],
    [{ redirect_uris: ['https://a.example/cb'], response_types: ['token'] }, 'invalid_client_metadata'],
    [{ redirect_uris: ['https://a.example/cb'], token_endpoint_auth_method: 'private_key_jwt' }, 'invalid_client_metadata'],
    [{ redirect_uris: ['https://a.example/cb', 'ftp://x'] }, 'invalid_redirect_uri'],
  ])('%j → %s', (body, error) => {
    expect(checkRegistration(body)).toMatchObject({ ok: false, error });
  });

  it('resource must be our MCP endpoint', () => {
    expect(isOurResource('https://h.example/api/mcp', 'https://h.example/api/mcp')).toBe(true);
    expect(isOurResource('https://h.example/api/mcp/', 'https://h.example/api/mcp')).toBe(true);
    expect(isOurResource('https://h.example/', 'https://h.example/api/mcp')).toBe(false);
  });
  it('refuses metadata PostgreSQL cannot store (a NUL, an unpaired surrogate), naming the field, instead of failing on the write', () => {
    const base = { redirect_uris: ['http://127.0.0.1:7/cb'], grant_types: ['authorization_code', 'refresh_token'], response_types: ['code'], token_endpoint_auth_method: 'none' };
    expect(checkRegistration({ ...base, client_name: 'x\ud83dy' })).toMatchObject({ ok: false, error: 'invalid_client_metadata', error_description: expect.stringMatching(/^client_name contains a NUL character or an unpaired UTF-16 surrogate/) });
    expect(checkRegistration({ ...base, client_name: 'a\u0000b' })).toMatchObject({ ok: false, error_description: expect.stringMatching(/^client_name /) });
    expect(checkRegistration({ ...base, redirect_uris: ['http://127.0.0.1:7/cb', 'https://a.example/\udc00'] })).toMatchObject({ ok: false, error_description: expect.stringMatching(/^redirect_uris\[1\] /) });
    expect(checkRegistration({ ...base, ['x\ud800']: 1 })).toMatchObject({ ok: false });
    // A well-formed pair (an emoji) is fine.
    expect(checkRegistration({ ...base, client_name: 'Notebook \ud83d\udcd3' })).toMatchObject({ ok: true });
  });
});
