import { randomBytes } from 'node:crypto';
import { QUEUES } from '@loupe/jobs';
import { parseKeyring } from '../envelope';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionView, findConnection, updateConnectionRow } from '../store';
import { scheduleActiveConnections, scheduleNextSync, syncConnection } from '../sync';
import { connectorFixture } from '../test/fixture';
import { expectRawPageRefused, expectRefusedCredentials, expectRetryAfterWaited } from '../test/sync-fixture';

type Fixture = Awaited<ReturnType<typeof connectorFixture>>;

const recordsOf = async (f: Fixture, connectionId: string) => (await f.t.pool.query<{ vendor: string; n: number; event_at: Date }>(
  `SELECT r.vendor_ids->>'zendesk' AS vendor, count(*)::int AS n, max(r.event_at) AS event_at FROM records r JOIN batches b ON b.id = r.batch_id
    WHERE b.connection_id = $1 GROUP BY 1`, [connectionId])).rows;

describe('Zendesk sync: backfill, restart mid-page, changes only', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await connectorFixture({ tickets: 250, commentsEach: 3, pageSize: 40 });
  });
  afterAll(async () => f.close());

  it('backfills every ticket once as a conversation record with its comments, requester and organization, then brings only what changed', async () => {
    const conn = await f.connect();
    // The sync is killed while it reads the comments of the third page: nothing of that page has its cursor saved.
    const kill = new AbortController();
    let exports = 0;
    f.fake.onRequest = (path) => {
      if (path.endsWith('cursor.json')) exports++;
      if (exports === 3 && path.includes('/comments.json') && !kill.signal.aborted) kill.abort(new Error('killed'));
    };
    await expect(syncConnection(f.deps, conn.id, kill.signal)).rejects.toThrow();
    f.fake.onRequest = undefined;
    const partial = await findConnection(f.t.pool, f.ws, conn.id);
    expect(partial!.records_count).toBe(80); // two pages of 40 stored, the third not
    const again = await syncConnection(f.deps, conn.id);
    expect(again).toMatchObject({ status: 'synced', records: 170, rejected: 0 });
    const rows = await recordsOf(f, conn.id);
    expect(rows).toHaveLength(250);
    expect(rows.every((r) => r.n === 1)).toBe(true);

    const { rows: [record] } = await f.t.pool.query(
      `SELECT r.type, r.thread_id, r.participants, r.data, r.nature, r.project_ids FROM records r WHERE r.vendor_ids->>'zendesk' = $1`, [`${new URL(f.fake.url).host}/tickets/7`]);
    expect(record).toMatchObject({ type: 'conversation', nature: 'evidence', project_ids: [f.project], thread_id: expect.stringContaining('/tickets/7') });
    expect(record.participants).toEqual([
      { id: 'person7@customer8.example', role: 'external', name: 'Requester 7', email: 'person7@customer8.example', type: 'contact' },
      { id: 'alex@support.example', role: 'internal', name: 'Alex Agent', email: 'alex@support.example', type: 'workspace_member' },
    ]);
    expect(record.data.messages.map((m: { body: string; public: boolean }) => [m.body, m.public])).toEqual([
      ['Exporting report 7 to CSV fails (0)', true], ['Private note 1 on ticket 7', false], ['Exporting report 7 to CSV fails (2)', true],
    ]);
    const { rows: companies } = await f.t.pool.query('SELECT name, domains FROM companies WHERE workspace_id = $1 ORDER BY name', [f.ws]);
    expect(companies).toHaveLength(10);
    expect(companies[0]).toEqual({ name: 'Customer 1', domains: ['customer1.example'] });
    const { rows: people } = await f.t.pool.query(
      `SELECT p.email, c.name AS company FROM people p LEFT JOIN companies c ON c.id = p.company_id WHERE p.workspace_id = $1 AND p.email = 'person7@customer8.example'`, [f.ws]);
    expect(people).toEqual([{ email: 'person7@customer8.example', company: 'Customer 8' }]);
    expect((await f.t.pool.query("SELECT count(*)::int AS n FROM people WHERE workspace_id = $1 AND email LIKE '%support.example'", [f.ws])).rows[0].n).toBe(0);

    // A new comment on ticket 3, a status change on ticket 4: one new version of ticket 3, and ticket 4 is a duplicate.
    const later = Date.parse('2026-06-01T00:00:00Z');
    f.fake.addComment(3, 'Still failing after the update', later);
    f.fake.touch(4, 'solved', later + 1000);
    const requestsBefore = f.fake.requests.length;
    const changes = await syncConnection(f.deps, conn.id);
    expect(changes).toMatchObject({ status: 'synced', records: 1, duplicates: 1 });
    const exportCalls = f.fake.requests.slice(requestsBefore).filter((r) => r.path.endsWith('cursor.json'));
    expect(exportCalls.every((r) => r.query.has('cursor') && !r.query.has('start_time'))).toBe(true);
    const ticket3 = (await recordsOf(f, conn.id)).find((r) => r.vendor.endsWith('/tickets/3'))!;
    expect(ticket3).toMatchObject({ n: 2, event_at: new Date(later) });

    const view = connectionView((await findConnection(f.t.pool, f.ws, conn.id))!);
    expect(view).toMatchObject({ status: 'active', records: 251, last_error: null, companies: 10 });
    expect(view.last_success_at).not.toBeNull();
    const { rows: jobs } = await f.t.pool.query("SELECT data FROM pgboss.job WHERE name = $1 AND state = 'created'", [QUEUES.syncConnection]);
    expect(jobs.map((j) => j.data)).toEqual([{ workspaceId: f.ws, connectionId: conn.id, reason: 'schedule' }]);
  });

  it('waits out a burst of 429s for as long as Retry-After says, never retrying early', async () => {
    const conn = await f.connect({ start_date: '2026-01-01', page_size: 100 });
    await expectRetryAfterWaited(f, conn.id, 4, 7);
  });

  it('marks a connection failing with the vendor\'s message on a revoked token, stops its schedule, and resumes once the credentials change', async () => {
    const conn = await f.connect();
    await scheduleNextSync(f.boss, conn);
    f.fake.revoke(401);
    await expectRefusedCredentials(f, conn.id, "zendesk refused the credentials: 401 Couldn't authenticate you");

    f.fake.restore({ accessToken: 'new-oauth-token' });
    await updateConnectionRow(f.t.pool, f.keyring, f.ws, conn.id, { credentials: { access_token: 'new-oauth-token' } }, new Date());
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.status).toBe('active');
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced' });
    expect(f.fake.requests.at(-1)!.authorization).toBe('Bearer new-oauth-token');
  });

  it('marks a connection failing when CONNECTIONS_KEY no longer opens its credentials, without asking the vendor', async () => {
    const conn = await f.connect();
    const requests = f.fake.requests.length;
    const otherKey = parseKeyring(`k9:${randomBytes(32).toString('base64')}`);
    expect(await syncConnection({ ...f.deps, keyring: otherKey }, conn.id)).toMatchObject({ status: 'failing', message: expect.stringContaining('which CONNECTIONS_KEY no longer holds') });
    expect(f.fake.requests.length).toBe(requests);
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.status).toBe('failing');
  });

  it('gives a comment\'s attachments to the record by URL, for the worker\'s SSRF-safe downloader', async () => {
    const conn = await f.connect({ start_date: '2026-01-01', tags: ['export'] });
    const comment = f.fake.comments.get(20)![0]!;
    comment.attachments.push({ id: 9001, file_name: 'export-error.png', content_url: 'https://acme.zendesk.com/attachments/token/abc/?name=export-error.png', content_type: 'image/png', size: 48213 });
    const later = Date.parse('2026-07-01T00:00:00Z');
    f.fake.touch(20, 'open', later);
    f.fake.addComment(20, 'Here is a screenshot', later);
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced' });
    const { rows } = await f.t.pool.query(
      `SELECT a.vendor_url, a.filename, a.mime_type, a.declared_size, a.status FROM attachments a JOIN records r ON r.id = a.record_id JOIN batches b ON b.id = r.batch_id
        WHERE b.connection_id = $1`, [conn.id]);
    expect(rows).toEqual([{
      vendor_url: 'https://acme.zendesk.com/attachments/token/abc/?name=export-error.png', filename: 'export-error.png', mime_type: 'image/png', declared_size: 48213, status: 'PENDING',
    }]);
  });

  it('lands the valid tickets of a page with a malformed one, and says why that one was refused', async () => {
    const conn = await f.connect({ start_date: '2026-01-01', page_size: 1000 });
    const ticket = f.fake.tickets.get(10)!;
    ticket.malformed = { id: 10, status: 'open', created_at: 'yesterday', updated_at: ticket.updated_at };
    const outcome = await syncConnection(f.deps, conn.id);
    delete ticket.malformed;
    expect(outcome).toMatchObject({ status: 'synced', rejected: 1 });
    const view = connectionView((await findConnection(f.t.pool, f.ws, conn.id))!);
    expect(view.last_error).toMatch(/ticket 10: created_at: is not a date and time/);
    expect(view.rejected).toBe(1);
  });

  it('keeps a broken or hostile export page as last_error, stores nothing of it, keeps the cursor, and goes on with its schedule', async () => {
    const conn = await f.connect({ start_date: '2026-01-01', page_size: 1000 });
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced' });
    const before = (await findConnection(f.t.pool, f.ws, conn.id))!;
    const pages = [
      { status: 200, body: '<html>maintenance</html>', error: /the answer is not JSON/ },
      { status: 200, body: JSON.stringify({ tickets: 'all of them', end_of_stream: true }), error: /not a page Zendesk documents \(tickets: / },
      { status: 200, body: JSON.stringify({ tickets: [], end_of_stream: 'yes' }), error: /end_of_stream/ },
      { status: 200, body: JSON.stringify({ tickets: [{ id: 1 }], end_of_stream: false }), error: /has no after_cursor/ },
      { status: 503, body: JSON.stringify({ error: 'Maintenance', description: 'Back soon' }), error: /503 Maintenance: Back soon/ },
      { status: 200, body: `{"tickets":[${'['.repeat(100_000)}`, error: /the answer is not JSON/ },
    ];
    for (const page of pages) {
      await expectRawPageRefused(f, conn.id, before, page);
    }
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced' });
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.last_error).toBeNull();
  });

  it('runs one sync of a connection at a time: another one asked meanwhile ends at once, reading nothing', async () => {
    const conn = await f.connect({ start_date: '2026-01-01' });
    const holder = await f.t.pool.connect();
    try {
      // What a running sync holds, on its own session.
      await holder.query('SELECT pg_advisory_lock(45045045, hashtext($1))', [conn.id]);
      const requests = f.fake.requests.length;
      expect(await syncConnection(f.deps, conn.id)).toEqual({ status: 'skipped', reason: 'running' });
      expect(f.fake.requests.length).toBe(requests);
      await holder.query('SELECT pg_advisory_unlock(45045045, hashtext($1))', [conn.id]);
    } finally {
      holder.release();
    }
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced' });
  });

  it('at a worker\'s start, schedules each active connection an interval after its last sync, at once when that has passed', async () => {
    const overdue = await f.connect();
    const recent = await f.connect();
    const paused = await f.connect();
    await f.t.pool.query("UPDATE connections SET last_synced_at = now() - interval '2 hours' WHERE id = $1", [overdue.id]);
    await f.t.pool.query('UPDATE connections SET last_synced_at = now() WHERE id = $1', [recent.id]);
    await f.t.pool.query("UPDATE connections SET status = 'paused' WHERE id = $1", [paused.id]);
    await f.t.pool.query('DELETE FROM pgboss.job WHERE name = $1', [QUEUES.syncConnection]);
    await scheduleActiveConnections(f.t.pool, f.boss, new Date());
    await scheduleActiveConnections(f.t.pool, f.boss, new Date());
    const { rows } = await f.t.pool.query<{ id: string; soon: boolean }>(
      "SELECT data->>'connectionId' AS id, start_after < now() + interval '1 minute' AS soon FROM pgboss.job WHERE name = $1 AND data->>'reason' = 'schedule'", [QUEUES.syncConnection]);
    const byId = new Map(rows.map((r) => [r.id, r.soon]));
    expect(byId.get(overdue.id)).toBe(true);
    expect(byId.get(recent.id)).toBe(false);
    expect(byId.has(paused.id)).toBe(false);
    expect(rows.filter((r) => r.id === overdue.id)).toHaveLength(1);
  });

  it('never logs the credentials, and never stores them in the clear', async () => {
    const all = f.logs.join('\n');
    expect(all).toContain('connection synced');
    expect(all).not.toContain(f.apiToken);
    expect(all).not.toContain('new-oauth-token');
    expect(all).not.toContain(Buffer.from(`admin@acme.example/token:${f.apiToken}`).toString('base64'));
    const { rows } = await f.t.pool.query('SELECT * FROM connections');
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(f.apiToken);
    expect(dump).not.toContain('new-oauth-token');
  });
});
