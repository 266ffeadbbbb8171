import { FAKE_SLACK_CUSTOMER_TEAM, FakeGong, FakeIntercom, FakeSlack, FakeZendesk } from '@loupe/connectors/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledPostgres, demoFrom, serviceOn, type ControlledPostgres, type Demo } from './cluster';
import { until, type Started } from './process';

/**
 * Issue 45's acceptance against `npm start`, through the API only, for each connector: a connection backfills
 * 10,000 vendor objects from the vendor's fake; the service is killed with SIGKILL mid-backfill and started again;
 * every object is then one record and one source, a second sync brings only what changed, a burst of 429s is
 * waited out, and a revoked token shows as failing and is not retried until the credentials change. The token
 * never appears in the service's logs or answers.
 */
const OBJECTS = 10_000;

/** What the test needs of a vendor's fake (`@loupe/connectors/testing`). */
interface VendorFake {
  url: string;
  requests: { status: number; authorization?: string | undefined }[];
  earlyRetries: number;
  onRequest: ((path: string, query: URLSearchParams) => void) | undefined;
  rateLimit(count: number, seconds: number): void;
  stop(): Promise<void>;
}

interface ConnectorCase<F extends VendorFake> {
  /** The connection's kind, and the key of its records' `_vendor_ids`. */
  kind: string;
  /** A fake seeded with OBJECTS objects that each become one record; it measures Retry-After on the real clock (the service really waits). */
  fake(): Promise<F>;
  /** The body of POST /api/v1/connections, less product and project. */
  connection(fake: F): Record<string, unknown>;
  /** Asked on each request to the fake during the backfill: true once, when the service is to be killed (mid-backfill, a page under way). */
  killNow(path: string): boolean;
  /** Changes at the vendor after the backfill: the records the next sync must bring, and the least duplicates it may count. */
  change(fake: F): { records: number; duplicates: number };
  /** What the changes' sync may ask of the fake (only what changed, not everything again). */
  checkChangeRequests(fake: F, since: number): void;
  /** Revokes the token at the fake; the words of the vendor `last_error` must hold. */
  revoke(fake: F): string;
  /** Accepts new credentials at the fake: what PATCH sends, and the Authorization header they become. */
  renew(fake: F): { credentials: Record<string, unknown>; authorization: string };
  /** Strings that must appear in no log and no answer. */
  secrets: string[];
}

const ZD_TOKEN = 'zd-e2e-token-5b7e1c9a';
const ZD_NEW_TOKEN = 'zd-e2e-oauth-8c2d4f6e';
let zendeskComments = 0;
const zendesk: ConnectorCase<FakeZendesk> = {
  kind: 'zendesk',
  async fake() {
    const fake = new FakeZendesk({ email: 'ops@acme.example', apiToken: ZD_TOKEN, pageSize: 1000, now: () => Date.now() });
    fake.seed(OBJECTS, 1);
    await fake.start();
    return fake;
  },
  connection: (fake) => ({ kind: 'zendesk', base_url: fake.url, credentials: { email: 'ops@acme.example', api_token: ZD_TOKEN }, settings: { start_date: '2025-12-01' } }),
  // While it reads the comments of the third export page.
  killNow: (path) => path.endsWith('comments.json') && ++zendeskComments === 2_500,
  change(fake) {
    // Two tickets with a new comment, one with a status change (read again, nothing new to say).
    const later = Date.parse('2026-12-01T00:00:00Z');
    fake.addComment(11, 'Still failing after the update', later);
    fake.addComment(12, 'Any news?', later + 1000);
    fake.touch(13, 'solved', later + 2000);
    return { records: 2, duplicates: 1 };
  },
  checkChangeRequests(fake, since) {
    expect(fake.requests.slice(since).filter((r) => r.path.endsWith('comments.json')).length).toBeLessThan(10);
  },
  revoke(fake) {
    fake.revoke(401);
    return "401 Couldn't authenticate you";
  },
  renew(fake) {
    fake.restore({ accessToken: ZD_NEW_TOKEN });
    return { credentials: { access_token: ZD_NEW_TOKEN }, authorization: `Bearer ${ZD_NEW_TOKEN}` };
  },
  secrets: [ZD_TOKEN, ZD_NEW_TOKEN, Buffer.from(`ops@acme.example/token:${ZD_TOKEN}`).toString('base64')],
};

