import { Writable } from 'node:stream';
import express from 'express';
import { pino } from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { listen, loggablePath, requestContext, type Listening } from './index';

// Issue 23 item 4: at LOG_LEVEL=debug the request line carried the raw token of an invitation link.
describe('the request log line', () => {
  const lines: string[] = [];
  let server: Listening;
  beforeAll(async () => {
    const log = pino({ level: 'debug' }, new Writable({ write: (chunk, _enc, done) => (lines.push(String(chunk)), done()) }));
    const app = express();
    app.use(requestContext(log));
    app.get('/account/invitations/:token', (_req, res) => void res.send('ok'));
    server = await listen(app, 0, '127.0.0.1', { requestTimeoutMs: 5000 });
  });
  afterAll(() => server.close(0));

  it('never carries a secret path segment', async () => {
    const token = 'Xy_'.repeat(14) + 'z';
    await (await fetch(`http://127.0.0.1:${server.port}/account/invitations/${token}`)).text();
    await new Promise((r) => setTimeout(r, 50));
    const line = lines.find((l) => l.includes('"msg":"request"'));
    expect(line).toContain('"path":"/account/invitations/[secret]"');
    expect(lines.join('')).not.toContain(token);
  });

  it('keeps ids and ordinary segments', () => {
    expect(loggablePath('/account/w/ws_01m8769hyg2w1awre91mepy08r/keys')).toBe('/account/w/ws_01m8769hyg2w1awre91mepy08r/keys');
    expect(loggablePath(`/a/${'b'.repeat(43)}/c`)).toBe('/a/[secret]/c');
  });
});
