import express from 'express';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createInFlight } from './in-flight';
import { createPacing, MAX_REST_MS, RECENT_MS, slicesOf } from './pacing';
import { listen, type Listening } from './server';

describe('pacing background work while people and AI clients are answered', () => {
  let time = 1_000_000;
  const now = () => time;
  const inFlight = createInFlight({ background: (path) => path.startsWith('/api/v1/'), now });
  const releases = new Map<string, () => void>();
  let server: Listening;
  beforeAll(async () => {
    const app = express();
    app.use(inFlight.middleware);
    app.post(['/api/v1/ingest', '/api/mcp'], (req, res) => void new Promise<void>((r) => releases.set(req.path, r)).then(() => res.send('done')));
    server = await listen(app, 0, '127.0.0.1');
  });
  afterAll(() => server.close(0));

  /** A pacing whose rests are recorded, not slept. */
  const paced = (busyShare: number) => {
    const rests: number[] = [];
    const pacing = createPacing({ inFlight, busyShare, maxWaitMs: 0, now, sleep: async (ms) => void rests.push(ms) });
    return { rests, pacing };
  };
  const begin = async (path: string) => {
    const answer = fetch(`http://127.0.0.1:${server.port}${path}`, { method: 'POST' });
    while (!releases.has(path)) await new Promise((r) => setTimeout(r, 5));
    return async () => {
      releases.get(path)!();
      releases.delete(path);
      expect(await (await answer).text()).toBe('done');
    };
  };

  it('runs flat out while only machines send records, and rests as long as keeps it to its share while a call is answered', async () => {
    const { rests, pacing } = paced(0.5);
    await pacing.beforeSlice(120);
    const ingestion = await begin('/api/v1/ingest');
    expect(inFlight.count).toBe(1);
    expect(inFlight.interactiveCount).toBe(0);
    await pacing.beforeSlice(120);
    expect(rests).toEqual([]);

    const call = await begin('/api/mcp');
    expect(inFlight.interactiveCount).toBe(1);
    time += 10 * RECENT_MS; // however long the call takes
    await pacing.beforeSlice(120);
    await pacing.beforeSlice(0); // the first slice of a loop
    await pacing.beforeSlice(60 * MAX_REST_MS); // a slow slice rests no longer than MAX_REST_MS
    expect(rests).toEqual([120, MAX_REST_MS]);
    await call();
    await ingestion();
  });

  it('keeps resting for a moment after the last call ends, then runs flat out again; a share of 1 never rests', async () => {
    const { rests, pacing } = paced(0.25);
    const call = await begin('/api/mcp');
    await call();
    expect(inFlight.interactiveCount).toBe(0);
    time += RECENT_MS - 1;
    await pacing.beforeSlice(100);
    expect(rests).toEqual([300]);
    time += 1;
    await pacing.beforeSlice(100);
    expect(rests).toEqual([300]);

    const always = paced(1);
    const another = await begin('/api/mcp');
    await always.pacing.beforeSlice(100);
    expect(always.rests).toEqual([]);
    await another();
  });

  it('paces each loop by its own work: the time since that loop last began a slice, or since it started', async () => {
    let clock = 0;
    const seen: Array<[string, number]> = [];
    const record = (loop: string) => async (worked: number) => void seen.push([loop, worked]);
    const a = slicesOf(record('a'), () => clock);
    await a();
    clock += 5;
    const b = slicesOf(record('b'), () => clock);
    clock += 40;
    await b();
    clock += 10;
    await a();
    clock += 25;
    await b();
    expect(seen).toEqual([['a', 0], ['b', 40], ['a', 55], ['b', 35]]);
    // Without a pacing (a worker in a process of its own) a loop goes straight on.
    await expect(slicesOf(undefined)()).resolves.toBeUndefined();
  });
});
