import { FakeGong } from '@loupe/connectors/testing';
import { expect } from 'vitest';
import { describeWorkerBackfill } from './test/connection-backfill';

const CALLS = Number(process.env.CONNECTOR_CALLS ?? 2_000);
const DAY = 86_400_000;

describeWorkerBackfill({
  kind: 'gong',
  describe: 'connection.sync in the worker: a Gong backfill killed and resumed, then only the new calls',
  it: `backfills ${CALLS} Gong calls into call transcripts and sources, each once, across a worker stopped mid-backfill`,
  total: CALLS,
  tmpPrefix: 'loupe-worker-gong-',
  project: 'Calls',
  fake: () => {
    const fake = new FakeGong({ accessKey: 'gong-worker-key', accessKeySecret: 'gong-worker-secret' });
    fake.seed(CALLS);
    return fake;
  },
  settings: { start_date: '2025-12-01' },
  credentials: { access_key: 'gong-worker-key', access_key_secret: 'gong-worker-secret' },
  stopWhen: (fake, stop) => {
    // Stopped while it reads the transcripts of a page a third of the way in: the pages before it are stored, the rest not.
    let pages = 0;
    fake.onRequest = (p) => {
      if (p === '/v2/calls/extensive') pages++;
      if (p === '/v2/calls/transcript' && pages === Math.ceil(CALLS / 300)) stop();
    };
  },
  extraCounts: {
    select: "count(*) FILTER (WHERE r.type = 'call_transcription' AND json_array_length(r.data->'transcript') = 2)::int AS transcripts",
    expected: { transcripts: CALLS },
  },
  change: ({ fake, clock, done }) => {
    // The second run, a day later (the worker's clock moved on, so calls made since the first are old enough to read),
    // brings the two calls made since the first, nothing else.
    const windowEnd = Date.parse((done.cursor as { from: string }).from);
    fake.addCall(windowEnd + 60_000);
    fake.addCall(windowEnd + 120_000);
    clock.offsetMs = DAY;
    const before = fake.requests.length;
    return {
      settled: (c) => c.records_count === CALLS + 2 && c.last_success_at! > done.last_success_at!,
      check: (after) => {
        expect(after).toMatchObject({ status: 'active', duplicates_count: done.duplicates_count });
        const asked = fake.requests.slice(before).filter((r) => r.path === '/v2/calls/extensive');
        // Gong gives a call's start to the second, so the new window starts from the whole second the last one ended in.
        const wholeSecond = Math.floor(windowEnd / 1000) * 1000;
        expect(asked.map((r) => r.body!.filter.fromDateTime)).toEqual([new Date(wholeSecond).toISOString()]);
      },
    };
  },
});
