import { randomBytes } from 'node:crypto';
import { QUEUES } from '@loupe/jobs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { connectionView, findConnection, updateConnectionRow } from '../store';
import { scheduleNextSync, syncConnection } from '../sync';
import { expectRawPageRefused, expectRefusedCredentials, expectRetryAfterWaited, syncFixture } from '../test/sync-fixture';
import { FakeGong } from '../testing';

/** A database with pg-boss, a workspace with a product and a project, a fake Gong, a clock the test moves, and what a sync needs. */
async function gongFixture(options: { calls: number; pageSize: number; transcriptPageSize: number }) {
  const accessKey = `gong-key-${randomBytes(8).toString('hex')}`;
  const secret = `gong-secret-${randomBytes(16).toString('hex')}`;
  const fake = new FakeGong({ accessKey, accessKeySecret: secret, pageSize: options.pageSize, transcriptPageSize: options.transcriptPageSize });
  fake.seed(options.calls);
  const clock = { nowMs: Date.parse('2026-02-01T00:00:00Z'), now: () => clock.nowMs };
  const f = await syncFixture({ fake, project: 'Calls', clock });
  const connect = async (settings: Record<string, unknown> = { start_date: '2025-12-01' }) =>
    f.insert('gong', settings, { access_key: accessKey, access_key_secret: secret });
  return { ...f, accessKey, secret, clock, connect };
}

type Fixture = Awaited<ReturnType<typeof gongFixture>>;

const recordsOf = async (f: Fixture, connectionId: string) => (await f.t.pool.query<{ vendor: string; n: number }>(
  `SELECT r.vendor_ids->>'gong' AS vendor, count(*)::int AS n FROM records r JOIN batches b ON b.id = r.batch_id WHERE b.connection_id = $1 GROUP BY 1`, [connectionId])).rows;
/** Calls stored more than once in the workspace, by any connection: none, ever. */
const doubled = async (f: Fixture) => (await f.t.pool.query(
  "SELECT vendor_ids->>'gong' AS vendor FROM records WHERE workspace_id = $1 GROUP BY 1 HAVING count(*) > 1", [f.ws])).rows;
const extensiveCalls = (f: Fixture, from: number) => f.fake.requests.slice(from).filter((r) => r.path === '/v2/calls/extensive');

