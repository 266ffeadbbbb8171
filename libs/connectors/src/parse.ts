import type { z } from 'zod';
import type { VendorPage } from './connector';
import { VendorRequestError } from './vendor-http';

/**
 * A vendor's whole answer read by the schema its documentation gives: anything else fails the read with
 * `notDocumented` and the first thing wrong (where, what), so a broken page is the connection's last error.
 */
export function parseAnswer<T>(schema: z.ZodType<T>, body: unknown, notDocumented: string): T {
  const parsed = schema.safeParse(body);
  if (parsed.success) return parsed.data;
  const issue = parsed.error.issues[0]!;
  throw new VendorRequestError(`${notDocumented} (${issue.path.join('.') || 'body'}: ${issue.message})`);
}

/**
 * The objects of a page that the schema accepts; each other one is refused alone, so the rest of the page still
 * lands: named `what` and its id (or position), or by `what(item, i)`, with the first thing wrong in it.
 */
export function parseEach<T>(
  schema: z.ZodType<T>, items: unknown[], what: string | ((item: unknown, i: number) => string), refused: VendorPage['refused'],
): T[] {
  const out: T[] = [];
  items.forEach((item, i) => {
    const parsed = schema.safeParse(item);
    if (parsed.success) out.push(parsed.data);
    else {
      const issue = parsed.error.issues[0]!;
      const name = typeof what === 'string' ? `${what} ${idOrPosition(item, i)}` : what(item, i);
      refused.push({ object: name.slice(0, 120), reason: `${issue.path.join('.') || (typeof what === 'string' ? what : 'object')}: ${issue.message}`.slice(0, 300) });
    }
  });
  return out;
}

/** An object's `id` as its vendor gave it, else its position in the page (`#3`). */
export function idOrPosition(item: unknown, i: number): string {
  return item && typeof item === 'object' && 'id' in item ? String((item as { id: unknown }).id) : `#${i}`;
}
