import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createGuardedAgents } from './guarded-agents';
import {
  FetchAbortedError, FetchHttpError, FetchNetworkError, FetchRedirectError, FetchRefusedError, FetchTimeoutError,
  FetchTooLargeError, FetchUrlError, createSafeFetch, refusalReason, safeFetchAsFetch,
} from './index';

const MB = 1024 * 1024;

function route(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  switch (url.pathname) {
    case '/hello':
      res.writeHead(200, { 'content-type': 'text/plain; charset=utf-8', 'x-echo-ua': req.headers['user-agent'] ?? '' });
      res.end('hello world');
      return;
    case '/redirect':
      res.writeHead(Number(url.searchParams.get('status') ?? 302), { location: url.searchParams.get('to') ?? '/hello' });
      res.end();
      return;
    case '/loop':
      res.writeHead(302, { location: '/loop' });
      res.end();
      return;
    case '/status':
      res.writeHead(Number(url.searchParams.get('code')));
      res.end('status body');
      return;
    case '/big-declared':
      res.writeHead(200, { 'content-length': String(10 * MB) });
      res.write(Buffer.alloc(1024));
      return; // never finishes: the client must refuse on the header alone
    case '/big-chunked': {
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      let sent = 0;
      const pump = () => {
        while (sent < 4 * MB) {
          sent += 64 * 1024;
          if (!res.write(Buffer.alloc(64 * 1024, 1))) return void res.once('drain', pump);
        }
        res.end();
      };
      pump();
      return;
    }
    case '/echo': {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const status = Number(url.searchParams.get('status') ?? 200);
        res.writeHead(status, { 'content-type': 'application/json', 'x-reply': 'yes', 'set-cookie': ['a=1', 'b=2'] });
        res.end(JSON.stringify({ method: req.method, headers: req.headers, body: Buffer.concat(chunks).toString() }));
      });
      return;
    }
    case '/empty':
      res.writeHead(204);
      res.end();
      return;
    case '/no-headers':
      return; // holds the request open without answering
    case '/stall':
      res.writeHead(200, { 'content-length': '100' });
      res.write(Buffer.alloc(10));
      return; // then nothing more
    case '/drip': {
      res.writeHead(200);
      const timer = setInterval(() => res.write('x'), 20);
      res.on('close', () => clearInterval(timer));
      return;
    }
    default:
      res.writeHead(404);
      res.end();
  }
}

