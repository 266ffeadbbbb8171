import { loadKeyring, purgeConnectionSlice, realSleep, syncConnection } from '@loupe/connectors';
import { FakeZendesk } from '@loupe/connectors/testing';
import { createLogger, systemClock } from '@loupe/http';
import { createIngestClient, IngestApiError } from '@loupe/ingest-client';
import { QUEUES } from '@loupe/jobs';
import { createSafeFetch } from '@loupe/safe-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './test/harness';

// Connections through the API: credentials go in, never come out; writes need api:write.
let h: Harness;
let fake: FakeZendesk;
const TOKEN = 'zd-api-secret-7f3c9e';
const answers: string[] = [];

beforeAll(async () => {
  h = await startHarness();
  fake = new FakeZendesk({ email: 'ops@acme.example', apiToken: TOKEN, pageSize: 20 });
  fake.seed(30, 2);
  await fake.start();
});
afterAll(async () => {
  await fake.stop();
  await h.close();
});

async function call(method: string, path: string, key: string | undefined, body?: unknown) {
  const headers: Record<string, string> = { 'content-type': 'application/json' };
  if (key) headers['x-api-key'] = key;
  const res = await fetch(`${h.base}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await res.text();
  answers.push(text);
  return { status: res.status, body: JSON.parse(text) as Record<string, any>, headers: res.headers };
}

const create = (overrides: Record<string, unknown> = {}) => call('POST', '/api/v1/connections', h.a.writeKey, {
  kind: 'zendesk', product_id: h.a.productId, project_id: h.a.projectId, base_url: fake.url,
  credentials: { email: 'ops@acme.example', api_token: TOKEN }, settings: { start_date: '2025-12-01' }, ...overrides,
});
const jobs = async (connectionId: string, queue: string = QUEUES.syncConnection) =>
  (await h.t.pool.query("SELECT data FROM pgboss.job WHERE name = $1 AND data->>'connectionId' = $2 AND state = 'created'", [queue, connectionId])).rows.map((r) => r.data);

describe('/api/v1/connections', () => {
  let id: string;

  it('creates a connection (201) without answering its credentials, and queues its backfill', async () => {
    const created = await create();
    expect(created.status).toBe(201);
    id = created.body.id;
    expect(created.headers.get('location')).toBe(`/api/v1/connections/${id}`);
    expect(created.body).toMatchObject({
      kind: 'zendesk', product_id: h.a.productId, project_id: h.a.projectId, base_url: fake.url, settings: { start_date: '2025-12-01' }, status: 'active',
      sync_interval_minutes: 15, last_synced_at: null, last_error: null, records: 0,
    });
    expect(created.body).not.toHaveProperty('credentials');
    expect(await jobs(id)).toEqual([{ workspaceId: h.a.workspaceId, connectionId: id, reason: 'now' }]);
    const listed = await call('GET', '/api/v1/connections', h.a.readKey);
    expect(listed.body.connections.map((c: { id: string }) => c.id)).toEqual([id]);
    expect((await call('GET', `/api/v1/connections/${id}`, h.a.readKey)).body).toEqual(created.body);
  });

  it('refuses what is wrong, naming the field, without echoing credentials', async () => {
    const cases: Array<[Record<string, unknown>, number, string, RegExp]> = [
      [{ kind: 'salesforce' }, 400, 'VALIDATION_ERROR', /kind/],
      [{ credentials: { email: 'ops@acme.example' } }, 400, 'VALIDATION_ERROR', /credentials/],
      [{ credentials: { api_token: TOKEN, email: 'not-an-email' } }, 400, 'VALIDATION_ERROR', /credentials/],
      [{ base_url: 'http://10.0.0.8' }, 400, 'INVALID_REQUEST', /base_url: 10\.0\.0\.8 is refused/],
      [{ base_url: 'http://169.254.169.254' }, 400, 'INVALID_REQUEST', /base_url: 169\.254\.169\.254 is refused/],
      [{ base_url: 'http://acme.zendesk.com' }, 400, 'INVALID_REQUEST', /must be an https URL/],
      [{ base_url: 'https://acme.zendesk.com/api/v2' }, 400, 'INVALID_REQUEST', /no path/],
      [{ project_id: h.b.projectId }, 400, 'UNKNOWN_PROJECT', /project_id/],
      [{ sync_interval_minutes: 1 }, 400, 'VALIDATION_ERROR', /sync_interval_minutes/],
      [{ settings: { start_date: 'yesterday' } }, 400, 'VALIDATION_ERROR', /settings\.start_date/],
    ];
    for (const [body, status, code, message] of cases) {
      const out = await create(body);
      expect([out.status, out.body.error], JSON.stringify(body)).toEqual([status, code]);
      expect(out.body.message).toMatch(message);
    }
    expect((await call('POST', '/api/v1/connections', h.a.readKey, {})).status).toBe(403);
  });

  it('syncs now (202), and refuses to while paused; resuming queues a sync', async () => {
    await h.t.pool.query("DELETE FROM pgboss.job WHERE name = $1 AND data->>'connectionId' = $2", [QUEUES.syncConnection, id]);
    expect((await call('POST', `/api/v1/connections/${id}/sync`, h.a.writeKey)).status).toBe(202);
    expect(await jobs(id)).toHaveLength(1);
    expect((await call('POST', `/api/v1/connections/${id}/sync`, h.a.readKey)).status).toBe(403);
    const paused = await call('POST', `/api/v1/connections/${id}/pause`, h.a.writeKey);
    expect(paused.body.status).toBe('paused');
    const refused = await call('POST', `/api/v1/connections/${id}/sync`, h.a.writeKey);
    expect([refused.status, refused.body.error]).toEqual([409, 'CONNECTION_NOT_ACTIVE']);
    expect(await jobs(id)).toEqual([]); // pausing cancelled the sync that waited
    expect((await call('POST', `/api/v1/connections/${id}/resume`, h.a.writeKey)).body.status).toBe('active');
    expect(await jobs(id)).toHaveLength(1);
  });

  it('shows a revoked token as failing with the vendor\'s message; new credentials make it active and sync it', async () => {
    const keyring = await loadKeyring(h.t.pool, undefined);
    const deps = {
      pool: h.t.pool, boss: h.boss, clock: systemClock, log: createLogger('silent'), keyring, fetch: createSafeFetch({ allowLoopback: true }), sleep: realSleep,
    };
    expect(await syncConnection(deps, id)).toMatchObject({ status: 'synced', records: 30 });
    fake.revoke(403);
    expect(await syncConnection(deps, id)).toMatchObject({ status: 'failing' });
    const failing = await call('GET', `/api/v1/connections/${id}`, h.a.readKey);
    expect(failing.body).toMatchObject({ status: 'failing', records: 30, last_error: expect.stringContaining('403 Forbidden: You do not have access to this page') });
    const refused = await call('POST', `/api/v1/connections/${id}/sync`, h.a.writeKey);
    expect([refused.status, refused.body.error]).toEqual([409, 'CONNECTION_NOT_ACTIVE']);

    const wrong = await call('PATCH', `/api/v1/connections/${id}`, h.a.writeKey, { credentials: { token: 'x' } });
    expect([wrong.status, wrong.body.error, wrong.body.message]).toEqual([400, 'VALIDATION_ERROR', expect.stringMatching(/^credentials: /)]);
    const badSetting = await call('PATCH', `/api/v1/connections/${id}`, h.a.writeKey, { settings: { start_date: 'soon' } });
    expect(badSetting.body.message).toMatch(/^settings\.start_date: /);
    fake.restore({ accessToken: 'zd-oauth-secret-91ab' });
    await h.t.pool.query("DELETE FROM pgboss.job WHERE name = $1 AND data->>'connectionId' = $2", [QUEUES.syncConnection, id]);
    const fixed = await call('PATCH', `/api/v1/connections/${id}`, h.a.writeKey, { credentials: { access_token: 'zd-oauth-secret-91ab' }, sync_interval_minutes: 60 });
    expect(fixed.body).toMatchObject({ status: 'active', last_error: null, sync_interval_minutes: 60 });
    expect(await jobs(id)).toHaveLength(1);
    expect(await syncConnection(deps, id)).toMatchObject({ status: 'synced' });
  });

  it('keeps another workspace out: its key sees no such connection', async () => {
    for (const [method, path] of [['GET', ''], ['PATCH', ''], ['DELETE', ''], ['POST', '/pause'], ['POST', '/resume'], ['POST', '/sync']] as const) {
      const out = await call(method, `/api/v1/connections/${id}${path}`, h.b.writeKey, method === 'PATCH' ? { sync_interval_minutes: 30 } : undefined);
      expect([method, path, out.status]).toEqual([method, path, 404]);
    }
    expect((await call('GET', '/api/v1/connections', h.b.readKey)).body).toEqual({ connections: [] });
  });

  it('deletes a connection with its data: the connection at once, its records and sources in the background', async () => {
    const { rows: before } = await h.t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM records r JOIN batches b ON b.id = r.batch_id WHERE b.connection_id = $1', [id]);
    expect(before[0]!.n).toBe(30);
    const deleted = await call('DELETE', `/api/v1/connections/${id}?with_data=true`, h.a.writeKey);
    expect(deleted.body).toEqual({ id, object: 'connection', deleted: true, data: 'deleting' });
    expect((await call('GET', `/api/v1/connections/${id}`, h.a.readKey)).status).toBe(404);
    expect(await jobs(id, QUEUES.purgeConnection)).toEqual([{ workspaceId: h.a.workspaceId, connectionId: id }]);
    const lifecycle = { pool: h.t.pool, storage: h.storage, clock: systemClock };
    expect(await purgeConnectionSlice(lifecycle, h.a.workspaceId, id, 20)).toEqual({ deleted: 20, more: true });
    expect(await purgeConnectionSlice(lifecycle, h.a.workspaceId, id, 20)).toEqual({ deleted: 10, more: false });
    const { rows: after } = await h.t.pool.query<{ n: number }>('SELECT count(*)::int AS n FROM records r JOIN batches b ON b.id = r.batch_id WHERE b.connection_id = $1', [id]);
    expect(after[0]!.n).toBe(0);

    const kept = await create();
    const keptDelete = await call('DELETE', `/api/v1/connections/${kept.body.id}`, h.a.writeKey);
    expect(keptDelete.body.data).toBe('kept');
  });

  it('is reachable through the typed client, whose sync of a paused connection fails at once with 409', async () => {
    const sleeps: number[] = [];
    const client = createIngestClient({ baseUrl: h.base, apiKey: h.a.writeKey, sleep: async (ms) => void sleeps.push(ms) });
    const made = await client.createConnection({
      kind: 'zendesk', product_id: h.a.productId, project_id: h.a.projectId, base_url: 'https://acme-client.zendesk.com', credentials: { access_token: 'client-secret-55' },
    });
    expect(made).toMatchObject({ status: 'active', base_url: 'https://acme-client.zendesk.com' });
    expect(JSON.stringify(await client.listConnections())).not.toContain('client-secret-55');
    expect((await client.updateConnection(made.id, { sync_interval_minutes: 30 })).sync_interval_minutes).toBe(30);
    expect((await client.pauseConnection(made.id)).status).toBe('paused');
    const refused = await client.syncConnection(made.id).catch((e: unknown) => e);
    expect(refused).toBeInstanceOf(IngestApiError);
    expect((refused as IngestApiError).status).toBe(409);
    expect(sleeps).toEqual([]);
    expect((await client.resumeConnection(made.id)).status).toBe('active');
    await client.syncConnection(made.id);
    expect(await client.deleteConnection(made.id)).toEqual({ id: made.id, object: 'connection', deleted: true, data: 'kept' });
    expect(((await client.getConnection(made.id).catch((e: unknown) => e)) as IngestApiError).status).toBe(404);
  });

  it('never answers the credentials, in any answer, nor in the workspace\'s export', async () => {
    const exported = await fetch(`${h.base}/api/v1/export`, { headers: { 'x-api-key': h.a.readKey } });
    expect(exported.status).toBe(200);
    answers.push(await exported.text());
    const all = answers.join('\n');
    expect(all).not.toContain(TOKEN);
    expect(all).not.toContain('zd-oauth-secret-91ab');
  });
});

describe('/api/v1/connections: Slack', () => {
  const SLACK_TOKEN = 'xoxb-1111-2222-slacksecret3c9e';
  const slack = (overrides: Record<string, unknown> = {}) => call('POST', '/api/v1/connections', h.a.writeKey, {
    kind: 'slack', product_id: h.a.productId, project_id: h.a.projectId, credentials: { token: SLACK_TOKEN },
    settings: { channel_ids: ['C0FEEDBACK', 'G0VIPCUSTS'], start_date: '2026-01-01' }, ...overrides,
  });

  it('creates a Slack connection (201) on https://slack.com when no base_url is given, without answering its token', async () => {
    const created = await slack();
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'slack', base_url: 'https://slack.com', settings: { channel_ids: ['C0FEEDBACK', 'G0VIPCUSTS'], start_date: '2026-01-01' }, status: 'active', records: 0,
    });
    expect(created.body).not.toHaveProperty('credentials');
    expect(await jobs(created.body.id)).toEqual([{ workspaceId: h.a.workspaceId, connectionId: created.body.id, reason: 'now' }]);
    const { rows } = await h.t.pool.query('SELECT * FROM connections WHERE id = $1', [created.body.id]);
    expect(JSON.stringify(rows)).not.toContain(SLACK_TOKEN);
    const patched = await call('PATCH', `/api/v1/connections/${created.body.id}`, h.a.writeKey, { settings: { channel_ids: [] } });
    expect([patched.status, patched.body.error, patched.body.message]).toEqual([400, 'VALIDATION_ERROR', 'settings.channel_ids: name at least one channel']);
    expect((await call('DELETE', `/api/v1/connections/${created.body.id}`, h.a.writeKey)).status).toBe(200);
  });

  it('is made through the typed client too, whose types know kind slack', async () => {
    const client = createIngestClient({ baseUrl: h.base, apiKey: h.a.writeKey, sleep: async () => {} });
    const made = await client.createConnection({
      kind: 'slack', product_id: h.a.productId, project_id: h.a.projectId, credentials: { token: SLACK_TOKEN }, settings: { channel_ids: ['C0CLIENT1'], include_bots: true },
    });
    expect(made).toMatchObject({ kind: 'slack', base_url: 'https://slack.com', settings: { channel_ids: ['C0CLIENT1'], include_bots: true } });
    expect(JSON.stringify(await client.getConnection(made.id))).not.toContain(SLACK_TOKEN);
    await client.deleteConnection(made.id);
  });

  it('refuses a Slack connection without channels, or with a token that is not one, naming the field and never echoing the token', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ settings: { start_date: '2026-01-01' } }, /^settings\.channel_ids: is required: the ids of the channels to bring$/],
      [{ settings: undefined }, /^settings: is required/],
      [{ settings: { channel_ids: [] } }, /settings\.channel_ids: name at least one channel/],
      [{ settings: { channel_ids: ['#general'] } }, /settings\.channel_ids\[0\]: must be a channel id such as C0123ABCD/],
      [{ credentials: { token: 'not-a-slack-token-slacksecret3c9e' } }, /credentials\.token: must be a Slack bot token/],
      [{ credentials: { token: SLACK_TOKEN, api_token: 'x' } }, /credentials: unknown field "api_token"/],
      [{ base_url: 'http://10.0.0.8' }, /base_url: 10\.0\.0\.8 is refused/],
    ];
    for (const [body, message] of cases) {
      const out = await slack(body);
      expect([out.status, JSON.stringify(body)]).toEqual([400, JSON.stringify(body)]);
      expect(out.body.message).toMatch(message);
    }
    expect(answers.join('\n')).not.toContain('slacksecret3c9e');
  });
});

describe('/api/v1/connections: Intercom', () => {
  const INTERCOM_TOKEN = 'dG9rOmljLXNlY3JldC04ZDJm';
  const intercom = (overrides: Record<string, unknown> = {}) => call('POST', '/api/v1/connections', h.a.writeKey, {
    kind: 'intercom', product_id: h.a.productId, project_id: h.a.projectId, credentials: { access_token: INTERCOM_TOKEN },
    settings: { start_date: '2026-01-01', page_size: 100 }, ...overrides,
  });

  it('creates an Intercom connection (201) on https://api.intercom.io when no base_url is given, or on a regional one, without answering its token', async () => {
    const created = await intercom();
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'intercom', base_url: 'https://api.intercom.io', settings: { start_date: '2026-01-01', page_size: 100 }, status: 'active', records: 0, last_error: null,
    });
    expect(created.body).not.toHaveProperty('credentials');
    expect(await jobs(created.body.id)).toEqual([{ workspaceId: h.a.workspaceId, connectionId: created.body.id, reason: 'now' }]);
    expect((await call('GET', `/api/v1/connections/${created.body.id}`, h.a.readKey)).body).toEqual(created.body);
    const { rows } = await h.t.pool.query('SELECT * FROM connections WHERE id = $1', [created.body.id]);
    expect(JSON.stringify(rows)).not.toContain(INTERCOM_TOKEN);
    const eu = await intercom({ base_url: 'https://api.eu.intercom.io' });
    expect([eu.status, eu.body.base_url]).toEqual([201, 'https://api.eu.intercom.io']);
    const patched = await call('PATCH', `/api/v1/connections/${created.body.id}`, h.a.writeKey, { settings: { page_size: 151 } });
    expect([patched.status, patched.body.error]).toEqual([400, 'VALIDATION_ERROR']);
    expect(patched.body.message).toMatch(/^settings\.page_size: /);
    for (const id of [created.body.id, eu.body.id]) expect((await call('DELETE', `/api/v1/connections/${id}`, h.a.writeKey)).status).toBe(200);
  });

  it('refuses an Intercom connection with a wrong token or setting, naming the field and never echoing the token', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ credentials: {} }, /credentials\.access_token/],
      [{ credentials: { access_token: '' } }, /credentials\.access_token/],
      [{ credentials: { access_token: INTERCOM_TOKEN, api_token: INTERCOM_TOKEN } }, /credentials: unknown field "api_token"/],
      [{ settings: { start_date: 'last week' } }, /settings\.start_date/],
      [{ settings: { page_size: 0 } }, /settings\.page_size/],
      [{ settings: { tags: ['x'] } }, /settings: unknown field "tags"/],
      [{ base_url: 'http://10.0.0.8' }, /base_url: 10\.0\.0\.8 is refused/],
      [{ base_url: 'https://api.intercom.io/conversations' }, /base_url: give the address alone/],
    ];
    for (const [body, message] of cases) {
      const out = await intercom(body);
      expect([out.status, JSON.stringify(body)]).toEqual([400, JSON.stringify(body)]);
      expect(out.body.message).toMatch(message);
    }
    expect(answers.join('\n')).not.toContain(INTERCOM_TOKEN);
  });
});

describe('/api/v1/connections: Gong', () => {
  const GONG_KEY = 'gongkey7f3a91c2';
  const GONG_SECRET = 'gongsecret-5e8b2d4c6a1f';
  const gong = (overrides: Record<string, unknown> = {}) => call('POST', '/api/v1/connections', h.a.writeKey, {
    kind: 'gong', product_id: h.a.productId, project_id: h.a.projectId, credentials: { access_key: GONG_KEY, access_key_secret: GONG_SECRET },
    settings: { start_date: '2026-01-01', workspace_id: '5410000000000000001', include_media: false }, ...overrides,
  });

  it('creates a Gong connection (201) on https://api.gong.io when no base_url is given, or on the customer\'s OAuth address, never answering its key', async () => {
    const created = await gong();
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      kind: 'gong', base_url: 'https://api.gong.io', settings: { start_date: '2026-01-01', workspace_id: '5410000000000000001', include_media: false },
      status: 'active', records: 0, last_error: null,
    });
    expect(created.body).not.toHaveProperty('credentials');
    expect(await jobs(created.body.id)).toEqual([{ workspaceId: h.a.workspaceId, connectionId: created.body.id, reason: 'now' }]);
    expect((await call('GET', `/api/v1/connections/${created.body.id}`, h.a.readKey)).body).toEqual(created.body);
    const { rows } = await h.t.pool.query('SELECT * FROM connections WHERE id = $1', [created.body.id]);
    for (const secret of [GONG_KEY, GONG_SECRET]) expect(JSON.stringify(rows)).not.toContain(secret);
    const oauth = await gong({ base_url: 'https://us-4982.api.gong.io', credentials: { access_token: 'gong-oauth-9a7c' } });
    expect([oauth.status, oauth.body.base_url]).toEqual([201, 'https://us-4982.api.gong.io']);
    const patched = await call('PATCH', `/api/v1/connections/${created.body.id}`, h.a.writeKey, { settings: { delay_minutes: -1 } });
    expect([patched.status, patched.body.error]).toEqual([400, 'VALIDATION_ERROR']);
    expect(patched.body.message).toMatch(/^settings\.delay_minutes: /);
    const badKey = await call('PATCH', `/api/v1/connections/${created.body.id}`, h.a.writeKey, { credentials: { access_key: GONG_KEY } });
    expect([badKey.status, badKey.body.message]).toEqual([400, expect.stringMatching(/credentials/)]);
    for (const id of [created.body.id, oauth.body.id]) expect((await call('DELETE', `/api/v1/connections/${id}`, h.a.writeKey)).status).toBe(200);
  });

  it('refuses a Gong connection with wrong credentials or settings, naming the field and never echoing the secret', async () => {
    const cases: Array<[Record<string, unknown>, RegExp]> = [
      [{ credentials: {} }, /credentials/],
      [{ credentials: { access_key: GONG_KEY } }, /credentials/],
      [{ credentials: { access_key: GONG_KEY, access_key_secret: '' } }, /credentials/],
      [{ credentials: { access_key: GONG_KEY, access_key_secret: GONG_SECRET, api_token: 'x' } }, /credentials/],
      [{ settings: { start_date: '2026-13-01' } }, /settings\.start_date/],
      [{ settings: { workspace_id: 'sales team' } }, /settings\.workspace_id: must be a Gong workspace id/],
      [{ settings: { include_media: 'yes' } }, /settings\.include_media/],
      [{ settings: { channel_ids: ['C0123ABCD'] } }, /settings: unknown field "channel_ids"/],
      [{ base_url: 'http://169.254.169.254' }, /base_url: 169\.254\.169\.254 is refused/],
      [{ base_url: 'https://api.gong.io/v2' }, /base_url: give the address alone/],
    ];
    for (const [body, message] of cases) {
      const out = await gong(body);
      expect([out.status, JSON.stringify(body)]).toEqual([400, JSON.stringify(body)]);
      expect(out.body.message).toMatch(message);
    }
    const seen = answers.join('\n');
    for (const secret of [GONG_KEY, GONG_SECRET]) expect(seen).not.toContain(secret);
  });
});
