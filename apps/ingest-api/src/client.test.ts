import { createIngestClient, IngestApiError } from '@loupe/ingest-client';
import { createRateLimiter } from '@loupe/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { batchesOf as countBatches, rec, startHarness, type Harness } from './test/harness';

// The generated, typed client against the real API.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const batchesOf = (workspaceId: string) => countBatches(h, workspaceId);

describe('@loupe/ingest-client', () => {
  it('submits any number of records as requests within the limits, and a resend duplicates nothing', async () => {
    const client = createIngestClient({ baseUrl: h.base, apiKey: h.a.writeKey });
    const records = Array.from({ length: 2500 }, () => rec(h.a, { data: {} }));
    const before = await batchesOf(h.a.workspaceId);
    const answers = await client.submit(records);
    expect(answers.map((a) => [a.first, a.count, a.acceptedCount])).toEqual([[0, 1000, 1000], [1000, 1000, 1000], [2000, 500, 500]]);
    const again = await client.submit(records);
    expect(again.map((a) => a.batchId)).toEqual(answers.map((a) => a.batchId)); // replayed by Idempotency-Key
    expect(await batchesOf(h.a.workspaceId)).toBe(before + 3);
    const list = await client.listBatches({ limit: 2 });
    expect(list.batches).toHaveLength(2);
    const one = await client.getBatch(answers[0]!.batchId);
    expect(one).toMatchObject({ batchId: answers[0]!.batchId, acceptedCount: 1000, status: 'LANDED' });
  });

  it('throws a typed error carrying the record errors', async () => {
    const client = createIngestClient({ baseUrl: h.base, apiKey: h.a.writeKey });
    const error = await client.submit([rec(h.a, { _type: 'fax' })]).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(IngestApiError);
    expect(error).toMatchObject({ status: 400, code: 'VALIDATION_ERROR' });
    expect((error as IngestApiError).recordErrors[0]).toMatchObject({ index: 0, code: 'VALIDATION_ERROR' });
    await expect(createIngestClient({ baseUrl: h.base, apiKey: 'loupe_sk_nope' }).listBatches()).rejects.toMatchObject({ status: 401 });
  });

  it("waits out 429s with the server's Retry-After, and follows a batch until it is complete", async () => {
    const limited = await h.startApp({ rateLimiter: createRateLimiter(h.t.pool, { limit: 1, windowMs: 1000, clock: { now: () => Date.now() } }) });
    const waits: number[] = [];
    const client = createIngestClient({ baseUrl: limited, apiKey: h.b.writeKey, sleep: async (ms) => { waits.push(ms); await new Promise((r) => setTimeout(r, ms)); } });
    const [first] = await client.submit([rec(h.b)]);
    const [second] = await client.submit([rec(h.b)]);
    expect(second!.acceptedCount).toBe(1);
    expect(waits.some((w) => w >= 1000)).toBe(true);
    const seen: string[] = [];
    const done = await client.waitUntilComplete(first!.batchId, {
      intervalMs: 50,
      onProgress: (b) => {
        seen.push(b.status);
        if (seen.length === 2) void h.t.pool.query(`UPDATE batches SET status = 'COMPLETE' WHERE id = $1`, [first!.batchId]);
      },
    });
    expect(done.status).toBe('COMPLETE');
    expect(seen[0]).toBe('LANDED');
  });
});
