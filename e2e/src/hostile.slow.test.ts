import { connect } from 'node:net';
import { createApiKey } from '@loupe/api-keys';
import { createPrismaClient, freePort } from '@loupe/db';
import { ingestBodies } from '@loupe/ingest-api/testing';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledPostgres, demoFrom, records, type ControlledPostgres, type Demo } from './cluster';
import { startProcess, type Started } from './process';

// Hostile input against the real service process: generated bodies and slow senders.
let pg: ControlledPostgres;
let service: Started;
let demo: Demo;
let keys: string[];
beforeAll(async () => {
  pg = await controlledPostgres();
  service = await startProcess({ DATABASE_URL: pg.url, LOUPE_DEMO: '1', PORT: String(await freePort()), REQUEST_TIMEOUT_MS: '2000', LOG_LEVEL: 'error', PER_IP_LIMIT_PER_MINUTE: '100000000' });
  demo = demoFrom(service.output());
  const db = createPrismaClient(pg.pool);
  keys = [];
  // The rate limit is per key: enough keys to send hundreds of requests a second.
  for (let i = 0; i < 40; i++) {
    keys.push((await createApiKey(db, { workspaceId: demo.workspaceId, name: `fuzz ${i}`, permissions: ['api:write'], servicePrefix: 'loupe_' })).key);
  }
});
afterAll(async () => {
  await service?.stop();
  await pg?.destroy();
});

