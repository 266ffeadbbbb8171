import { FakeZendesk } from '@loupe/connectors/testing';
import { expect } from 'vitest';
import { describeWorkerBackfill } from './test/connection-backfill';

const TICKETS = Number(process.env.CONNECTOR_TICKETS ?? 2_000);

describeWorkerBackfill({
  kind: 'zendesk',
  describe: 'connection.sync in the worker: a Zendesk backfill killed and resumed, then only the changes',
  it: `backfills ${TICKETS} tickets into records and sources, each once, across a worker stopped mid-backfill`,
  total: TICKETS,
  tmpPrefix: 'loupe-worker-connections-',
  fake: () => {
    const fake = new FakeZendesk({ email: 'ops@acme.example', apiToken: 'zd-worker-token', pageSize: 1000 });
    fake.seed(TICKETS, 1);
    return fake;
  },
  settings: { start_date: '2025-12-01' },
  credentials: { email: 'ops@acme.example', api_token: 'zd-worker-token' },
  stopWhen: (fake, stop) => {
    // Stopped while it reads the comments of the second page: the first page is stored, the second is not.
    let comments = 0;
    fake.onRequest = (p) => {
      if (p.endsWith('comments.json') && ++comments === 1300) stop();
    };
  },
  change: ({ fake }) => {
    // The second run reads from the saved cursor and brings the two tickets with a new comment, nothing else.
    const later = Date.parse('2026-12-01T00:00:00Z');
    fake.addComment(5, 'The export still fails', later);
    fake.addComment(6, 'Any news?', later + 1000);
    return {
      settled: (c) => c.records_count === TICKETS + 2,
      check: (after) => expect(after.status).toBe('active'),
    };
  },
});
