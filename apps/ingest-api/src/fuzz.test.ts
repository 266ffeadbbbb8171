import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, rec, startHarness, type Harness } from './test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const FIELDS = ['_type', '_schema_version', '_event_at', '_vendor_ids', '_product_id', '_project_ids', '_nature', 'data',
  '_thread_id', '_participants', '_attachments', '_tags', '_pii', '__proto__', 'constructor', 'extra'];

const oddValue = fc.oneof(
  fc.string(), fc.string({ unit: 'binary' }), fc.integer(), fc.double(), fc.boolean(), fc.constant(null),
  fc.constant('\u0000'), fc.constant('\ud800'), fc.constant('x'.repeat(70_000)), fc.array(fc.string(), { maxLength: 5 }),
  fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }), fc.constant({ __proto__: { polluted: true } }),
  fc.constant(JSON.parse('{"__proto__":{"polluted":1}}')), fc.jsonValue({ maxDepth: 4 }),
);

/** A valid record with one field replaced, removed or added. */
const mutatedRecord = fc.tuple(fc.constantFrom(...FIELDS), oddValue, fc.boolean()).map(([field, value, remove]) => {
  const r = rec(h.a);
  if (remove) delete r[field];
  else r[field] = value;
  return r;
});

const body = fc.oneof(
  fc.array(fc.constant(null).map(() => rec(h.a)), { minLength: 1, maxLength: 5 }).map((a) => ({ text: JSON.stringify(a), type: 'json' })),
  fc.array(fc.oneof(mutatedRecord, fc.constant(null).map(() => rec(h.a))), { minLength: 0, maxLength: 6 }).map((a) => ({ text: JSON.stringify(a), type: 'json' })),
  fc.array(mutatedRecord, { minLength: 1, maxLength: 4 }).map((a) => ({ text: JSON.stringify({ records: a }), type: 'json' })),
  fc.array(fc.oneof(mutatedRecord.map((r) => JSON.stringify(r)), fc.string(), fc.constant('')), { maxLength: 6 }).map((l) => ({ text: l.join('\n'), type: 'ndjson' })),
  fc.jsonValue({ maxDepth: 6 }).map((v) => ({ text: JSON.stringify(v) ?? 'null', type: 'json' })),
  fc.string({ unit: 'binary', maxLength: 300 }).map((s) => ({ text: s, type: 'json' })),
  fc.integer({ min: 1, max: 3000 }).map((d) => ({ text: `${'['.repeat(d)}${']'.repeat(d)}`, type: 'json' })),
  fc.integer({ min: 1, max: 3000 }).map((d) => ({ text: JSON.stringify([rec(h.a, { data: JSON.parse(`${'{"a":'.repeat(d)}1${'}'.repeat(d)}`) })]), type: 'json' })),
  fc.string().map((s) => ({ text: s, type: 'ndjson' })),
);

describe('fuzz: generated, mutated and malformed bodies', () => {
  it('never answers 500 and its counts always add up', async () => {
    const statuses: Record<number, number> = {};
    await fc.assert(
      fc.asyncProperty(body, async ({ text, type }) => {
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