describe('hostile input', () => {
  it('answers 10,000 generated bodies without a 500 or a crash, with counts that add up', async () => {
    const runs = Number(process.env.HOSTILE_RUNS ?? 10_000);
    const statuses: Record<number, number> = {};
    let n = 0;
    const rec = (overrides: Record<string, unknown> = {}) => ({ ...records(demo, 1)[0]!, ...overrides });
    await fc.assert(
      fc.asyncProperty(ingestBodies(rec), async ({ text, type }) => {
        const res = await fetch(`${service.url}/api/v1/ingest`, {
          method: 'POST',
          headers: { 'content-type': type === 'json' ? 'application/json' : 'application/x-ndjson', 'x-api-key': keys[n++ % keys.length]! },
          body: text,
        });
        const body = (await res.json()) as Record<string, any>;
        statuses[res.status] = (statuses[res.status] ?? 0) + 1;
        expect([202, 400, 413, 429]).toContain(res.status);
        if (res.status === 202) {
          expect(body.acceptedCount).toBeGreaterThan(0);
          expect((body.errors ?? []).length).toBe(Math.min(20, body.totalErrorCount));
          const { rows } = await pg.pool.query('SELECT accepted_count, rejected_count, total_error_count FROM batches WHERE id = $1', [body.batchId]);
          expect(rows[0]).toEqual({ accepted_count: body.acceptedCount, rejected_count: body.rejectedCount, total_error_count: body.totalErrorCount });
        } else {
          expect(body.error).toEqual(expect.any(String));
        }
      }),
      { numRuns: runs, endOnFailure: true },
    );
    console.log(`hostile input: ${runs} bodies sent, statuses ${JSON.stringify(statuses)}`);
    expect(statuses[500]).toBeUndefined();
    expect(service.child.exitCode).toBeNull();
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
  }, 900_000);

  it('answers bodies of huge lists of bad elements with 400 while other requests keep being answered within a second', async () => {
    const one = records(demo, 1)[0]!;
    const fill = (n: number, value: unknown) => Array.from({ length: n }, () => value);
    const bodies: Record<string, string> = {
      'project ids ×2.4M': JSON.stringify([{ ...one, _project_ids: fill(2_400_000, 0) }]),
      'vendor ids ×450K': JSON.stringify([{ ...one, _vendor_ids: Object.fromEntries(Array.from({ length: 450_000 }, (_, i) => [i.toString(36), 0])) }]),
      'participants 300×5000': JSON.stringify(fill(300, { ...one, _participants: fill(5000, 1) })),
      'tags ×2M': JSON.stringify([{ ...one, _tags: fill(2_000_000, 0) }]),
      'pii entities ×1M': JSON.stringify([{ ...one, _pii: { detected_entities: fill(1_000_000, {}) } }]),
      'unknown keys ×300K': JSON.stringify([{ ...one, ...Object.fromEntries(Array.from({ length: 300_000 }, (_, i) => [`k${i}`, 0])) }]),
    };
    let probing = true;
    const probes: number[] = [];
    const prober = (async () => {
      while (probing) {
        const t0 = Date.now();
        const res = await fetch(`${service.url}/healthz`);
        await res.arrayBuffer();
        probes.push(Date.now() - t0);
        await new Promise((r) => setTimeout(r, 50));
      }
    })();
    const statuses: Record<string, Record<number, number>> = {};
    let n = 0;
    try {
    for (const [name, text] of Object.entries(bodies)) {
      expect(Buffer.byteLength(text), name).toBeLessThanOrEqual(5 * 1024 * 1024);
      for (const _ of [1, 2, 3]) {
        const res = await fetch(`${service.url}/api/v1/ingest`, {
          method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': keys[n++ % keys.length]! }, body: text,
        });
        const body = (await res.json()) as { errors?: unknown[]; totalErrorCount?: number; details?: { totalErrorCount?: number } };
        (statuses[name] ??= {})[res.status] = ((statuses[name] ??= {})[res.status] ?? 0) + 1;
        expect(res.status, name).toBe(400);
        expect(body.details?.totalErrorCount ?? body.totalErrorCount, name).toBeLessThanOrEqual(300 * 5);
      }
    }
    } finally {
      probing = false;
      await prober.catch(() => {});
    }
    console.log(`oversized lists: ${JSON.stringify(statuses)}; ${probes.length} health probes meanwhile, slowest ${Math.max(...probes)} ms`);
    expect(Math.max(...probes)).toBeLessThan(1000);
    expect(service.child.exitCode).toBeNull();
  }, 300_000);

  it('cuts off slow and never-ending senders without tying up the server', async () => {
    const slow = await Promise.all(
      Array.from({ length: 40 }, async (_, i) => {
        const socket = connect(Number(new URL(service.url).port), '127.0.0.1');
        await new Promise((r) => socket.once('connect', r));
        const chunked = i % 2 === 0;
        socket.write(`POST /api/v1/ingest HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nx-api-key: ${keys[i % keys.length]}\r\n` +
          (chunked ? 'Transfer-Encoding: chunked\r\n\r\n1\r\n[\r\n' : 'Content-Length: 4000000\r\n\r\n['));
        const timer = setInterval(() => socket.writable && socket.write(chunked ? '1\r\n \r\n' : ' '), 200);
        let answer = '';
        socket.on('data', (d) => (answer += d.toString()));
        socket.on('error', () => {});
        const started = Date.now();
        const closed = new Promise<number>((r) => socket.once('close', () => r(Date.now() - started)));
        return { closed, timer, answer: () => answer };
      }),
    );
    const served = await Promise.all(
      Array.from({ length: 10 }, async () => {
        const t0 = Date.now();
        const res = await fetch(`${service.url}/api/v1/ingest/batches?limit=1`, { headers: { 'x-api-key': keys[0]! } });
        return { status: res.status, ms: Date.now() - t0 };
      }),
    );
    const closedAfter = await Promise.all(slow.map((s) => s.closed));
    slow.forEach((s) => clearInterval(s.timer));
    console.log(`slow senders: ${slow.length} cut off after ${Math.min(...closedAfter)}–${Math.max(...closedAfter)} ms; meanwhile ${served.length} requests served in ≤ ${Math.max(...served.map((s) => s.ms))} ms`);
    expect(served.every((s) => s.status === 200 || s.status === 429)).toBe(true);
    expect(Math.max(...closedAfter)).toBeLessThan(10_000);
    expect(slow.filter((s) => /^HTTP\/1.1 408/.test(s.answer())).length).toBeGreaterThan(0);
  });
});