describe('safe fetch', () => {
  let server: http.Server;
  let base: string;
  let port: number;
  const open = new Set<import('node:net').Socket>();
  beforeAll(async () => {
    server = http.createServer(route);
    server.on('connection', (s) => {
      open.add(s);
      s.on('close', () => open.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
    base = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    for (const s of open) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const loopback = createSafeFetch({ allowLoopback: true, timeouts: { connectMs: 2000, responseMs: 2000, idleMs: 2000 } });
  const strict = createSafeFetch({ timeouts: { connectMs: 2000, responseMs: 2000, idleMs: 2000 } });

  async function refusal(promise: Promise<unknown>): Promise<FetchRefusedError> {
    const error = await promise.then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(FetchRefusedError);
    return error as FetchRefusedError;
  }

  it('streams a body with its headers when loopback is allowed', async () => {
    const response = await loopback.stream(`${base}/hello`, { maxBytes: 1024 });
    expect(response.status).toBe(200);
    expect(response.contentType).toBe('text/plain; charset=utf-8');
    expect(response.headers['x-echo-ua']).toMatch(/^Loupe\//);
    let text = '';
    for await (const chunk of response.body) text += String(chunk);
    expect(text).toBe('hello world');
    const whole = await loopback.bytes(`${base}/hello`, { maxBytes: 1024 });
    expect(whole.body.toString()).toBe('hello world');
  });

  it('refuses loopback, private, link-local and IPv6 loopback addresses by default', async () => {
    const cases: [string, string, RegExp][] = [
      [`${base}/hello`, '127.0.0.1', /loopback/],
      ['http://10.0.0.1/file', '10.0.0.1', /private/],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254', /link-local/],
      [`http://[::1]:${port}/hello`, '::1', /loopback/],
      ['http://100.64.0.1/', '100.64.0.1', /carrier-grade NAT/],
      ['http://0.0.0.0/', '0.0.0.0', /unspecified/],
      ['http://[fd00::1]/', 'fd00::1', /unique-local/],
      ['http://[fe80::1]/', 'fe80::1', /link-local/],
      ['http://224.0.0.1/', '224.0.0.1', /multicast/],
      ['http://[::ffff:10.0.0.1]/', '::ffff:a00:1', /private/],
    ];
    for (const [url, address, reason] of cases) {
      const error = await refusal(strict.stream(url, { maxBytes: 1024 }));
      expect(error.address).toBe(address);
      expect(error.reason).toMatch(reason);
      expect(error.message).toContain(address);
      expect(error.retryable).toBe(false);
    }
  });

  it('checks the addresses a name resolves to, not only literal IPs', async () => {
    const error = await refusal(strict.stream(`http://localhost:${port}/hello`, { maxBytes: 1024 }));
    expect(error.host).toBe('localhost');
    expect(['127.0.0.1', '::1']).toContain(error.address);
  });

  it('checks literal addresses in the socket layer too, whatever the caller did', async () => {
    const agents = createGuardedAgents({ allowLoopback: false });
    const error = await new Promise<Error>((resolve) => {
      http.get({ host: '127.0.0.1', port, path: '/hello', agent: agents.http }, () => resolve(new Error('connected'))).on('error', resolve);
    });
    expect(error.message).toMatch(/refused to connect to 127\.0\.0\.1.*loopback/);
  });

  it('allows only loopback with allowLoopback', async () => {
    const v6server = http.createServer(route);
    await new Promise<void>((resolve) => v6server.listen(0, '::1', resolve));
    const v6 = await loopback.bytes(`http://[::1]:${(v6server.address() as AddressInfo).port}/hello`, { maxBytes: 100 });
    expect(v6.body.toString()).toBe('hello world');
    await new Promise((resolve) => v6server.close(resolve));
    for (const url of ['http://10.0.0.1/', 'http://169.254.169.254/', 'http://192.168.1.1/', 'http://172.16.0.1/', 'http://[fc00::1]/']) {
      await refusal(loopback.stream(url, { maxBytes: 10 }));
    }
    expect(refusalReason('127.255.0.9', { allowLoopback: true })).toBeUndefined();
    expect(refusalReason('8.8.8.8', { allowLoopback: false })).toBeUndefined();
    expect(refusalReason('2606:4700::1111', { allowLoopback: false })).toBeUndefined();
  });

  it('refuses IPv4-compatible IPv6 (::/96) and every IPv6 address outside 2000::/3, even with loopback allowed', async () => {
    for (const address of ['::7f00:1', '::a9fe:a9fe', '::a00:1', '::808:808', '4000::1', 'e000::1']) {
      expect(refusalReason(address, { allowLoopback: true }), address).toMatch(/outside global unicast/);
    }
    await refusal(loopback.stream('http://[::7f00:1]/', { maxBytes: 10 }));
    await refusal(loopback.stream('http://[::a9fe:a9fe]/latest/meta-data/', { maxBytes: 10 }));
    expect(refusalReason('2001:4860:4860::8888', { allowLoopback: false })).toBeUndefined();
  });

  it('fetches only http and https URLs', async () => {
    await expect(loopback.stream('ftp://127.0.0.1/file', { maxBytes: 10 })).rejects.toThrow(FetchUrlError);
    await expect(loopback.stream('file:///etc/passwd', { maxBytes: 10 })).rejects.toThrow(/file: URLs are not fetched/);
    await expect(loopback.stream('not a url', { maxBytes: 10 })).rejects.toThrow(/is not an absolute URL/);
  });

  it('does not follow redirects unless asked', async () => {
    const error = await loopback.stream(`${base}/redirect?to=/hello`, { maxBytes: 100 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchHttpError);
    expect(error).toMatchObject({ status: 302, location: '/hello', retryable: false });
    const followed = await loopback.stream(`${base}/redirect?to=/hello`, { maxBytes: 100, followRedirects: true });
    expect(followed.url).toBe(`${base}/hello`);
    expect(followed.redirects).toEqual([`${base}/hello`]);
    followed.body.destroy();
  });

  it('re-checks every redirect hop and refuses one to a private or metadata address', async () => {
    for (const [target, address] of [
      ['http://10.0.0.1/secret', '10.0.0.1'],
      ['http://169.254.169.254/latest/meta-data/', '169.254.169.254'],
      [`http://localhost:${port}/hello`, undefined],
    ] as const) {
      const fetcher = address ? loopback : strict;
      const start = address ? `${base}/redirect?to=${encodeURIComponent(target)}` : `${base}/redirect`;
      if (!address) {
        // A strict fetcher cannot even reach the loopback server that would redirect.
        await refusal(fetcher.stream(start, { maxBytes: 100, followRedirects: true }));
        continue;
      }
      const error = await refusal(fetcher.stream(start, { maxBytes: 100, followRedirects: true }));
      expect(error.address).toBe(address);
      expect(error.url).toBe(target);
    }
    const viaName = await refusal(
      createSafeFetch({ allowLoopback: true }).stream(`${base}/redirect?to=${encodeURIComponent('http://10.0.0.1./x')}`, {
        maxBytes: 100,
        followRedirects: true,
      }),
    );
    expect(viaName.address).toBe('10.0.0.1');
    await expect(loopback.stream(`${base}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`, { maxBytes: 100, followRedirects: true })).rejects.toThrow(
      FetchUrlError,
    );
    await expect(loopback.stream(`${base}/loop`, { maxBytes: 100, followRedirects: true, maxRedirects: 3 })).rejects.toThrow(FetchRedirectError);
  });

  it('types HTTP failures and says whether they may pass on retry', async () => {
    for (const [code, retryable] of [[404, false], [410, false], [403, false], [500, true], [503, true], [429, true]] as const) {
      const error = await loopback.stream(`${base}/status?code=${code}`, { maxBytes: 100 }).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FetchHttpError);
      expect(error).toMatchObject({ status: code, retryable });
      expect((error as Error).message).toContain(String(code));
    }
  });

  it('refuses a body announced larger than the cap before reading it', async () => {
    const error = await loopback.stream(`${base}/big-declared`, { maxBytes: MB }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchTooLargeError);
    expect(error).toMatchObject({ limit: MB, declared: 10 * MB });
  });

  it('cuts a body off once it passes the cap while streaming', async () => {
    const response = await loopback.stream(`${base}/big-chunked`, { maxBytes: MB });
    let received = 0;
    const error = await (async () => {
      for await (const chunk of response.body) received += (chunk as Buffer).length;
    })().catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchTooLargeError);
    expect(received).toBeLessThanOrEqual(MB);
  });

  it('times out waiting for headers, on a stalled body, and on the whole transfer', async () => {
    const quick = createSafeFetch({ allowLoopback: true, timeouts: { connectMs: 1000, responseMs: 300, idleMs: 300 } });
    const headers = await quick.stream(`${base}/no-headers`, { maxBytes: 100 }).catch((e: unknown) => e);
    expect(headers).toBeInstanceOf(FetchTimeoutError);
    expect(headers).toMatchObject({ phase: 'response', retryable: true });

    const stalled = await quick.stream(`${base}/stall`, { maxBytes: 1000 });
    const idle = await (async () => {
      for await (const _chunk of stalled.body) void _chunk;
    })().catch((e: unknown) => e);
    expect(idle).toBeInstanceOf(FetchTimeoutError);
    expect(idle).toMatchObject({ phase: 'idle' });

    const dripping = await quick.stream(`${base}/drip`, { maxBytes: 1000, timeouts: { totalMs: 400 } });
    const total = await (async () => {
      for await (const _chunk of dripping.body) void _chunk;
    })().catch((e: unknown) => e);
    expect(total).toBeInstanceOf(FetchTimeoutError);
    expect(total).toMatchObject({ phase: 'total' });
  });

  it('reports a refused connection as a retryable network error', async () => {
    const closed = http.createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    const error = await loopback.stream(`http://127.0.0.1:${closedPort}/`, { maxBytes: 10 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(FetchNetworkError);
    expect(error).toMatchObject({ systemCode: 'ECONNREFUSED', retryable: true });
  });

  it('POSTs a body and keeps the GET behaviour by default', async () => {
    const posted = await loopback.bytes(`${base}/echo`, {
      maxBytes: 10_000, method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' },
    });
    expect(JSON.parse(posted.body.toString())).toMatchObject({ method: 'POST', body: '{"a":1}', headers: { 'content-type': 'application/json' } });
    const buffer = await loopback.bytes(`${base}/echo`, { maxBytes: 10_000, method: 'POST', body: Buffer.from('bytes') });
    expect(JSON.parse(buffer.body.toString())).toMatchObject({ method: 'POST', body: 'bytes' });
    const got = await loopback.bytes(`${base}/echo`, { maxBytes: 10_000 });
    expect(JSON.parse(got.body.toString())).toMatchObject({ method: 'GET', body: '' });
  });

  it('resolves a non-2xx answer with acceptAnyStatus, and still refuses it without', async () => {
    const answer = await loopback.bytes(`${base}/status?code=503`, { maxBytes: 100, acceptAnyStatus: true });
    expect(answer.status).toBe(503);
    expect(answer.body.toString()).toBe('status body');
    const redirect = await loopback.bytes(`${base}/redirect?to=/hello`, { maxBytes: 100, acceptAnyStatus: true });
    expect(redirect).toMatchObject({ status: 302, headers: { location: '/hello' } });
    await expect(loopback.bytes(`${base}/echo?status=404`, { maxBytes: 10_000, method: 'POST', body: 'x' })).rejects.toThrow(FetchHttpError);
  });

  it('stops when the caller aborts', async () => {
    const controller = new AbortController();
    const pending = loopback.stream(`${base}/no-headers`, { maxBytes: 10, signal: controller.signal });
    setTimeout(() => controller.abort(), 50);
    await expect(pending).rejects.toThrow(FetchAbortedError);
  });
});

describe('safeFetchAsFetch', () => {
  let server: http.Server;
  let base: string;
  const open = new Set<import('node:net').Socket>();
  beforeAll(async () => {
    server = http.createServer(route);
    server.on('connection', (s) => {
      open.add(s);
      s.on('close', () => open.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of open) s.destroy();
    await new Promise((resolve) => server.close(resolve));
  });

  const fetchLoopback = safeFetchAsFetch(createSafeFetch({ allowLoopback: true }), { maxBytes: 10_000, timeoutMs: 2000 });

  it('sends the method, headers in every form and a string body, and answers a Response', async () => {
    const inits: RequestInit[] = [
      { headers: new Headers({ 'x-one': '1', authorization: 'Bearer t' }) },
      { headers: { 'x-one': '1', authorization: 'Bearer t' } },
      { headers: [['x-one', '1'], ['authorization', 'Bearer t']] },
    ];
    for (const init of inits) {
      const response = await fetchLoopback(`${base}/echo?status=202`, { ...init, method: 'POST', body: 'payload' });
      expect(response).toBeInstanceOf(Response);
      expect(response.status).toBe(202);
      expect(response.ok).toBe(true);
      expect(response.headers.get('content-type')).toBe('application/json');
      expect(response.headers.get('x-reply')).toBe('yes');
      expect(response.headers.getSetCookie()).toEqual(['a=1', 'b=2']);
      const echoed = (await response.json()) as { method: string; body: string; headers: Record<string, string> };
      expect(echoed).toMatchObject({ method: 'POST', body: 'payload', headers: { 'x-one': '1', authorization: 'Bearer t' } });
    }
    const get = await fetchLoopback(new URL(`${base}/hello`));
    expect(await get.text()).toBe('hello world');
    const request = await fetchLoopback(new Request(`${base}/echo`, { method: 'POST', body: 'from a request', headers: { 'x-r': 'r' } }));
    expect(await request.json()).toMatchObject({ method: 'POST', body: 'from a request', headers: { 'x-r': 'r' } });
    const empty = await fetchLoopback(`${base}/empty`);
    expect(empty.status).toBe(204);
    expect(await empty.text()).toBe('');
  });

  it('resolves error statuses as fetch does', async () => {
    const response = await fetchLoopback(`${base}/status?code=404`);
    expect(response.status).toBe(404);
    expect(response.ok).toBe(false);
    expect(await response.text()).toBe('status body');
  });

  it("rejects with safe-fetch's errors: refused address, timeout, too large", async () => {
    const strict = safeFetchAsFetch(createSafeFetch(), { maxBytes: 10_000, timeoutMs: 2000 });
    await expect(strict(`${base}/hello`)).rejects.toThrow(FetchRefusedError);
    const quick = safeFetchAsFetch(createSafeFetch({ allowLoopback: true }), { maxBytes: 10_000, timeoutMs: 300 });
    const started = Date.now();
    await expect(quick(`${base}/no-headers`)).rejects.toThrow(FetchTimeoutError);
    await expect(quick(`${base}/drip`)).rejects.toThrow(FetchTimeoutError);
    expect(Date.now() - started).toBeLessThan(2000);
    const small = safeFetchAsFetch(createSafeFetch({ allowLoopback: true }), { maxBytes: MB, timeoutMs: 5000 });
    await expect(small(`${base}/big-chunked`)).rejects.toThrow(FetchTooLargeError);
    await expect(fetchLoopback(`${base}/echo`, { method: 'DELETE' })).rejects.toThrow(/only GET and POST/);
  });

  it('respects the signal, before and during the request', async () => {
    const before = new AbortController();
    before.abort(new Error('not wanted'));
    await expect(fetchLoopback(`${base}/hello`, { signal: before.signal })).rejects.toThrow('not wanted');
    const during = new AbortController();
    const pending = fetchLoopback(`${base}/no-headers`, { signal: during.signal });
    setTimeout(() => during.abort(), 50);
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' });
  });
});

describe('a body that fails before anyone reads it', () => {
  it('keeps the error for the reader that comes later, without an uncaught exception', async () => {
    const server = http.createServer((_req, res) => {
      res.writeHead(200);
      res.end(Buffer.alloc(5000));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const fetcher = createSafeFetch({ allowLoopback: true });
      const response = await fetcher.stream(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { maxBytes: 100 });
      await new Promise((r) => setTimeout(r, 100));
      expect(response.body.destroyed).toBe(true);
      const error = await (async () => {
        for await (const _chunk of response.body) void _chunk;
      })().catch((e: unknown) => e);
      expect(error).toBeInstanceOf(FetchTooLargeError);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});
