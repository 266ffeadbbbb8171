import { FAKE_SLACK_CUSTOMER_TEAM, FakeSlack } from '@loupe/connectors/testing';
import { expect } from 'vitest';
import { describeWorkerBackfill } from './test/connection-backfill';

const MESSAGES = Number(process.env.CONNECTOR_MESSAGES ?? 2_000);
const CHANNELS = ['C0FAKE001', 'C0FAKE002'];

describeWorkerBackfill({
  kind: 'slack',
  describe: 'connection.sync in the worker: a Slack backfill killed and resumed, then only the changes',
  it: `backfills ${MESSAGES} Slack messages and threads into records and sources, each once, across a worker stopped mid-backfill`,
  total: MESSAGES,
  tmpPrefix: 'loupe-worker-slack-',
  fake: () => {
    const fake = new FakeSlack({ token: 'xoxb-worker-token-1' });
    // Two channels; every tenth message a thread with two replies: 9,000 messages and 1,000 conversations.
    fake.seed(MESSAGES, { channels: CHANNELS.length, threadEvery: 10, repliesEach: 2 });
    return fake;
  },
  settings: { channel_ids: CHANNELS, start_date: '2025-12-01' },
  credentials: { token: 'xoxb-worker-token-1' },
  stopWhen: (fake, stop) => {
    // Stopped while it reads the replies of threads in the first channel's history: some pages stored, the rest not.
    let replies = 0;
    fake.onRequest = (method) => {
      if (method === 'conversations.replies' && ++replies === Math.ceil(MESSAGES / 40)) stop();
    };
  },
  extraCounts: { select: "count(*) FILTER (WHERE r.type = 'conversation')::int AS threads", expected: { threads: MESSAGES / 10 } },
  change: ({ fake, done }) => {
    // The second run brings a new reply in an old thread and a new message, nothing else.
    const later = Date.parse('2026-12-01T00:00:00Z');
    const oldThread = fake.channels.get(CHANNELS[1]!)!.messages[4]!; // message 10: a thread
    fake.addReply(CHANNELS[1]!, oldThread.ts, { user: 'U0CUSTOM0', user_team: FAKE_SLACK_CUSTOMER_TEAM, text: 'Any news?' }, later);
    fake.addMessage(CHANNELS[0]!, { user: 'U0CUSTOM1', user_team: FAKE_SLACK_CUSTOMER_TEAM, text: 'The export still fails' }, later + 1000);
    const before = fake.requests.length;
    return {
      settled: (c) => c.records_count === MESSAGES + 2 && c.last_success_at! > done.last_success_at!,
      check: (after) => {
        expect(after).toMatchObject({ status: 'active', duplicates_count: done.duplicates_count });
        expect(fake.requests.slice(before).filter((r) => r.method === 'conversations.replies').map((r) => r.query.get('ts'))).toEqual([oldThread.ts]);
      },
    };
  },
});
