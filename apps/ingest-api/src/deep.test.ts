import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { post, rec, startHarness, type Harness } from './test/harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

describe('deeply nested data', () => {
  it.each([[512, 202], [513, 400], [20_000, 400], [500_000, 400]])('answers data nested %i levels with %i', async (depth, status) => {
    const shell = JSON.stringify([rec(h.a, { data: { x: 0 } })]);
    const raw = shell.replace('{"x":0}', `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`);
    const r = await post(h.base, h.a.writeKey, null, { raw });
    expect(r.status).toBe(status);
    if (status === 400) expect(r.body.errors[0].message).toMatch(/^data: nested \d+ levels deep; at most 512/);
  });
});
