import { getPriority } from 'node:os';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBackgroundPool } from './background-pool';
import { createPool } from './pool';
import { createTestDatabase, type TestDatabase } from './testing';

describe('the background pool', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  it('runs its connections\' backends at the given CPU priority on a local server, and others at their own', async () => {
    const background = createBackgroundPool(t.url, 2, 10);
    const plain = createPool(t.url, 2);
    try {
      const { rows: [mine] } = await background.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      const { rows: [theirs] } = await plain.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      // Raising another user's process's nice value needs root (the embedded server runs as `postgres`).
      const mayRenice = process.getuid?.() === 0;
      // Found within a second or two (bounded wait, not a timing assertion).
      for (let i = 0; i < 100 && mayRenice && getPriority(mine!.pid) !== 10; i++) await new Promise((r) => setTimeout(r, 50));
      expect(getPriority(mine!.pid)).toBe(mayRenice ? 10 : getPriority(theirs!.pid));
      expect(getPriority(theirs!.pid)).toBe(0);
      // Statements run as on any pool.
      expect((await background.query<{ n: number }>('SELECT 1 AS n')).rows).toEqual([{ n: 1 }]);
    } finally {
      await background.end();
      await plain.end();
    }
  });
});