const SLACK_TOKEN = 'xoxb-e2e-token-4e1a7c2b';
const SLACK_NEW_TOKEN = 'xoxb-e2e-token-new-9f3d5b1e';
const SLACK_CHANNEL = 'C0FAKE001';
let slackReplies = 0;
let slackOldThread = '';
const slack: ConnectorCase<FakeSlack> = {
  kind: 'slack',
  async fake() {
    const fake = new FakeSlack({ token: SLACK_TOKEN, now: () => Date.now() });
    // 9,000 messages and 1,000 threads of two replies: 10,000 records.
    fake.seed(OBJECTS, { threadEvery: 10, repliesEach: 2 });
    await fake.start();
    return fake;
  },
  connection: (fake) => ({ kind: 'slack', base_url: fake.url, credentials: { token: SLACK_TOKEN }, settings: { channel_ids: [SLACK_CHANNEL], start_date: '2025-12-01' } }),
  // While it reads the replies of the threads of a history page, a third of the way in.
  killNow: (method) => method === 'conversations.replies' && ++slackReplies === 300,
  change(fake) {
    // A new reply in an old thread (a new version of it) and a new message.
    const later = Date.parse('2026-12-01T00:00:00Z');
    slackOldThread = fake.channels.get(SLACK_CHANNEL)!.messages[9]!.ts;
    fake.addReply(SLACK_CHANNEL, slackOldThread, { user: 'U0CUSTOM0', user_team: FAKE_SLACK_CUSTOMER_TEAM, text: 'Still failing after the update' }, later);
    fake.addMessage(SLACK_CHANNEL, { user: 'U0CUSTOM1', user_team: FAKE_SLACK_CUSTOMER_TEAM, text: 'Any news?' }, later + 1000);
    return { records: 2, duplicates: 0 };
  },
  checkChangeRequests(fake, since) {
    expect(fake.requests.slice(since).filter((r) => r.method === 'conversations.replies' && r.status === 200).map((r) => r.query.get('ts'))).toEqual([slackOldThread]);
  },
  revoke(fake) {
    fake.revoke('token_revoked');
    return 'token_revoked: the token was revoked';
  },
  renew(fake) {
    fake.restore({ token: SLACK_NEW_TOKEN });
    return { credentials: { token: SLACK_NEW_TOKEN }, authorization: `Bearer ${SLACK_NEW_TOKEN}` };
  },
  secrets: [SLACK_TOKEN, SLACK_NEW_TOKEN],
};

const GONG_KEY = 'gong-e2e-key-3d9f1a7b';
const GONG_SECRET = 'gong-e2e-secret-6c2e8b4d0f';
const GONG_NEW_TOKEN = 'gong-e2e-oauth-1b5d9e3a';
let gongTranscripts = 0;
let gongNew: string[] = [];
const gong: ConnectorCase<FakeGong> = {
  kind: 'gong',
  async fake() {
    const fake = new FakeGong({ accessKey: GONG_KEY, accessKeySecret: GONG_SECRET, now: () => Date.now() });
    fake.seed(OBJECTS);
    await fake.start();
    return fake;
  },
  // delay_minutes 0: a call is read as soon as it started (on the real clock the default three hours would hide the new calls).
  connection: (fake) => ({
    kind: 'gong', base_url: fake.url, credentials: { access_key: GONG_KEY, access_key_secret: GONG_SECRET }, settings: { start_date: '2025-12-01', delay_minutes: 0 },
  }),
  // While it reads the transcripts of a page of calls, a third of the way in (two transcript pages per page of 100 calls).
  killNow: (path) => path === '/v2/calls/transcript' && ++gongTranscripts === 70,
  change(fake) {
    // Two calls made since the backfill: Gong's calls do not change once recorded, so only new ones come.
    gongNew = [fake.addCall(Date.now() - 50).id, fake.addCall(Date.now() - 40).id];
    return { records: 2, duplicates: 0 };
  },
  checkChangeRequests(fake, since) {
    const asked = fake.requests.slice(since).filter((r) => r.status === 200);
    expect(asked.filter((r) => r.path === '/v2/calls/extensive').every((r) => Date.parse(r.body!.filter.fromDateTime) > Date.parse('2026-06-01T00:00:00Z'))).toBe(true);
    expect(asked.filter((r) => r.path === '/v2/calls/transcript').flatMap((r) => r.body!.filter.callIds)).toEqual(gongNew);
  },
  revoke(fake) {
    fake.revoke(401);
    return '401 Invalid access key or secret';
  },
  renew(fake) {
    fake.restore({ accessToken: GONG_NEW_TOKEN });
    // A call to bring, so the sync with the new token is answered 200 (an empty window is Gong's 404).
    fake.addCall(Date.now() - 50);
    return { credentials: { access_token: GONG_NEW_TOKEN }, authorization: `Bearer ${GONG_NEW_TOKEN}` };
  },
  secrets: [GONG_KEY, GONG_SECRET, GONG_NEW_TOKEN, Buffer.from(`${GONG_KEY}:${GONG_SECRET}`).toString('base64')],
};

