import { describe, expect, it } from 'vitest';
import { ConfigError, identityProviders, loadConfig } from './index';

const google = {
  OIDC_GOOGLE_ISSUER: 'https://accounts.google.com',
  OIDC_GOOGLE_CLIENT_ID: 'gid',
  OIDC_GOOGLE_CLIENT_SECRET: 'gsecret',
};

describe('identity providers from the environment', () => {
  it('are none without OIDC_PROVIDERS', () => {
    expect(loadConfig({}).identityProviders).toEqual([]);
    expect(identityProviders({ OIDC_PROVIDERS: ' ', ...google })).toEqual([]);
  });

  it('reads each listed provider with its defaults and overrides', () => {
    const c = loadConfig({
      OIDC_PROVIDERS: 'google, Okta-Dev',
      ...google,
      OIDC_OKTA_DEV_ISSUER: 'https://acme.okta.com/oauth2/default',
      OIDC_OKTA_DEV_CLIENT_ID: 'oid',
      OIDC_OKTA_DEV_CLIENT_SECRET: 'osecret',
      OIDC_OKTA_DEV_NAME: 'Acme SSO',
      OIDC_OKTA_DEV_SCOPES: 'openid email',
    });
    expect(c.identityProviders).toEqual([
      { id: 'google', name: 'Google', issuer: 'https://accounts.google.com', clientId: 'gid', clientSecret: 'gsecret', scopes: 'openid email profile' },
      { id: 'okta-dev', name: 'Acme SSO', issuer: 'https://acme.okta.com/oauth2/default', clientId: 'oid', clientSecret: 'osecret', scopes: 'openid email' },
    ]);
  });

  it('names every missing or wrong variable', () => {
    const attempt = () => identityProviders({ OIDC_PROVIDERS: 'google,okta', ...google, OIDC_OKTA_ISSUER: 'http://okta.example', OIDC_OKTA_CLIENT_ID: 'x' });
    expect(attempt).toThrow(ConfigError);
    expect(attempt).toThrow(/OIDC_OKTA_CLIENT_SECRET: required/);
    expect(attempt).toThrow(/OIDC_OKTA_ISSUER: an https:\/\/ URL/);
    expect(() => identityProviders({ OIDC_PROVIDERS: 'google', OIDC_GOOGLE_CLIENT_ID: 'a', OIDC_GOOGLE_CLIENT_SECRET: 'b' })).toThrow(/OIDC_GOOGLE_ISSUER: required/);
    expect(() => identityProviders({ OIDC_PROVIDERS: 'goo gle' })).toThrow(/OIDC_PROVIDERS: "goo gle"/);
    expect(() => identityProviders({ OIDC_PROVIDERS: 'google,google', ...google })).toThrow(/listed twice/);
    expect(() => identityProviders({ OIDC_PROVIDERS: 'google', ...google, OIDC_GOOGLE_SCOPES: 'email' })).toThrow(/OIDC_GOOGLE_SCOPES: must include "openid"/);
    expect(() => loadConfig({ OIDC_PROVIDERS: 'google' })).toThrow(/OIDC_GOOGLE_CLIENT_ID/);
  });

  it('allows an http issuer on loopback only (a local test provider)', () => {
    const [p] = identityProviders({ OIDC_PROVIDERS: 'dev', OIDC_DEV_ISSUER: 'http://127.0.0.1:4000', OIDC_DEV_CLIENT_ID: 'a', OIDC_DEV_CLIENT_SECRET: 'b' });
    expect(p).toMatchObject({ id: 'dev', name: 'Dev', issuer: 'http://127.0.0.1:4000' });
  });
});
