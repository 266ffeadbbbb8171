import { describe, expect, it } from 'vitest';
import { loadConfig } from './index';
import { productionWarnings, servesOthers } from './production-check';

describe('the production check at start', () => {
  it('says nothing on loopback, the embedded default', () => {
    for (const HOST of ['127.0.0.1', 'localhost', '::1', '127.0.0.2']) {
      expect(productionWarnings(loadConfig({ HOST, FETCH_ALLOW_LOOPBACK: 'true' }))).toEqual([]);
    }
  });

  it('names each development default still on when the service listens beyond loopback', () => {
    const warnings = productionWarnings(loadConfig({ HOST: '0.0.0.0', FETCH_ALLOW_LOOPBACK: 'true' }));
    expect(warnings.map((w) => w.setting)).toEqual(['SMTP_URL', 'METRICS_TOKEN', 'FETCH_ALLOW_LOOPBACK', 'CONNECTIONS_KEY']);
    expect(warnings[0]!.message).toMatch(/sign-in codes are written to the log/);
    expect(warnings[1]!.message).toMatch(/\/metrics is open/);
  });

  it('counts an https address for clients as serving others, even on loopback behind a proxy', () => {
    const config = loadConfig({ HOST: '127.0.0.1', PUBLIC_BASE_URL: 'https://loupe.example.com' });
    expect(servesOthers(config)).toBe(true);
    expect(productionWarnings(config).map((w) => w.setting)).toContain('SMTP_URL');
  });

  it('is silent once every default is replaced', () => {
    const config = loadConfig({
      HOST: '0.0.0.0', SMTP_URL: 'smtp://mail.example:587', METRICS_TOKEN: 'm'.repeat(16),
      CONNECTIONS_KEY: `k1:${Buffer.alloc(32, 1).toString('base64')}`,
    });
    expect(productionWarnings(config)).toEqual([]);
  });

  it('seeds the demo only on the embedded database unless LOUPE_DEMO says otherwise', () => {
    expect(loadConfig({}).demo).toBe(true);
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y' }).demo).toBe(false);
    expect(loadConfig({ DATABASE_URL: 'postgres://x/y', LOUPE_DEMO: '1' }).demo).toBe(true);
    expect(loadConfig({ LOUPE_DEMO: 'false' }).demo).toBe(false);
  });
});
