import { describe, expect, it } from 'vitest';
import { ConfigError, baseUrl, loadConfig } from './index';

describe('loadConfig', () => {
  it('applies the embedded defaults', () => {
    const c = loadConfig({}, '/srv/loupe');
    expect(c).toMatchObject({ port: 8080, databaseUrl: undefined, dataDir: '/srv/loupe/.data', servicePrefix: 'loupe_' });
    expect(baseUrl(c)).toBe('http://localhost:8080');
  });

  it('reads overrides and treats empty values as unset', () => {
    const c = loadConfig({ PORT: '9000', DATABASE_URL: 'postgres://x/y', DATA_DIR: '', WORKER_ENABLED: 'false' }, '/a');
    expect(c.port).toBe(9000);
    expect(c.databaseUrl).toBe('postgres://x/y');
    expect(c.dataDir).toBe('/a/.data');
    expect(c.workerEnabled).toBe(false);
  });

  it('names the variable that is wrong', () => {
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(ConfigError);
    expect(() => loadConfig({ PORT: 'eighty' })).toThrow(/PORT/);
    expect(() => loadConfig({ SERVICE_PREFIX: 'Loupe' })).toThrow(/SERVICE_PREFIX/);
  });

  it('reads the reply settings, and refuses a receiver or webhook without a reply domain', () => {
    expect(loadConfig({}).replies).toBeUndefined();
    expect(loadConfig({ MAIL_REPLY_DOMAIN: 'Replies.Example.com', INBOUND_SMTP_PORT: '2525', INBOUND_MAIL_SECRET: 'x'.repeat(16) }).replies).toEqual({
      domain: 'replies.example.com', smtp: { host: '127.0.0.1', port: 2525, maxBytes: 25 * 1024 * 1024 }, webhookSecret: 'x'.repeat(16),
    });
    expect(loadConfig({ MAIL_REPLY_DOMAIN: 'replies.example.com', INBOUND_SMTP_PORT: '2525', INBOUND_MAIL_MAX_MB: '5' }).replies?.smtp?.maxBytes).toBe(5 * 1024 * 1024);
    expect(() => loadConfig({ INBOUND_MAIL_MAX_MB: '0' })).toThrow(/INBOUND_MAIL_MAX_MB/);
    expect(() => loadConfig({ INBOUND_SMTP_PORT: '2525' })).toThrow(/MAIL_REPLY_DOMAIN: required/);
    expect(() => loadConfig({ MAIL_REPLY_DOMAIN: 'replies.example.com', INBOUND_MAIL_SECRET: 'short' })).toThrow(/INBOUND_MAIL_SECRET/);
  });

  it('reads the mail settings', () => {
    expect(loadConfig({})).toMatchObject({ smtpUrl: undefined, mailFrom: 'Loupe <no-reply@loupe.localhost>' });
    const c = loadConfig({ SMTP_URL: 'smtp://user:pw@mail.example:587', MAIL_FROM: 'Acme <loupe@acme.test>' });
    expect(c).toMatchObject({ smtpUrl: 'smtp://user:pw@mail.example:587', mailFrom: 'Acme <loupe@acme.test>' });
    expect(() => loadConfig({ SMTP_URL: 'mail.example' })).toThrow(/SMTP_URL/);
    expect(() => loadConfig({ SMTP_URL: 'https://mail.example' })).toThrow(/SMTP_URL/);
  });

  it("reads the access-token lifetime: the spec's hour by default and at most, 5 seconds at least", () => {
    expect(loadConfig({}).accessTokenTtlSeconds).toBe(3600);
    expect(loadConfig({ ACCESS_TOKEN_TTL_SECONDS: '300' }).accessTokenTtlSeconds).toBe(300);
    expect(() => loadConfig({ ACCESS_TOKEN_TTL_SECONDS: '7200' })).toThrow(/ACCESS_TOKEN_TTL_SECONDS/);
    expect(() => loadConfig({ ACCESS_TOKEN_TTL_SECONDS: '1' })).toThrow(/ACCESS_TOKEN_TTL_SECONDS/);
    expect(() => loadConfig({ ACCESS_TOKEN_TTL_SECONDS: '1.5' })).toThrow(/ACCESS_TOKEN_TTL_SECONDS/);
  });

  it('reads the embedding provider: none by default, a model required with a URL', () => {
    expect(loadConfig({}).embeddings).toBeUndefined();
    expect(loadConfig({ EMBEDDINGS_URL: 'http://localhost:11434/v1', EMBEDDINGS_MODEL: 'nomic-embed-text', EMBEDDINGS_REQUESTS_PER_MINUTE: '600' }).embeddings).toMatchObject({
      url: 'http://localhost:11434/v1', model: 'nomic-embed-text', apiKey: undefined, batchSize: 64, requestsPerMinute: 600, timeoutMs: 30_000,
    });
    expect(() => loadConfig({ EMBEDDINGS_URL: 'http://localhost:11434/v1' })).toThrow(/EMBEDDINGS_MODEL: required/);
    expect(() => loadConfig({ EMBEDDINGS_URL: 'ftp://x', EMBEDDINGS_MODEL: 'm' })).toThrow(/EMBEDDINGS_URL/);
  });

  it('prefers the public base url', () => {
    expect(baseUrl(loadConfig({ PUBLIC_BASE_URL: 'https://loupe.example/' }))).toBe('https://loupe.example');
  });
});
