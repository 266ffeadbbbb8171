import { QUEUES } from '@loupe/jobs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionView, findConnection, updateConnectionRow } from '../store';
import { scheduleNextSync, syncConnection } from '../sync';
import { intercomFixture } from '../test/intercom-fixture';
import { expectRawPageRefused, expectRefusedCredentials } from '../test/sync-fixture';
import { INTERCOM_SETTLE_SECONDS, INTERCOM_VERSION } from './connector';

type Fixture = Awaited<ReturnType<typeof intercomFixture>>;

const recordsOf = async (f: Fixture, connectionId: string) => (await f.t.pool.query<{ vendor: string; n: number; event_at: Date }>(
  `SELECT r.vendor_ids->>'intercom' AS vendor, count(*)::int AS n, max(r.event_at) AS event_at FROM records r JOIN batches b ON b.id = r.batch_id
    WHERE b.connection_id = $1 GROUP BY 1`, [connectionId])).rows;

/** Moves the engine's clock and the fake's on: what changed now is in the next sync's window. */
const later = (f: Fixture) => { f.clock.offsetMs += (INTERCOM_SETTLE_SECONDS + 60) * 1000; };

describe('Intercom sync: backfill, restart mid-page, changes only', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await intercomFixture({ conversations: 250, partsEach: 3 });
  });
  afterAll(async () => f.close());

  it('backfills every conversation once with its parts, contacts and companies, survives a kill mid-page, then brings only what changed', async () => {
    const conn = await f.connect({ start_date: '2025-12-01', page_size: 40 });
    // The sync is killed while it reads the conversations of the third search page: that page's cursor is never saved.
    const kill = new AbortController();
    let searches = 0;
    f.fake.onRequest = (path, _query, method) => {
      if (path === '/conversations/search') searches++;
      if (searches === 3 && method === 'GET' && path.startsWith('/conversations/') && !kill.signal.aborted) kill.abort(new Error('killed'));
    };
    await expect(syncConnection(f.deps, conn.id, kill.signal)).rejects.toThrow();
    f.fake.onRequest = undefined;
    const partial = await findConnection(f.t.pool, f.ws, conn.id);
    expect(partial!.records_count).toBe(80);
    expect(partial!.cursor).toMatchObject({ since: Date.parse('2025-12-01T00:00:00Z') / 1000, starting_after: expect.any(String) });
    const again = await syncConnection(f.deps, conn.id);
    expect(again).toMatchObject({ status: 'synced', records: 170, rejected: 0 });
    const rows = await recordsOf(f, conn.id);
    expect(rows).toHaveLength(250);
    expect(rows.every((r) => r.n === 1)).toBe(true);
    // Every request named the API version and carried the token; the token only ever went to the connection's address.
    expect(f.fake.requests.every((r) => r.version === INTERCOM_VERSION && r.authorization === `Bearer ${f.accessToken}`)).toBe(true);

    const { rows: [record] } = await f.t.pool.query(
      'SELECT r.type, r.thread_id, r.participants, r.data, r.nature, r.project_ids, r.event_at FROM records r WHERE r.vendor_ids->>\'intercom\' = $1', [`${f.fake.appId}/conversations/7`]);
    expect(record).toMatchObject({ type: 'conversation', nature: 'evidence', project_ids: [f.project], thread_id: `intercom:${f.fake.appId}/conversations/7` });
    expect(record.participants).toEqual([
      { id: 'person7@customer8.example', role: 'external', name: 'Customer person 7', email: 'person7@customer8.example', type: 'user' },
      { id: 'alex@support.example', role: 'internal', name: 'Alex Admin', email: 'alex@support.example', type: 'workspace_member' },
      { id: 'operator+app@intercom.io', role: 'internal', name: 'Fin', email: 'operator+app@intercom.io', type: 'bot' },
    ]);
    expect(record.data.messages.map((m: { body: string; public: boolean }) => [m.body, m.public])).toEqual([
      ['Exporting report 7 to CSV fails & I get an error', true],
      ['Thanks, we are looking at export 7 (0).', true],
      ['Internal: export 7 needs engineering', false],
      ['Fin: here is an article about exports (2)', true],
    ]);
    // The latest message, not the assignment after it.
    expect(record.event_at).toEqual(new Date((Date.parse('2026-01-01T00:00:00Z') / 1000 + 7 * 60 + 30) * 1000));
    const { rows: companies } = await f.t.pool.query('SELECT name, domains FROM companies WHERE workspace_id = $1 ORDER BY name', [f.ws]);
    expect(companies).toHaveLength(10);
    expect(companies[0]).toEqual({ name: 'Customer 1', domains: ['customer1.example'] });
    const { rows: people } = await f.t.pool.query(
      `SELECT p.email, c.name AS company FROM people p LEFT JOIN companies c ON c.id = p.company_id WHERE p.workspace_id = $1 AND p.email IN ('person7@customer8.example', 'person9@customer10.example') ORDER BY p.email`, [f.ws]);
    // A user in the company Intercom links it to; a lead (9) is in none.
    expect(people).toEqual([{ email: 'person7@customer8.example', company: 'Customer 8' }, { email: 'person9@customer10.example', company: null }]);
    expect((await f.t.pool.query("SELECT count(*)::int AS n FROM people WHERE workspace_id = $1 AND email LIKE '%support.example'", [f.ws])).rows[0].n).toBe(0);
    // Each company was asked once for the whole read, not once per conversation.
    expect(f.fake.requests.filter((r) => r.path === '/companies/c8').length).toBeLessThanOrEqual(2);

    // A new message in conversation 3, conversation 4 closed: one new version of 3, and 4 read again as a duplicate.
    later(f);
    f.fake.reply('3', '<p>Still failing after the update</p>');
    f.fake.close('4');
    const replyAt = f.fake.conversations.get('3')!.updated_at;
    later(f);
    const before = f.fake.requests.length;
    const changes = await syncConnection(f.deps, conn.id);
    expect(changes).toMatchObject({ status: 'synced', records: 1, duplicates: 1 });
    const searched = f.fake.requests.slice(before).filter((r) => r.path === '/conversations/search');
    expect(searched).toHaveLength(1);
    const conversationsRead = f.fake.requests.slice(before).filter((r) => r.method === 'GET' && r.path.startsWith('/conversations/')).map((r) => r.path).sort();
    expect(conversationsRead).toEqual(['/conversations/3', '/conversations/4']);
    const c3 = (await recordsOf(f, conn.id)).find((r) => r.vendor.endsWith('/conversations/3'))!;
    expect(c3).toMatchObject({ n: 2, event_at: new Date(replyAt * 1000) });

    // Nothing changed: a sync asks and brings nothing.
    later(f);
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 0, duplicates: 0 });

    const view = connectionView((await findConnection(f.t.pool, f.ws, conn.id))!);
    expect(view).toMatchObject({ status: 'active', records: 251, last_error: null, companies: 10 });
    const { rows: jobs } = await f.t.pool.query("SELECT data FROM pgboss.job WHERE name = $1 AND state = 'created' AND data->>'connectionId' = $2", [QUEUES.syncConnection, conn.id]);
    expect(jobs.map((j) => j.data)).toEqual([{ workspaceId: f.ws, connectionId: conn.id, reason: 'schedule' }]);
  });

  it('waits out a burst of 429s until X-RateLimit-Reset, or for Retry-After where Intercom sends it, never retrying early', async () => {
    const conn = await f.connect({ start_date: '2026-01-01', page_size: 150 });
    f.fake.rateLimit(3, 10);
    const before = f.waits.length;
    const outcome = await syncConnection(f.deps, conn.id);
    // Stored once each (as duplicates when the first connection of this workspace brought them already).
    expect(outcome).toMatchObject({ status: 'synced' });
    expect(outcome.status === 'synced' && outcome.records + outcome.duplicates).toBe(250);
    const waits = f.waits.slice(before);
    expect(waits).toHaveLength(3);
    // Until the reset, a Unix second: at least the ten seconds, never more than one over.
    for (const w of waits) {
      expect(w).toBeGreaterThan(9_000);
      expect(w).toBeLessThanOrEqual(11_000);
    }
    expect(f.fake.earlyRetries).toBe(0);

    const other = await f.connect({ start_date: '2026-01-01', page_size: 150 });
    f.fake.rateLimit(2, 7, true);
    const outcome2 = await syncConnection(f.deps, other.id);
    expect(outcome2).toMatchObject({ status: 'synced', waits: [7000, 7000] });
    expect(f.fake.earlyRetries).toBe(0);
    expect(f.fake.requests.filter((r) => r.status === 429)).toHaveLength(5);
  });

  it('marks a connection failing with Intercom\'s message on a revoked token, stops its schedule, and resumes once the token changes', async () => {
    const conn = await f.connect();
    await scheduleNextSync(f.boss, conn);
    f.fake.revoke();
    await expectRefusedCredentials(f, conn.id, 'intercom refused the credentials: 401 unauthorized: Access Token Invalid');

    f.fake.restore('ic-new-token-after-revoke');
    await updateConnectionRow(f.t.pool, f.keyring, f.ws, conn.id, { credentials: { access_token: 'ic-new-token-after-revoke' } }, new Date());
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.status).toBe('active');
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced' });
    expect(f.fake.requests.at(-1)!.authorization).toBe('Bearer ic-new-token-after-revoke');
    f.fake.restore(f.accessToken);
  });

  it('gives a part\'s attachments to the record by URL, for the worker\'s SSRF-safe downloader', async () => {
    const conn = await f.connect({ start_date: '2026-01-01' });
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced' });
    later(f);
    f.fake.reply('20', '<p>Here is a screenshot</p>');
    const part = f.fake.conversations.get('20')!.parts.at(-1)!;
    part.attachments.push({ type: 'upload', name: 'export-error.png', url: 'https://downloads.intercomcdn.com/i/o/123/export-error.png', content_type: 'image/png', filesize: 48213 });
    later(f);
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 1 });
    const { rows } = await f.t.pool.query(
      `SELECT a.vendor_url, a.filename, a.mime_type, a.declared_size, a.status FROM attachments a JOIN records r ON r.id = a.record_id JOIN batches b ON b.id = r.batch_id
        WHERE b.connection_id = $1`, [conn.id]);
    expect(rows).toEqual([{ vendor_url: 'https://downloads.intercomcdn.com/i/o/123/export-error.png', filename: 'export-error.png', mime_type: 'image/png', declared_size: 48213, status: 'PENDING' }]);
  });

  it('lands the valid conversations of a page with a malformed one, and says why that one was refused', async () => {
    const conn = await f.connect({ start_date: '2026-01-01', page_size: 150 });
    const c = f.fake.conversations.get('10')!;
    c.malformed = { type: 'conversation', id: '10', created_at: 'yesterday', updated_at: c.updated_at };
    const outcome = await syncConnection(f.deps, conn.id);
    delete c.malformed;
    expect(outcome).toMatchObject({ status: 'synced', duplicates: 249, rejected: 1 });
    const view = connectionView((await findConnection(f.t.pool, f.ws, conn.id))!);
    expect(view.last_error).toMatch(/conversation 10: created_at: Invalid input: expected number, received string/);
    expect(view.rejected).toBe(1);
  });

  it('skips a conversation deleted between the search and its retrieval, and a company Intercom no longer has, bringing the rest', async () => {
    const conn = await f.connect({ start_date: '2026-01-01', page_size: 150 });
    const gone = f.fake.conversations.get('40')!;
    gone.deletedBeforeRead = true;
    f.fake.contacts.get('ct41')!.company_ids = ['c-deleted', 'c2'];
    const outcome = await syncConnection(f.deps, conn.id);
    delete gone.deletedBeforeRead;
    expect(outcome).toMatchObject({ status: 'synced', rejected: 0 });
    expect(outcome.status === 'synced' && outcome.records + outcome.duplicates).toBe(249);
    expect(f.fake.requests.filter((r) => r.path === '/companies/c-deleted').map((r) => r.status)).toEqual([404]);
    const { rows } = await f.t.pool.query(
      "SELECT c.name FROM people p JOIN companies c ON c.id = p.company_id WHERE p.workspace_id = $1 AND p.email = 'person41@customer2.example'", [f.ws]);
    expect(rows).toEqual([{ name: 'Customer 2' }]);
  });

  it('keeps a broken or hostile search page as last_error, stores nothing of it, keeps the cursor, and goes on with its schedule', async () => {
    const conn = await f.connect({ start_date: '2026-01-01', page_size: 150 });
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced' });
    const before = (await findConnection(f.t.pool, f.ws, conn.id))!;
    const pages = [
      { status: 200, body: '<html>maintenance</html>', error: /the answer is not JSON/ },
      { status: 200, body: JSON.stringify({ type: 'conversation.list', conversations: 'all of them' }), error: /not what Intercom documents \(conversations: / },
      { status: 200, body: JSON.stringify({ type: 'list', data: [] }), error: /not what Intercom documents \(type: / },
      { status: 200, body: JSON.stringify({ type: 'conversation.list', conversations: [], pages: { next: { starting_after: 'x'.repeat(5000) } } }), error: /pages\.next\.starting_after/ },
      { status: 500, body: JSON.stringify({ type: 'error.list', errors: [{ code: 'server_error', message: 'Something went wrong' }] }), error: /500 server_error: Something went wrong/ },
      { status: 200, body: `{"conversations":[${'['.repeat(100_000)}`, error: /the answer is not JSON/ },
    ];
    for (const page of pages) {
      later(f);
      await expectRawPageRefused(f, conn.id, before, page);
    }
    // A next page that names the page just asked for would loop for ever: refused.
    const c = f.fake.conversations.get('30')!;
    f.fake.reply('30', 'one more');
    later(f);
    const stuck = { status: 200, body: JSON.stringify({ type: 'conversation.list', conversations: [], pages: { next: { starting_after: 'same' } } }) };
    f.fake.serveRaw(stuck, stuck);
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'failed', message: expect.stringMatching(/starting_after is the one just asked for/) });
    expect(c.updated_at).toBeGreaterThan(0);
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 1 });
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.last_error).toBeNull();
  });

  it('never logs the credentials, and never stores them in the clear', async () => {
    const all = f.logs.join('\n');
    expect(all).toContain('connection synced');
    expect(all).not.toContain(f.accessToken);
    expect(all).not.toContain('ic-new-token-after-revoke');
    const { rows } = await f.t.pool.query('SELECT * FROM connections');
    const dump = JSON.stringify(rows);
    expect(dump).not.toContain(f.accessToken);
    expect(dump).not.toContain('ic-new-token-after-revoke');
  });
});
