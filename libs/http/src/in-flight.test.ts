import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInFlight } from './in-flight';
import { listen, type Listening } from './server';

describe('requests in flight', () => {
  const inFlight = createInFlight();
  let release!: () => void;
  let server: Listening;
  beforeAll(async () => {
    const app = express();
    app.use(inFlight.middleware);
    app.get('/slow', (_req, res) => void new Promise<void>((r) => (release = r)).then(() => res.send('done')));
    app.get('/healthz', (_req, res) => res.send('ok'));
    server = await listen(app, 0, '127.0.0.1');
  });
  afterAll(() => server.close(0));

  it('counts the requests being answered, lets a waiter go once none is, and never holds one longer than asked', async () => {
    expect(inFlight.count).toBe(0);
    let idle = false;
    await inFlight.whenIdle(10_000).then(() => (idle = true));
    expect(idle).toBe(true);

    const slow = fetch(`http://127.0.0.1:${server.port}/slow`);
    while (inFlight.count === 0) await new Promise((r) => setTimeout(r, 5));
    // Health checks are not counted.
    await fetch(`http://127.0.0.1:${server.port}/healthz`);
    expect(inFlight.count).toBe(1);
    let waited = false;
    const waiter = inFlight.whenIdle(10_000).then(() => (waited = true));
    await new Promise((r) => setTimeout(r, 50));
    expect(waited).toBe(false);
    // A bounded wait ends even while the request is still in flight.
    let bounded = false;
    await inFlight.whenIdle(20).then(() => (bounded = true));
    expect(bounded).toBe(true);
    release();
    expect(await (await slow).text()).toBe('done');
    await waiter;
    expect(waited).toBe(true);
    expect(inFlight.count).toBe(0);
  });
});