describe('Gong sync: backfill, restart mid-page, new calls only', () => {
  let f: Fixture;
  beforeAll(async () => {
    f = await gongFixture({ calls: 250, pageSize: 40, transcriptPageSize: 15 });
  });
  afterAll(async () => f.close());

  it('backfills every call once as a call_transcription with its turns and parties, across a sync killed mid-page, then brings only new calls', async () => {
    const conn = await f.connect();
    // Killed while it reads the transcripts of the third page: nothing of that page has its cursor saved.
    const kill = new AbortController();
    let pages = 0;
    f.fake.onRequest = (path) => {
      if (path === '/v2/calls/extensive') pages++;
      if (pages === 3 && path === '/v2/calls/transcript' && !kill.signal.aborted) kill.abort(new Error('killed'));
    };
    await expect(syncConnection(f.deps, conn.id, kill.signal)).rejects.toThrow();
    f.fake.onRequest = undefined;
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.records_count).toBe(80);
    const again = await syncConnection(f.deps, conn.id);
    expect(again).toMatchObject({ status: 'synced', records: 170, rejected: 0, duplicates: 0 });
    const rows = await recordsOf(f, conn.id);
    expect(rows).toHaveLength(250);
    expect(rows.every((r) => r.n === 1)).toBe(true);

    // Every request asked for the window of the backfill with Basic auth; the resumed one with Gong's cursor of the third page.
    const basic = `Basic ${Buffer.from(`${f.accessKey}:${f.secret}`).toString('base64')}`;
    expect(f.fake.requests.every((r) => r.authorization === basic && r.method === 'POST')).toBe(true);
    const first = f.fake.requests.find((r) => r.path === '/v2/calls/extensive')!;
    expect(first.body).toEqual({
      filter: { fromDateTime: '2025-12-01T00:00:00.000Z', toDateTime: '2026-01-31T21:00:00.000Z' }, contentSelector: { exposedFields: { parties: true, media: true } },
    });
    const seventh = f.fake.ordered()[6]!;
    const { rows: [record] } = await f.t.pool.query(
      'SELECT r.type, r.thread_id, r.participants, r.data, r.nature, r.project_ids, r.event_at FROM records r WHERE r.vendor_ids->>\'gong\' = $1', [seventh.id]);
    expect(record).toMatchObject({ type: 'call_transcription', nature: 'evidence', project_ids: [f.project], thread_id: `gong:call:${seventh.id}`, event_at: new Date(seventh.started) });
    expect(record.participants).toEqual([
      { id: 'riley@acme-sales.example', role: 'internal', name: 'Riley Rep', email: 'riley@acme-sales.example', type: 'workspace_member' },
      { id: 'person7@customer8.example', role: 'external', name: 'Customer Person 7', email: 'person7@customer8.example', type: 'contact' },
      { id: `gong:party:${seventh.id}3`, role: 'unknown', name: 'Dial-in user', type: 'unknown' },
    ]);
    expect(record.data).toMatchObject({ title: 'Call 7 with Customer 8', duration_seconds: 1800, transcript_available: true });
    expect(record.data.transcript).toEqual([
      { speaker: 'Riley Rep', speaker_id: `${seventh.id}01`, topic: 'Call Setup', start_ms: 1000, end_ms: 6000, text: 'Thanks for joining. How is the export going?' },
      { speaker: 'Customer Person 7', speaker_id: `${seventh.id}02`, topic: 'Pricing', start_ms: 6500, end_ms: 11_000, text: 'Exporting report 7 to CSV fails every time.' },
    ]);
    const { rows: people } = await f.t.pool.query('SELECT email, name FROM people WHERE workspace_id = $1 ORDER BY email', [f.ws]);
    expect(people).toHaveLength(250);
    expect(people.some((p) => p.email === 'riley@acme-sales.example')).toBe(false);
    expect(people).toContainEqual({ email: 'person7@customer8.example', name: 'Customer Person 7' });

    // New calls: two old enough to be read, one too recent (Gong may not have transcribed it); the window goes on from the last one's end.
    const early = f.fake.addCall(Date.parse('2026-02-01T05:00:00Z'));
    f.fake.addCall(Date.parse('2026-02-01T06:00:00Z'));
    const recent = f.fake.addCall(Date.parse('2026-02-01T23:00:00Z'));
    f.clock.nowMs = Date.parse('2026-02-02T00:00:00Z');
    const before = f.fake.requests.length;
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 2, duplicates: 0 });
    expect(extensiveCalls(f, before).map((r) => r.body!.filter)).toEqual([{ fromDateTime: '2026-01-31T21:00:00.000Z', toDateTime: '2026-02-01T21:00:00.000Z' }]);
    expect(f.fake.requests.slice(before).find((r) => r.path === '/v2/calls/transcript')!.body!.filter.callIds).toHaveLength(2);
    expect((await recordsOf(f, conn.id)).some((r) => r.vendor === early.id)).toBe(true);
    expect((await recordsOf(f, conn.id)).some((r) => r.vendor === recent.id)).toBe(false);
    // Nothing new: Gong answers the empty window with its 404, which is no error.
    f.clock.nowMs = Date.parse('2026-02-02T00:10:00Z');
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 0 });
    expect(f.fake.requests.at(-1)).toMatchObject({ path: '/v2/calls/extensive', status: 404 });
    f.clock.nowMs = Date.parse('2026-02-02T03:00:00Z');
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 1 });
    expect((await recordsOf(f, conn.id)).filter((r) => r.vendor === recent.id)).toEqual([{ vendor: recent.id, n: 1 }]);

    const view = connectionView((await findConnection(f.t.pool, f.ws, conn.id))!);
    expect(view).toMatchObject({ status: 'active', records: 253, duplicates: 0, last_error: null, people: 253 });
    const { rows: jobs } = await f.t.pool.query("SELECT data FROM pgboss.job WHERE name = $1 AND state = 'created'", [QUEUES.syncConnection]);
    expect(jobs.map((j) => j.data)).toEqual([{ workspaceId: f.ws, connectionId: conn.id, reason: 'schedule' }]);
  });

  it('gives the recording as an attachment when media is asked for and Gong gives its URL, and asks for none when told not to', async () => {
    f.fake.options.mediaBaseUrl = 'https://media.gong.example';
    try {
      // Calls of the workspace already stored by another connection are duplicates: these two are new.
      const withMedia = f.fake.addCall(Date.parse('2026-02-03T01:00:00Z'));
      const withoutMedia = f.fake.addCall(Date.parse('2026-02-03T02:00:00Z'));
      f.clock.nowMs = Date.parse('2026-02-03T05:00:00Z');
      const conn = await f.connect({ start_date: '2026-02-03' });
      // Read up to 02:00 (three hours before the clock): the call of 01:00 only.
      expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 1 });
      const { rows } = await f.t.pool.query(
        `SELECT a.vendor_url, a.filename, a.status FROM attachments a JOIN records r ON r.id = a.record_id JOIN batches b ON b.id = r.batch_id
          WHERE b.connection_id = $1 AND r.vendor_ids->>'gong' = $2`, [conn.id, withMedia.id]);
      expect(rows).toEqual([{ vendor_url: `https://media.gong.example/media/${withMedia.id}/audio.mp3`, filename: `gong-call-${withMedia.id}.mp3`, status: 'PENDING' }]);

      f.clock.nowMs = Date.parse('2026-02-03T06:00:00Z');
      const before = f.fake.requests.length;
      const noMedia = await f.connect({ start_date: '2026-02-03', include_media: false });
      expect(await syncConnection(f.deps, noMedia.id)).toMatchObject({ status: 'synced', records: 1, duplicates: 1 });
      expect((await recordsOf(f, noMedia.id)).map((r) => r.vendor)).toEqual([withoutMedia.id]);
      expect(extensiveCalls(f, before).every((r) => r.body!.contentSelector.exposedFields.media === false)).toBe(true);
      const { rows: none } = await f.t.pool.query(
        'SELECT count(*)::int AS n FROM attachments a JOIN records r ON r.id = a.record_id JOIN batches b ON b.id = r.batch_id WHERE b.connection_id = $1', [noMedia.id]);
      expect(none[0].n).toBe(0);
    } finally {
      delete f.fake.options.mediaBaseUrl;
    }
  });

  it('reads only the calls of the Gong workspace asked for', async () => {
    const before = f.fake.requests.length;
    const conn = await f.connect({ start_date: '2026-01-01', workspace_id: '42' });
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 0 });
    expect(extensiveCalls(f, before)[0]!.body!.filter.workspaceId).toBe('42');
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.cursor).toEqual({ from: '2026-02-03T03:00:00.000Z' });
  });

  it('waits out a burst of 429s for as long as Retry-After says, never retrying early', async () => {
    const conn = await f.connect({ start_date: '2026-01-01' });
    await expectRetryAfterWaited(f, conn.id, 4, 7, { records: 0, duplicates: 255 });
  });

  it('marks a connection failing with Gong\'s message on revoked credentials, stops its schedule, and resumes once they change', async () => {
    const conn = await f.connect();
    await scheduleNextSync(f.boss, conn);
    f.fake.revoke(401);
    await expectRefusedCredentials(f, conn.id, 'gong refused the credentials: 401 Invalid access key or secret');

    f.fake.restore({ accessToken: 'gong-new-oauth-token' });
    await updateConnectionRow(f.t.pool, f.keyring, f.ws, conn.id, { credentials: { access_token: 'gong-new-oauth-token' } }, new Date());
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.status).toBe('active');
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', duplicates: 255 });
    expect(f.fake.requests.at(-1)!.authorization).toBe('Bearer gong-new-oauth-token');
  });

  it('lands the valid calls of a page with a malformed one, and says why that one was refused', async () => {
    const conn = await f.connect({ start_date: '2026-01-01' });
    const bad = f.fake.ordered()[9]!;
    bad.malformed = { metaData: { id: bad.id, title: 'Broken', started: 'yesterday' }, parties: [] };
    const before = f.fake.requests.length;
    const outcome = await syncConnection(f.deps, conn.id);
    delete bad.malformed;
    expect(outcome).toMatchObject({ status: 'synced', records: 0, duplicates: 254, rejected: 1 });
    const view = connectionView((await findConnection(f.t.pool, f.ws, conn.id))!);
    expect(view.last_error).toContain(`call ${bad.id}: metaData.started: is not a date and time`);
    expect(view.rejected).toBe(1);
    const asked = new Set(f.fake.requests.slice(before).filter((r) => r.path === '/v2/calls/transcript').flatMap((r) => r.body!.filter.callIds as string[]));
    expect(asked.size).toBe(254);
    expect(asked.has(bad.id)).toBe(false);
  });

  it('keeps a broken or hostile page as last_error, stores nothing of it, keeps the cursor, and goes on with its schedule', async () => {
    const conn = await f.connect({ start_date: '2026-01-01' });
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced' });
    // A window with new calls in it, so each sync below asks Gong for a page.
    f.fake.addCall(Date.parse('2026-02-03T10:00:00Z'));
    f.clock.nowMs = Date.parse('2026-02-04T00:00:00Z');
    const before = (await findConnection(f.t.pool, f.ws, conn.id))!;
    const pages = [
      { status: 200, body: '<html>maintenance</html>', error: /the answer is not JSON/ },
      { status: 200, body: JSON.stringify({ records: {}, calls: 'all of them' }), error: /not a page Gong documents \(calls: / },
      { status: 200, body: JSON.stringify({ calls: [] }), error: /not a page Gong documents \(records: / },
      { status: 200, body: JSON.stringify({ records: { cursor: 42 }, calls: [] }), error: /records\.cursor/ },
      { status: 503, body: JSON.stringify({ requestId: 'x', errors: ['Service unavailable', 'try later'] }), error: /503 Service unavailable; try later/ },
      { status: 404, body: JSON.stringify({ requestId: 'x', errors: ['No such endpoint'] }), error: /404 No such endpoint/ },
      { status: 503, body: JSON.stringify({ requestId: 'x', errors: ['Down\u0000 for now'] }), error: /503 Down for now/ },
      { status: 200, body: `{"calls":[${'['.repeat(100_000)}`, error: /the answer is not JSON/ },
    ];
    for (const page of pages) {
      await expectRawPageRefused(f, conn.id, before, page);
    }
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 1 });
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.last_error).toBeNull();
  });

  it('names a refused call in last_error even when Gong\'s id for it holds characters PostgreSQL cannot store', async () => {
    const conn = await f.connect({ start_date: '2026-01-01' });
    f.fake.serveRaw({ status: 200, body: JSON.stringify({ records: {}, calls: [{ metaData: { id: 'x\u0000y', started: '2026-01-02T00:00:00Z' } }] }) });
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 0, rejected: 1 });
    expect((await findConnection(f.t.pool, f.ws, conn.id))!.last_error).toMatch(/call xy: metaData\.id: is not a Gong id/);
  });

  it('reads a window again from its start when Gong refuses the saved page cursor, storing nothing twice', async () => {
    const conn = await f.connect({ start_date: '2026-01-01' });
    const kill = new AbortController();
    let pages = 0;
    f.fake.onRequest = (path) => {
      if (path === '/v2/calls/extensive' && ++pages === 2) kill.abort(new Error('killed'));
    };
    await expect(syncConnection(f.deps, conn.id, kill.signal)).rejects.toThrow();
    f.fake.onRequest = undefined;
    const stopped = (await findConnection(f.t.pool, f.ws, conn.id))!;
    expect(stopped.duplicates_count).toBe(40);
    await f.t.pool.query("UPDATE connections SET cursor = jsonb_set(cursor, '{page}', '\"expired\"') WHERE id = $1", [conn.id]);
    expect(await syncConnection(f.deps, conn.id)).toMatchObject({ status: 'synced', records: 0, duplicates: 256 });
    expect(await doubled(f)).toEqual([]);
  });

  it('never logs the credentials, and never stores them in the clear', async () => {
    const all = f.logs.join('\n');
    expect(all).toContain('connection synced');
    for (const secret of [f.secret, f.accessKey, 'gong-new-oauth-token', Buffer.from(`${f.accessKey}:${f.secret}`).toString('base64')]) expect(all).not.toContain(secret);
    const dump = JSON.stringify((await f.t.pool.query('SELECT * FROM connections')).rows);
    for (const secret of [f.secret, f.accessKey, 'gong-new-oauth-token']) expect(dump).not.toContain(secret);
  });
});