const IC_TOKEN = 'ic-e2e-token-3a9f7d21';
const IC_NEW_TOKEN = 'ic-e2e-token-6e0b8c44';
let intercomReads = 0;
const intercom: ConnectorCase<FakeIntercom> = {
  kind: 'intercom',
  async fake() {
    // On the real clock, as the service: X-RateLimit-Reset is a Unix time the service waits for.
    const fake = new FakeIntercom({ accessToken: IC_TOKEN });
    fake.seed(OBJECTS, 1);
    await fake.start();
    return fake;
  },
  connection: (fake) => ({ kind: 'intercom', base_url: fake.url, credentials: { access_token: IC_TOKEN }, settings: { start_date: '2025-12-01', page_size: 150 } }),
  // While it reads the conversations (GET /conversations/{id}) of a search page, a quarter of the way in.
  killNow: (path) => path.startsWith('/conversations/') && path !== '/conversations/search' && ++intercomReads === 2_500,
  change(fake) {
    // Read by the sync after the change once Intercom has settled (INTERCOM_SETTLE_SECONDS, two minutes): stamped a
    // little over two minutes ago, after the backfill's window closed. Two new messages, and one conversation closed
    // (read again, nothing new to say).
    const settled = Math.floor(Date.now() / 1000) - 125;
    fake.reply('11', '<p>Still failing after the update</p>', settled);
    fake.reply('12', '<p>Any news?</p>', settled);
    fake.close('13', settled);
    return { records: 2, duplicates: 1 };
  },
  checkChangeRequests(fake, since) {
    const read = fake.requests.slice(since).filter((r) => r.method === 'GET' && r.path.startsWith('/conversations/') && r.status === 200).map((r) => r.path).sort();
    expect(read).toEqual(['/conversations/11', '/conversations/12', '/conversations/13']);
  },
  revoke(fake) {
    fake.revoke();
    return '401 unauthorized: Access Token Invalid';
  },
  renew(fake) {
    fake.restore(IC_NEW_TOKEN);
    return { credentials: { access_token: IC_NEW_TOKEN }, authorization: `Bearer ${IC_NEW_TOKEN}` };
  },
  secrets: [IC_TOKEN, IC_NEW_TOKEN],
};

