import pg from 'pg';

/**
 * Every statement any pg client of this process sends while `fn` runs: how many round trips a path
 * costs, for tests whose server runs in the test's own process.
 */
export async function statementsOf(fn: () => Promise<unknown>): Promise<string[]> {
  const proto = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const query = proto.query;
  const seen: string[] = [];
  proto.query = function counted(this: unknown, ...args: unknown[]) {
    const first = args[0] as string | { text?: string; name?: string };
    seen.push(typeof first === 'string' ? first : (first?.name ?? first?.text ?? '?'));
    return query.apply(this, args);
  };
  try {
    await fn();
  } finally {
    proto.query = query;
  }
  return seen;
}
