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
    // The limiter's clock moves only when the client sleeps: the second request always falls in the first one's window.
    let now = 8_000_000_000_000;
    const limited = await h.startApp({ rateLimiter: createRateLimiter(h.t.pool, { limit: 1, windowMs: 1000, clock: { now: () => now } }) });
    const waits: number[] = [];
    const client = createIngestClient({ baseUrl: limited, apiKey: h.b.writeKey, sleep: async (ms) => { waits.push(ms); now += ms; } });
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

  it('upserts, imports, lists, reads and deletes companies and people, typed', async () => {
    const client = createIngestClient({ baseUrl: h.base, apiKey: h.a.writeKey });
    const put = await client.upsertCompany('cli-1', { name: 'Client Co', domains: ['client.example'], arr: 99.5, segment: 'smb' });
    expect(put).toMatchObject({ created: true, company: { external_id: 'cli-1', arr: 99.5, domains: ['client.example'] } });
    expect((await client.upsertCompany('cli-1', { name: 'Client Co' })).created).toBe(false);
    const items = Array.from({ length: 1205 }, (_, i) => ({ external_id: `cli-bulk-${i}`, name: `Bulk ${i}`, ...(i === 1100 ? { arr: -5 } : {}) }));
    const imported = await client.importCompanies(items);
    expect(imported).toMatchObject({ createdCount: 1204, updatedCount: 0, rejectedCount: 1, errors: [{ index: 1100, code: 'VALIDATION_ERROR' }] });
    expect((await client.listCompanies({ limit: 3 })).companies).toHaveLength(3);
    expect((await client.getCompany('cli-1')).name).toBe('Client Co');
    const person = await client.upsertPerson('cli-p', { email: 'Ana@Client.example', company_external_id: 'cli-1' });
    expect(person).toMatchObject({ created: true, person: { email: 'ana@client.example', company_external_id: 'cli-1' } });
    expect(await client.importPeople([{ external_id: 'cli-q', company_external_id: 'missing' }])).toMatchObject({ rejectedCount: 1, errors: [{ index: 0, code: 'UNKNOWN_COMPANY' }] });
    expect((await client.listPeople()).people.map((p) => p.external_id)).toEqual(['cli-p']);
    expect((await client.getPerson('cli-p')).name).toBeNull();
    expect(await client.deleteCompany('cli-1')).toEqual({ external_id: 'cli-1', object: 'company', deleted: true });
    expect(await client.deletePerson('cli-p')).toEqual({ external_id: 'cli-p', object: 'person', deleted: true });
    await expect(client.getCompany('cli-1')).rejects.toMatchObject({ status: 404, code: 'NOT_FOUND' });
    await expect(client.upsertCompany('cli-2', { name: 'X', domains: ['gmail.com'] })).rejects.toMatchObject({ status: 400, code: 'FREE_MAIL_DOMAIN' });
  });
});
