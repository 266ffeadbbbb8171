import { FakeZendesk } from '@loupe/connectors/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledPostgres, demoFrom, serviceOn, type ControlledPostgres, type Demo } from './cluster';
import { until, type Started } from './process';

/**
 * Issue 45's acceptance against `npm start`, through the API only: a Zendesk connection backfills 10,000
 * tickets from a fake Zendesk; the service is killed with SIGKILL mid-backfill and started again; every
 * ticket is then one record and one source, a second sync brings only what changed, a burst of 429s is waited
 * out, and a revoked token shows as failing and is not retried until the credentials change. The token never
 * appears in the service's logs or answers.
 */
const TICKETS = 10_000;
const TOKEN = 'zd-e2e-token-5b7e1c9a';
const NEW_TOKEN = 'zd-e2e-oauth-8c2d4f6e';

describe('a Zendesk connection against npm start, killed mid-backfill', () => {
  let pg: ControlledPostgres;
  let fake: FakeZendesk;
  let demo: Demo;
  const services: Started[] = [];
  const answers: string[] = [];
  beforeAll(async () => {
    pg = await controlledPostgres();
    // The service really waits out Retry-After: the fake measures it on the real clock.
    fake = new FakeZendesk({ email: 'ops@acme.example', apiToken: TOKEN, pageSize: 1000, now: () => Date.now() });
    fake.seed(TICKETS, 1);
    await fake.start();
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
  const counts = async (connectionId: string) => (await pg.pool.query<{ records: number; tickets: number; sources: number }>(
    `SELECT count(*)::int AS records, count(DISTINCT r.vendor_ids->>'zendesk')::int AS tickets, count(s.id)::int AS sources
       FROM records r JOIN batches b ON b.id = r.batch_id LEFT JOIN sources s ON s.record_id = r.id WHERE b.connection_id = $1`, [connectionId])).rows[0]!;

  it(`backfills ${TICKETS.toLocaleString('en')} tickets once each across a SIGKILL, then only the changes; 429s waited out; a revoked token fails until changed`, async () => {
    const first = await start();
    demo = demoFrom(first.output());
    // The service is killed while it reads the comments of the third export page.
    let comments = 0;
    let killed = false;
    fake.onRequest = (path) => {
      if (path.endsWith('comments.json') && ++comments === 2_500 && !killed) {
        killed = true;
        first.child.kill('SIGKILL');
      }
    };
    const created = await api(first, 'POST', '/api/v1/connections', {
      kind: 'zendesk', product_id: demo.productId, project_id: demo.projectId, base_url: fake.url,
      credentials: { email: 'ops@acme.example', api_token: TOKEN }, settings: { start_date: '2025-12-01' },
    });
    expect(created.status).toBe(201);
    const id = created.body.id as string;
    await until('the service to be killed mid-backfill', async () => killed && first.child.signalCode !== null, 300_000);
    fake.onRequest = undefined;
    const atKill = await counts(id);
    expect(atKill.tickets).toBeGreaterThan(0);
    expect(atKill.tickets).toBeLessThan(TICKETS);

    const second = await start();
    // The killed job is retried once its heartbeat stops; "sync now" does not wait for that.
    expect((await api(second, 'POST', `/api/v1/connections/${id}/sync`)).status).toBe(202);
    const done = await until('the backfill to finish', async () => {
      const c = await api(second, 'GET', `/api/v1/connections/${id}`);
      return c.body.records === TICKETS && c.body.last_success_at && c.body;
    }, 600_000);
    expect(done).toMatchObject({ status: 'active', records: TICKETS, last_error: null });
    await until('every record to become a source', async () => (await counts(id)).sources === TICKETS, 600_000);
    expect(await counts(id)).toEqual({ records: TICKETS, tickets: TICKETS, sources: TICKETS });
    console.log(`zendesk e2e: ${TICKETS} tickets; ${atKill.tickets} stored when killed; after the restart ${JSON.stringify(await counts(id))}`);

    // Only the changes: two tickets with a new comment, one with a status change; a burst of 429s on the way.
    const later = Date.parse('2026-12-01T00:00:00Z');
    fake.addComment(11, 'Still failing after the update', later);
    fake.addComment(12, 'Any news?', later + 1000);
    fake.touch(13, 'solved', later + 2000);
    fake.rateLimit(3, 1);
    const before = fake.requests.length;
    expect((await api(second, 'POST', `/api/v1/connections/${id}/sync`)).status).toBe(202);
    const changed = await until('the incremental sync', async () => {
      const c = await api(second, 'GET', `/api/v1/connections/${id}`);
      return c.body.records === TICKETS + 2 && c.body.duplicates >= 1 && c.body;
    }, 120_000);
    expect(changed.status).toBe('active');
    const after = fake.requests.slice(before);
    expect(after.filter((r) => r.status === 429)).toHaveLength(3);
    expect(after.filter((r) => r.path.endsWith('comments.json')).length).toBeLessThan(10);
    expect(fake.earlyRetries).toBe(0);

    // A revoked token: failing, with Zendesk's words, and not retried until the credentials change.
    fake.revoke(401);
    expect((await api(second, 'POST', `/api/v1/connections/${id}/sync`)).status).toBe(202);
    const failing = await until('the connection to fail', async () => {
      const c = await api(second, 'GET', `/api/v1/connections/${id}`);
      return c.body.status === 'failing' && c.body;
    }, 120_000);
    expect(failing.last_error).toContain("401 Couldn't authenticate you");
    const refused = fake.requests.length;
    expect((await api(second, 'POST', `/api/v1/connections/${id}/sync`)).body.error).toBe('CONNECTION_NOT_ACTIVE');
    const { rows: waiting } = await pg.pool.query("SELECT count(*)::int AS n FROM pgboss.job WHERE name = 'connection.sync' AND data->>'connectionId' = $1 AND state IN ('created', 'retry')", [id]);
    expect(waiting[0].n).toBe(0);
    expect(fake.requests.length).toBe(refused);
    fake.restore({ accessToken: NEW_TOKEN });
    expect((await api(second, 'PATCH', `/api/v1/connections/${id}`, { credentials: { access_token: NEW_TOKEN } })).body.status).toBe('active');
    await until('a sync with the new token', async () => fake.requests.slice(refused).some((r) => r.authorization === `Bearer ${NEW_TOKEN}` && r.status === 200) || undefined, 120_000);

    const seen = [...services.map((s) => s.output()), ...answers].join('\n');
    for (const secret of [TOKEN, NEW_TOKEN, Buffer.from(`ops@acme.example/token:${TOKEN}`).toString('base64')]) expect(seen).not.toContain(secret);
  });
});
