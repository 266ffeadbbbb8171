import { randomBytes } from 'node:crypto';
import { FakeZendesk } from '../testing';
import { syncFixture } from './sync-fixture';

/** A database with pg-boss, a workspace with a product and a project, a fake Zendesk, and what a sync needs; logs kept to be searched. */
export async function connectorFixture(options: { tickets: number; commentsEach?: number; pageSize?: number }) {
  const apiToken = `zd-token-${randomBytes(12).toString('hex')}`;
  const fake = new FakeZendesk({ email: 'admin@acme.example', apiToken, pageSize: options.pageSize ?? 1000 });
  fake.seed(options.tickets, options.commentsEach ?? 2);
  const f = await syncFixture({ fake });
  const connect = async (settings: Record<string, unknown> = { start_date: '2025-12-01' }) =>
    f.insert('zendesk', settings, { email: 'admin@acme.example', api_token: apiToken });
  return { ...f, apiToken, connect };
}
