import { FakeGong, FakeIntercom, FakeSlack, FakeZendesk } from '@loupe/connectors/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledPostgres, demoFrom, serviceOn, type ControlledPostgres, type Demo } from './cluster';
import { until, type Started } from './process';

/**
 * Issue 45's hostile suite for connectors, against `npm start`: each vendor's fake answers the listing a
 * connection reads with broken and hostile pages first (not JSON, cut short, the wrong shape, 2 MB of one
 * string, nesting 100,000 deep, NUL and half a surrogate pair, an HTML error page), then its real pages.
 * The service never answers a 500 nor stops; each broken page is a connection's `last_error`, nothing of it
 * stored; and once the vendor answers properly every object lands once.
 */
const OBJECTS = 30;

const HOSTILE: { status: number; body: string }[] = [
  { status: 200, body: 'this is not JSON' },
  { status: 200, body: '{"next_page": "https://x/?cursor=' },
  { status: 200, body: 'null' },
  { status: 200, body: '[]' },
  { status: 200, body: JSON.stringify({ ok: true, tickets: 'x', conversations: 7, messages: { a: 1 }, calls: [null, 1, 'x'], records: { cursor: 42 } }) },
  { status: 200, body: JSON.stringify({ note: 'x'.repeat(2_000_000) }) },
  { status: 200, body: `${'['.repeat(100_000)}${']'.repeat(100_000)}` },
  { status: 200, body: '{"ok": true, "text": "nul \\u0000 and half a pair \\ud800", "tickets": [{"id": "\\u0000"}]}' },
  { status: 502, body: '<html><body><h1>502 Bad Gateway</h1></body></html>' },
];

interface HostileCase {
  kind: string;
  start(): Promise<{ fake: { url: string; serveRaw(...a: { status: number; body: string }[]): void; stop(): Promise<void> }; connection: Record<string, unknown> }>;
}

const cases: HostileCase[] = [
  {
    kind: 'zendesk',
    async start() {
      const fake = new FakeZendesk({ email: 'ops@acme.example', apiToken: 'zd-hostile-token', pageSize: 10 });
      fake.seed(OBJECTS, 1);
      await fake.start();
      return { fake, connection: { kind: 'zendesk', base_url: fake.url, credentials: { email: 'ops@acme.example', api_token: 'zd-hostile-token' }, settings: { start_date: '2025-12-01' } } };
    },
  },
  {
    kind: 'intercom',
    async start() {
      const fake = new FakeIntercom({ accessToken: 'ic-hostile-token' });
      fake.seed(OBJECTS, 1);
      await fake.start();
      return { fake, connection: { kind: 'intercom', base_url: fake.url, credentials: { access_token: 'ic-hostile-token' }, settings: { start_date: '2025-12-01', page_size: 10 } } };
    },
  },
  {
    kind: 'slack',
    async start() {
      const fake = new FakeSlack({ token: 'xoxb-hostile-token' });
      fake.seed(OBJECTS, { threadEvery: 10, repliesEach: 2 });
      await fake.start();
      return { fake, connection: { kind: 'slack', base_url: fake.url, credentials: { token: 'xoxb-hostile-token' }, settings: { channel_ids: ['C0FAKE001'], start_date: '2025-12-01' } } };
    },
  },
  {
    kind: 'gong',
    async start() {
      const fake = new FakeGong({ accessKey: 'gong-hostile-key', accessKeySecret: 'gong-hostile-secret' });
      fake.seed(OBJECTS);
      await fake.start();
      return {
        fake,
        connection: { kind: 'gong', base_url: fake.url, credentials: { access_key: 'gong-hostile-key', access_key_secret: 'gong-hostile-secret' }, settings: { start_date: '2025-12-01', delay_minutes: 0 } },
      };
    },
  },
];

describe('connectors: hostile vendor pages against npm start', () => {
  let pg: ControlledPostgres;
  let service: Started;
  let demo: Demo;
  const stops: Array<() => Promise<void>> = [];
  beforeAll(async () => {
    pg = await controlledPostgres();
    service = await serviceOn(pg.url, { FETCH_ALLOW_LOOPBACK: 'true', LOG_LEVEL: 'warn', WORKER_CONCURRENCY: '2' });
    demo = demoFrom(service.output());
  });
  afterAll(async () => {
    await service?.stop();
    for (const stop of stops) await stop();
    await pg?.destroy();
  });

  const statuses: number[] = [];
  const api = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(`${service.url}${path}`, {
      method, headers: { 'x-api-key': demo.key, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    statuses.push(res.status);
    return { status: res.status, body: (await res.json()) as Record<string, any> };
  };

  for (const c of cases) {
    it(`${c.kind}: every broken page is the connection's last error, nothing of it stored; then each object lands once`, async () => {
      const { fake, connection } = await c.start();
      stops.push(() => fake.stop());
      fake.serveRaw(...HOSTILE);
      const created = await api('POST', '/api/v1/connections', { ...connection, product_id: demo.productId, project_id: demo.projectId });
      expect(created.status).toBe(201);
      const id = created.body.id as string;
      const errors = new Set<string>();
      const done = await until(`the ${c.kind} connection to get past the broken pages`, async () => {
        const r = await api('GET', `/api/v1/connections/${id}`);
        expect(r.status).toBe(200);
        if (r.body.last_error) errors.add(r.body.last_error as string);
        if (r.body.records === OBJECTS && r.body.status === 'active' && r.body.last_error === null) return r.body;
        // The next sync at once rather than at the schedule's (a sync under way makes this one wait or end at once).
        const asked = await api('POST', `/api/v1/connections/${id}/sync`);
        expect([202, 409]).toContain(asked.status);
        await new Promise((r) => setTimeout(r, 500));
        return undefined;
      }, 240_000);
      expect(done).toMatchObject({ status: 'active', records: OBJECTS });
      expect(errors.size).toBeGreaterThan(0);
      for (const error of errors) {
        expect(error.length).toBeLessThanOrEqual(2_000);
        expect(error).not.toMatch(/\u0000/);
      }
      const { rows: [stored] } = await pg.pool.query<{ records: number; objects: number }>(
        `SELECT count(*)::int AS records, count(DISTINCT r.vendor_ids->>$2)::int AS objects FROM records r JOIN batches b ON b.id = r.batch_id WHERE b.connection_id = $1`, [id, c.kind],
      );
      expect(stored).toEqual({ records: OBJECTS, objects: OBJECTS });
      console.log(`${c.kind} hostile pages: ${errors.size} distinct last errors, e.g. ${JSON.stringify([...errors].slice(0, 3))}`);
      expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
      expect(service.child.exitCode).toBeNull();
      expect(statuses.filter((s) => s >= 500)).toEqual([]);
    }, 300_000);
  }
});
