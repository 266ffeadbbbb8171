import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ingestBodies } from './test/bodies';
import { post, rec, startHarness, type Harness } from './test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const body = () => ingestBodies((overrides) => rec(h.a, overrides));

describe('fuzz: generated, mutated and malformed bodies', () => {
  it('never answers 500 and its counts always add up', async () => {
    const statuses: Record<number, number> = {};
    await fc.assert(
      fc.asyncProperty(body(), async ({ text, type }) => {
        const r = await post(h.base, h.a.writeKey, null, { raw: text, contentType: type === 'json' ? 'application/json' : 'application/x-ndjson' });
        statuses[r.status] = (statuses[r.status] ?? 0) + 1;
        expect(r.status).not.toBe(500);
        expect([202, 400, 413]).toContain(r.status);
        expect(r.body.error ?? r.body.batchId).toEqual(expect.any(String));
        if (r.status === 202) {
          const { rows } = await h.t.pool.query('SELECT accepted_count, rejected_count FROM batches WHERE id = $1', [r.body.batchId]);
          expect(rows[0]).toEqual({ accepted_count: r.body.acceptedCount, rejected_count: r.body.rejectedCount });
          expect(r.body.totalErrorCount).toBeGreaterThanOrEqual(r.body.rejectedCount);
          expect((r.body.errors ?? []).length).toBe(Math.min(20, r.body.totalErrorCount));
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 300) },
    );
    console.log(`fuzz: ${Object.values(statuses).reduce((a, b) => a + b, 0)} bodies, statuses ${JSON.stringify(statuses)}`);
  }, 240_000);
});
