import { INTERCOM_SETTLE_SECONDS } from '@loupe/connectors';
import { FakeIntercom } from '@loupe/connectors/testing';
import { expect } from 'vitest';
import { describeWorkerBackfill } from './test/connection-backfill';

const CONVERSATIONS = Number(process.env.CONNECTOR_CONVERSATIONS ?? 2_000);
const TOKEN = 'ic-worker-token-5e1d';

describeWorkerBackfill({
  kind: 'intercom',
  describe: 'connection.sync in the worker: an Intercom backfill killed and resumed, then only the changes',
  it: `backfills ${CONVERSATIONS} Intercom conversations into records and sources, each once, across a worker stopped mid-backfill`,
  total: CONVERSATIONS,
  tmpPrefix: 'loupe-worker-intercom-',
  // The worker's clock and the fake's: moved on by the test so that a change made now is in the next sync's window.
  fake: (clock) => {
    const fake = new FakeIntercom({ accessToken: TOKEN, now: () => clock.now() });
    fake.seed(CONVERSATIONS, 2);
    return fake;
  },
  settings: { start_date: '2025-12-01', page_size: 150 },
  credentials: { access_token: TOKEN },
  stopWhen: (fake, stop) => {
    // Stopped while it reads the conversations of the ninth search page: eight pages are stored, the ninth is not.
    let read = 0;
    fake.onRequest = (p, _query, method) => {
      if (method === 'GET' && p.startsWith('/conversations/') && ++read === Math.min(1280, Math.floor(CONVERSATIONS / 2))) stop();
    };
  },
  partial: (partial) => expect(partial.cursor).toMatchObject({ starting_after: expect.any(String) }),
  done: (done) => expect(done.companies_count).toBe(10),
  change: ({ fake, clock, done }) => {
    // The second run reads the window since the first and brings the two conversations with a new message, nothing else.
    clock.offsetMs += 60_000;
    fake.reply('5', '<p>The export still fails</p>');
    fake.reply('6', '<p>Any news?</p>');
    fake.close('7');
    clock.offsetMs += (INTERCOM_SETTLE_SECONDS + 60) * 1000;
    const searchesBefore = fake.requests.filter((r) => r.path === '/conversations/search').length;
    return {
      settled: (c) => c.last_success_at! > done.last_success_at!,
      check: (after) => {
        // 5 and 6 are new versions; 7, closed with nothing new to say, is read again as a duplicate.
        expect(after).toMatchObject({ status: 'active', records_count: CONVERSATIONS + 2, duplicates_count: done.duplicates_count + 1 });
        expect(fake.requests.filter((r) => r.path === '/conversations/search').length - searchesBefore).toBe(1);
      },
    };
  },
});