function connectorAgainstService<F extends VendorFake>(c: ConnectorCase<F>) {
  describe(`a ${c.kind} connection against npm start, killed mid-backfill`, () => {
    let pg: ControlledPostgres;
    let fake: F;
    let demo: Demo;
    const services: Started[] = [];
    const answers: string[] = [];
    beforeAll(async () => {
      pg = await controlledPostgres();
      fake = await c.fake();
    });
    afterAll(async () => {
      for (const s of services) if (s.child.exitCode === null && s.child.signalCode === null) await s.stop();
      await fake?.stop();
      await pg?.destroy();
    });

    const start = async () => {
      const s = await serviceOn(pg.url, { FETCH_ALLOW_LOOPBACK: 'true', LOG_LEVEL: 'info', WORKER_CONCURRENCY: '2' });
      services.push(s);
      return s;
    };
    const api = async (s: Started, method: string, path: string, body?: unknown) => {
      const res = await fetch(`${s.url}${path}`, {
        method, headers: { 'x-api-key': demo.key, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      const text = await res.text();
      answers.push(text);
      return { status: res.status, body: JSON.parse(text) as Record<string, any> };
    };
    const counts = async (connectionId: string) => (await pg.pool.query<{ records: number; objects: number; sources: number }>(
      `SELECT count(*)::int AS records, count(DISTINCT r.vendor_ids->>$2)::int AS objects, count(s.id)::int AS sources
         FROM records r JOIN batches b ON b.id = r.batch_id LEFT JOIN sources s ON s.record_id = r.id WHERE b.connection_id = $1`, [connectionId, c.kind])).rows[0]!;

    it(`backfills ${OBJECTS.toLocaleString('en')} objects once each across a SIGKILL, then only the changes; 429s waited out; a revoked token fails until changed`, async () => {
      const first = await start();
      demo = demoFrom(first.output());
      let killed = false;
      fake.onRequest = (path) => {
        if (!killed && c.killNow(path)) {
          killed = true;
          first.child.kill('SIGKILL');
        }
      };
      const created = await api(first, 'POST', '/api/v1/connections', { ...c.connection(fake), product_id: demo.productId, project_id: demo.projectId });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      await until('the service to be killed mid-backfill', async () => killed && first.child.signalCode !== null, 300_000);
      fake.onRequest = undefined;
      const atKill = await counts(id);
      expect(atKill.objects).toBeGreaterThan(0);
      expect(atKill.objects).toBeLessThan(OBJECTS);

      const second = await start();
      // The killed job is retried once its heartbeat stops; "sync now" does not wait for that.
      expect((await api(second, 'POST', `/api/v1/connections/${id}/sync`)).status).toBe(202);
      const done = await until('the backfill to finish', async () => {
        const r = await api(second, 'GET', `/api/v1/connections/${id}`);
        return r.body.records === OBJECTS && r.body.last_success_at && r.body;
      }, 600_000);
      expect(done).toMatchObject({ status: 'active', records: OBJECTS, last_error: null });
      await until('every record to become a source', async () => (await counts(id)).sources === OBJECTS, 600_000);
      expect(await counts(id)).toEqual({ records: OBJECTS, objects: OBJECTS, sources: OBJECTS });
      console.log(`${c.kind} e2e: ${OBJECTS} objects; ${atKill.objects} stored when killed; after the restart ${JSON.stringify(await counts(id))}`);

      // The killed job comes back too once its heartbeat stops: a second sync may still run after the first
      // finished, and "sync now" while it runs is skipped. The changes are made once no asked-for sync is left.
      await until('no sync left to run', async () => {
        const { rows } = await pg.pool.query(
          "SELECT 1 FROM pgboss.job WHERE name = 'connection.sync' AND state IN ('created', 'retry', 'active') AND data->>'connectionId' = $1 AND data->>'reason' <> 'schedule'", [id]);
        return rows.length === 0;
      }, 120_000);
      const settled = (await api(second, 'GET', `/api/v1/connections/${id}`)).body;
      // A vendor read up to a settling delay before a sync's start (Intercom: 120 s) is changed a little before now:
      // some seconds after the last sync, or that change could fall in the window it already read.
      const lastSync = Date.parse(settled.last_success_at as string);
      await new Promise((resolve) => setTimeout(resolve, Math.max(0, lastSync + 6_000 - Date.now())));

      // Only the changes, with a burst of 429s on the way.
      const expected = c.change(fake);
      fake.rateLimit(3, 1);
      const before = fake.requests.length;
      expect((await api(second, 'POST', `/api/v1/connections/${id}/sync`)).status).toBe(202);
      const changed = await until('the incremental sync', async () => {
        const r = await api(second, 'GET', `/api/v1/connections/${id}`);
        return r.body.records === OBJECTS + expected.records && r.body.duplicates >= expected.duplicates && r.body.last_success_at > settled.last_success_at && r.body;
      }, 120_000);
      expect(changed.status).toBe('active');
      expect(fake.requests.slice(before).filter((r) => r.status === 429)).toHaveLength(3);
      c.checkChangeRequests(fake, before);
      expect(fake.earlyRetries).toBe(0);

      // A revoked token: failing, with the vendor's words, and not retried until the credentials change.
      const words = c.revoke(fake);
      expect((await api(second, 'POST', `/api/v1/connections/${id}/sync`)).status).toBe(202);
      const failing = await until('the connection to fail', async () => {
        const r = await api(second, 'GET', `/api/v1/connections/${id}`);
        return r.body.status === 'failing' && r.body;
      }, 120_000);
      expect(failing.last_error).toContain(words);
      const refused = fake.requests.length;
      expect((await api(second, 'POST', `/api/v1/connections/${id}/sync`)).body.error).toBe('CONNECTION_NOT_ACTIVE');
      const { rows: waiting } = await pg.pool.query("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'connection.sync' AND data->>'connectionId' = $1 AND state IN ('created', 'retry')", [id]);
      expect(waiting[0].n).toBe(0);
      expect(fake.requests.length).toBe(refused);
      const renewed = c.renew(fake);
      expect((await api(second, 'PATCH', `/api/v1/connections/${id}`, { credentials: renewed.credentials })).body.status).toBe('active');
      await until('a sync with the new token', async () => fake.requests.slice(refused).some((r) => r.authorization === renewed.authorization && r.status === 200) || undefined, 120_000);

      const seen = [...services.map((s) => s.output()), ...answers].join('\n');
      for (const secret of c.secrets) expect(seen).not.toContain(secret);
    });
  });
}

connectorAgainstService(zendesk);
connectorAgainstService(intercom);
connectorAgainstService(slack);
connectorAgainstService(gong);
