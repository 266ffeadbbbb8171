import fc from 'fast-check';

export type RecordFactory = (overrides?: Record<string, unknown>) => Record<string, unknown>;
export interface GeneratedBody {
  text: string;
  type: 'json' | 'ndjson';
}

const FIELDS = ['_type', '_schema_version', '_event_at', '_vendor_ids', '_product_id', '_project_ids', '_nature', 'data',
  '_thread_id', '_participants', '_attachments', '_tags', '_pii', '__proto__', 'constructor', 'prototype', 'extra'];

const oddValue = fc.oneof(
  fc.string(), fc.string({ unit: 'binary' }), fc.string({ unit: 'grapheme-composite' }), fc.integer(), fc.double(),
  fc.bigInt().map(String), fc.boolean(), fc.constant(null), fc.constant('\u0000'), fc.constant('\ud800'), fc.constant('\ufeff'),
  fc.constant('x'.repeat(70_000)), fc.array(fc.string(), { maxLength: 5 }), fc.dictionary(fc.string(), fc.string(), { maxKeys: 3 }),
  fc.constant(JSON.parse('{"__proto__":{"polluted":1}}')), fc.constant({ constructor: { prototype: { polluted: 1 } } }),
  fc.jsonValue({ maxDepth: 4 }),
);

/**
 * Request bodies for fuzzing POST /api/v1/ingest: valid ones, records with a field
 * replaced, removed or added (prototype-pollution keys included), wrappers, NDJSON
 * with junk lines, arbitrary JSON, binary junk, deep nesting and huge strings.
 */
export function ingestBodies(rec: RecordFactory): fc.Arbitrary<GeneratedBody> {
  const fresh = fc.constant(null).map(() => rec());
  const mutated = fc.tuple(fc.constantFrom(...FIELDS), oddValue, fc.boolean()).map(([field, value, remove]) => {
    const r = rec();
    if (remove) delete r[field];
    else Object.defineProperty(r, field, { value, enumerable: true, writable: true, configurable: true });
    return r;
  });
  const json = (v: unknown): GeneratedBody => ({ text: JSON.stringify(v) ?? 'null', type: 'json' });
  const common = (arbitrary: fc.Arbitrary<GeneratedBody>) => ({ arbitrary, weight: 6 });
  const costly = (arbitrary: fc.Arbitrary<GeneratedBody>) => ({ arbitrary, weight: 1 });
  return fc.oneof(
    common(fc.array(fresh, { minLength: 1, maxLength: 5 }).map(json)),
    common(fc.array(fc.oneof(mutated, fresh), { minLength: 0, maxLength: 6 }).map(json)),
    common(fc.array(mutated, { minLength: 1, maxLength: 4 }).map((a) => json({ records: a }))),
    common(fc.array(fc.oneof(mutated.map((r) => JSON.stringify(r)), fc.string(), fc.constant(''), fc.constant('\r')), { maxLength: 6 })
      .map((l): GeneratedBody => ({ text: l.join('\n'), type: 'ndjson' }))),
    common(fc.jsonValue({ maxDepth: 6 }).map(json)),
    common(fc.string({ unit: 'binary', maxLength: 300 }).map((s): GeneratedBody => ({ text: s, type: 'json' }))),
    common(fc.string().map((s): GeneratedBody => ({ text: s, type: 'ndjson' }))),
    costly(fc.integer({ min: 1, max: 100_000 }).map((d): GeneratedBody => ({ text: `${'['.repeat(d)}${']'.repeat(d)}`, type: 'json' }))),
    costly(fc.integer({ min: 1, max: 100_000 }).map((d): GeneratedBody => ({
      text: JSON.stringify([rec({ data: { deep: 0 } })]).replace('{"deep":0}', `${'{"a":'.repeat(d)}1${'}'.repeat(d)}`),
      type: 'json',
    }))),
    costly(fc.integer({ min: 1, max: 4_000_000 }).map((n) => json([rec({ data: { big: 'é'.repeat(n) } })]))),
  );
}
