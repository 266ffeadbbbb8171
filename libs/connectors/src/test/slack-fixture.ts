import { randomBytes } from 'node:crypto';
import { FakeSlack } from '../testing';
import { syncFixture } from './sync-fixture';

export const SLACK_CHANNEL = 'C0FAKE001';

/** A database with pg-boss, a workspace with a product and a project, a fake Slack, and what a sync needs; logs kept to be searched. */
export async function slackFixture(messages: number) {
  const token = `xoxb-${randomBytes(12).toString('hex')}`;
  const fake = new FakeSlack({ token });
  fake.seed(messages, { threadEvery: 10, repliesEach: 2 });
  const f = await syncFixture({ fake });
  const connect = async (settings: Record<string, unknown> = { channel_ids: [SLACK_CHANNEL], start_date: '2025-12-01', page_size: 40 }) =>
    f.insert('slack', settings, { token });
  return { ...f, token, connect };
}

export type SlackFixture = Awaited<ReturnType<typeof slackFixture>>;
