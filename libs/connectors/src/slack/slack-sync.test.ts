import { QUEUES } from '@loupe/jobs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionView, findConnection, updateConnectionRow } from '../store';
import { scheduleNextSync, syncConnection } from '../sync';
import { SLACK_CHANNEL, slackFixture, type SlackFixture } from '../test/slack-fixture';
import { expectRawPageRefused, expectRefusedCredentials, expectRetryAfterWaited } from '../test/sync-fixture';
import { FAKE_SLACK_CUSTOMER_TEAM, FAKE_SLACK_TEAM } from '../testing';

const CHANNEL = SLACK_CHANNEL;

type Fixture = SlackFixture;

const recordsOf = async (f: Fixture, connectionId: string) => (await f.t.pool.query<{ vendor: string; type: string; n: number; event_at: Date }>(
  `SELECT r.vendor_ids->>'slack' AS vendor, r.type, count(*)::int AS n, max(r.event_at) AS event_at FROM records r JOIN batches b ON b.id = r.batch_id
    WHERE b.connection_id = $1 GROUP BY 1, 2`, [connectionId])).rows;

describe('Slack sync: backfill, restart mid-page, changes only', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await slackFixture(250);
  });
  afterAll(async () => f.close());

  const vendorId = (ts: string) => `${FAKE_SLACK_TEAM}/${CHANNEL}/${ts}`;
  const parentTs = (i: number) => f.fake.channels.get(CHANNEL)!.messages[i - 1]!.ts;

  it('backfills every message and thread once, threads as conversations with their replies, then brings only what changed', async () => {
    const conn = await f.connect();
    // Killed while it reads a thread's replies on the third history page: nothing of that page has its cursor saved.
    const kill = new AbortController();
    let histories = 0;
    f.fake.onRequest = (method) => {
      if (method === 'conversations.history') histories++;
      if (histories === 3 && method === 'conversations.replies' && !kill.signal.aborted) kill.abort(new Error('killed'));
    };
    await expect(syncConnection(f.deps, conn.id, kill.signal)).rejects.toThrow();
    f.fake.onRequest = undefined;
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.records_count).toBe(80); // two history pages of 40 stored, the third not
    const again = await syncConnection(f.deps, conn.id);
    expect(again).toMatchObject({ status: 'synced', records: 170, duplicates: 0, rejected: 0 });
    const rows = await recordsOf(f, conn.id);
    expect(rows).toHaveLength(250);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    expect(rows.filter((r) => r.type === 'conversation')).toHaveLength(25);

    const { rows: [thread] } = await f.t.pool.query(
      "SELECT type, thread_id, participants, data, nature, project_ids, event_at FROM records WHERE vendor_ids->>'slack' = $1", [vendorId(parentTs(20))]);
    expect(thread).toMatchObject({ type: 'conversation', nature: 'evidence', project_ids: [f.project], thread_id: `slack:${vendorId(parentTs(20))}` });
    expect(thread.participants).toEqual([
      { id: 'person0@customer0.example', role: 'external', name: 'Customer 0', email: 'person0@customer0.example', type: 'contact' },
      { id: 'member0@acme.example', role: 'internal', name: 'Member 0', email: 'member0@acme.example', type: 'workspace_member' },
    ]);
    expect(thread.data.messages.map((m: { body: string }) => m.body)).toEqual([
      'Message 20: exporting report 20 to CSV fails', 'Reply 1 to 20: looking into it @Customer 0', 'Reply 2 to 20: still failing',
    ]);
    expect(thread.data.channel).toBe('slack #customer-feedback-1');
    const { rows: [lone] } = await f.t.pool.query("SELECT type, data FROM records WHERE vendor_ids->>'slack' = $1", [vendorId(parentTs(7))]);
    expect(lone).toMatchObject({ type: 'message', data: { text: 'Message 7: exporting report 7 to CSV fails', author: { name: 'Customer 7', email: 'person7@customer7.example' } } });
    // Customers from the other workspace are people; members of ours are not.
    const { rows: people } = await f.t.pool.query('SELECT email FROM people WHERE workspace_id = $1 ORDER BY email', [f.ws]);
    expect(people.map((p) => p.email)).toEqual(Array.from({ length: 10 }, (_, i) => `person${i}@customer${i}.example`).sort());

    // A new reply in an old thread, a first reply to a lone message, a bot's reply in another thread, a new message
    // and a bot's lone message: three new versions of threads, one new thread, one new message, and the bot's message left out.
    const later = Date.parse('2026-06-01T00:00:00Z');
    f.fake.addReply(CHANNEL, parentTs(100), { user: 'U0CUSTOM0', user_team: FAKE_SLACK_CUSTOMER_TEAM, text: 'Still failing after the update' }, later);
    f.fake.addReply(CHANNEL, parentTs(7), { user: 'U0MEMBER3', text: 'Which browser?' }, later + 1000);
    f.fake.addReply(CHANNEL, parentTs(30), { subtype: 'bot_message', bot_id: 'B0STATUS', bot_name: 'Statuspage', text: 'Incident resolved' }, later + 2000);
    f.fake.addMessage(CHANNEL, { user: 'U0CUSTOM5', user_team: FAKE_SLACK_CUSTOMER_TEAM, text: 'The API returns 500 on /export' }, later + 3000);
    f.fake.addMessage(CHANNEL, { subtype: 'bot_message', bot_id: 'B0DEPLOY', bot_name: 'Deploys', text: 'Deployed v2.3.1' }, later + 4000);
    f.fake.addMessage(CHANNEL, { subtype: 'channel_join', user: 'U0MEMBER4', text: '<@U0MEMBER4> has joined the channel' }, later + 5000);
    const requestsBefore = f.fake.requests.length;
    const changes = await syncConnection(f.deps, conn.id);
    expect(changes).toMatchObject({ status: 'synced', records: 4, duplicates: 0, rejected: 0 });
    const calls = f.fake.requests.slice(requestsBefore);
    // Only the threads whose latest_reply moved are read again.
    expect(calls.filter((r) => r.method === 'conversations.replies').map((r) => r.query.get('ts')).sort()).toEqual([parentTs(100), parentTs(7), parentTs(30)].sort());
    expect(calls.filter((r) => r.method === 'conversations.history').every((r) => Number(r.query.get('oldest')) > Date.parse('2025-12-15T00:00:00Z') / 1000)).toBe(true);
    const after = await recordsOf(f, conn.id);
    expect(after.find((r) => r.vendor === vendorId(parentTs(100)))).toMatchObject({ type: 'conversation', n: 2, event_at: new Date(later) });
    expect(after.filter((r) => r.vendor === vendorId(parentTs(7))).map((r) => r.type).sort()).toEqual(['conversation', 'message']);
    const { rows: [withBot] } = await f.t.pool.query(
      "SELECT participants FROM records WHERE vendor_ids->>'slack' = $1 AND event_at = $2", [vendorId(parentTs(30)), new Date(later + 2000)]);
    expect(withBot.participants).toContainEqual({ id: `slack:${FAKE_SLACK_TEAM}:bot:B0STATUS`, role: 'unknown', name: 'Statuspage', type: 'bot' });
    const { rows: texts } = await f.t.pool.query("SELECT data->>'text' AS text FROM records r JOIN batches b ON b.id = r.batch_id WHERE b.connection_id = $1 AND r.type = 'message' AND r.event_at >= $2", [conn.id, new Date(later)]);
    expect(texts).toEqual([{ text: 'The API returns 500 on /export' }]);

    // Nothing new: nothing read again but the history window, nothing stored.
    const quiet = f.fake.requests.length;
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 0, duplicates: 0 });
    expect(f.fake.requests.slice(quiet).filter((r) => r.method === 'conversations.replies')).toEqual([]);

    const view = connectionView((await findConnection(f.t.pool, f.ws, conn.id))!);
    expect(view).toMatchObject({ status: 'active', records: 254, last_error: null, people: 10 });
    const { rows: jobs } = await f.t.pool.query("SELECT data FROM pgboss.job WHERE name = $1 AND state = 'created'", [QUEUES.syncConnection]);
    expect(jobs.map((j) => j.data)).toEqual([{ workspaceId: f.ws, connectionId: conn.id, reason: 'schedule' }]);
  });

  it('waits out a burst of 429s for as long as Retry-After says, never retrying early', async () => {
    const conn = await f.connect({ channel_ids: [CHANNEL], start_date: '2026-01-01', page_size: 100 });
    await expectRetryAfterWaited(f, conn.id, 4, 7);
  });

  it('marks a connection failing on token_revoked and on invalid_auth (Slack answers them with HTTP 200), stops its schedule, and resumes once the token changes', async () => {
    const conn = await f.connect();
    await scheduleNextSync(f.boss, conn);
    f.fake.revoke('token_revoked');
    await expectRefusedCredentials(f, conn.id, 'slack refused the credentials: token_revoked: the token was revoked', { records: 0 });

    // A token Slack does not know: invalid_auth, failing the same way.
    f.fake.restore({ token: 'xoxb-new-token-8d1f' });
    const wrong = await f.connect();
    expect(await syncConnection(f.deps, wrong.id)).toEqual({ status: 'failing', message: 'slack refused the credentials: invalid_auth: the token is not valid' });

    await updateConnectionRow(f.t.pool, f.keyring, f.ws, conn.id, { credentials: { token: 'xoxb-new-token-8d1f' } }, new Date());
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.status).toBe('active');
    // What the first connection brought is already in the workspace: each message again is a duplicate, stored once.
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 0, duplicates: 251 });
    expect(f.fake.requests.at(-1)!.authorization).toBe('Bearer xoxb-new-token-8d1f');
    f.fake.restore({ token: f.token });
  });

  it('lands the valid messages of a page with a malformed one, and says why that one was refused', async () => {
    const conn = await f.connect({ channel_ids: [CHANNEL], start_date: '2026-01-01', page_size: 500 });
    const message = f.fake.channels.get(CHANNEL)!.messages[8]!;
    message.malformed = { type: 'message', ts: 'yesterday', user: 'U0CUSTOM1', text: 'x' };
    const outcome = await syncConnection(f.deps, conn.id);
    delete message.malformed;
    expect(outcome).toMatchObject({ status: 'synced', rejected: 1, records: 0, duplicates: 250 });
    const view = connectionView((await findConnection(f.t.pool, f.ws, conn.id))!);
    expect(view.last_error).toMatch(/message yesterday in C0FAKE001: ts: is not a Slack timestamp/);
    expect(view.rejected).toBe(1);
  });

  it('keeps a broken or hostile history page as last_error, stores nothing of it, keeps the cursor, and goes on with its schedule', async () => {
    const conn = await f.connect({ channel_ids: [CHANNEL], start_date: '2026-01-01', page_size: 500 });
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced' });
    const before = (await findConnection(f.t.pool, f.ws, conn.id))!;
    const pages = [
      { status: 200, body: '<html>maintenance</html>', error: /the answer is not JSON/ },
      { status: 200, body: JSON.stringify({ ok: true, messages: 'all of them' }), error: /conversations\.history: the answer is not one Slack documents \(messages: / },
      { status: 200, body: JSON.stringify({ ok: true, messages: [], has_more: true, response_metadata: { next_cursor: '' } }), error: /has_more without a response_metadata\.next_cursor/ },
      { status: 200, body: JSON.stringify({ ok: false, error: 'fatal_error' }), error: /conversations\.history: Slack answered fatal_error/ },
      { status: 200, body: JSON.stringify({ ok: 'yes' }), error: /not one Slack documents \(ok: / },
      { status: 503, body: JSON.stringify({ ok: false, error: 'service_unavailable' }), error: /503 service_unavailable/ },
      { status: 200, body: `{"ok":true,"messages":[${'['.repeat(100_000)}`, error: /the answer is not JSON/ },
    ];
    for (const page of pages) {
      await expectRawPageRefused(f, conn.id, before, page);
    }
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced' });
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.last_error).toBeNull();
  });

  it('reads the channels it can when the app is not in one, and names that one with what to do', async () => {
    f.fake.channels.set('C0PRIVATE', { id: 'C0PRIVATE', name: 'vip-customers', notMember: true, messages: [], replies: new Map() });
    const conn = await f.connect({ channel_ids: ['C0PRIVATE', CHANNEL], start_date: '2026-01-01', page_size: 500 });
    const outcome = await syncConnection(f.deps, conn.id);
    expect(outcome).toMatchObject({ status: 'failed', message: expect.stringContaining('C0PRIVATE: not_in_channel: the app is not a member of the channel: invite it') });
    const after = (await findConnection(f.t.pool, f.ws, conn.id))!;
    expect(after).toMatchObject({ status: 'active', duplicates_count: 251, last_error: expect.stringContaining('C0PRIVATE: not_in_channel') });
  });

  it('keeps a thread whose parent was deleted between the history and its replies as the parent read, without failing the sync', async () => {
    const conn = await f.connect({ channel_ids: [CHANNEL], start_date: '2026-01-01', page_size: 500 });
    const channel = f.fake.channels.get(CHANNEL)!;
    const gone = channel.messages[39]!; // message 40: a thread
    f.fake.onRequest = (method, query) => {
      if (method === 'conversations.replies' && query.get('ts') === gone.ts) channel.messages.splice(channel.messages.indexOf(gone), 1);
    };
    const outcome = await syncConnection(f.deps, conn.id);
    f.fake.onRequest = undefined;
    channel.messages.splice(39, 0, gone);
    expect(outcome).toMatchObject({ status: 'synced', rejected: 0 });
    const { rows } = await f.t.pool.query(
      "SELECT r.type, r.data FROM records r JOIN batches b ON b.id = r.batch_id WHERE b.connection_id = $1 AND r.vendor_ids->>'slack' = $2", [conn.id, vendorId(gone.ts)]);
    expect(rows.map((r) => [r.type, r.data.messages.length])).toEqual([['conversation', 1]]);
  });

  it('never logs the token, and never stores it in the clear', async () => {
    const all = f.logs.join('\n');
    expect(all).toContain('connection synced');
    expect(all).not.toContain(f.token);
    expect(all).not.toContain('xoxb-new-token-8d1f');
    const dump = JSON.stringify((await f.t.pool.query('SELECT * FROM connections')).rows);
    expect(dump).not.toContain(f.token);
    expect(dump).not.toContain('xoxb-new-token-8d1f');
    expect(dump).not.toContain('xoxb-');
  });
});
