import { randomBytes } from 'node:crypto';
import { FakeIntercom } from '../testing';
import { syncFixture } from './sync-fixture';

/**
 * A database with pg-boss, a workspace with a product and a project, a fake Intercom, and what a sync needs; logs kept
 * to be searched. The engine's clock and the fake's share `clock.offsetMs`, so a test moves time for both.
 */
export async function intercomFixture(options: { conversations: number; partsEach?: number }) {
  const accessToken = `ic-token-${randomBytes(12).toString('hex')}`;
  const clock = { offsetMs: 0, now: () => Date.now() + clock.offsetMs };
  const fake = new FakeIntercom({ accessToken, now: () => clock.now() });
  fake.seed(options.conversations, options.partsEach ?? 3);
  const f = await syncFixture({ fake, clock });
  const connect = async (settings: Record<string, unknown> = { start_date: '2025-12-01' }) => f.insert('intercom', settings, { access_token: accessToken });
  return { ...f, accessToken, connect, clock };
}
