import { createHash } from 'node:crypto';
import { createApiKey } from '@loupe/api-keys';
import { createPrismaClient } from '@loupe/db';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledPostgres, demoFrom, serviceOn, type ControlledPostgres, type Demo } from './cluster';
import { admin, type Started } from './process';
import { WebPerson } from './web-person';

// Issue 41's findings reproduced against the real `npm start` process with its default limits, as the
// audit reproduced them: each must now leave every other client's answers as they would be alone.
let pg: ControlledPostgres;
let service: Started;
let demo: Demo;

beforeAll(async () => {
  pg = await controlledPostgres();
  service = await serviceOn(pg.url);
  demo = demoFrom(service.output());
}, 180_000);

afterAll(async () => {
  await service?.stop();
  await pg?.destroy();
});

const PER_IP_LIMIT = 2000;

/** Runs `loop` in `n` parallel loops until `until()` says stop; each loop's answers, in order. */
async function loops<T>(n: number, until: () => boolean, loop: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = [];
  await Promise.all(Array.from({ length: n }, async (_, i) => {
    while (!until()) out.push(await loop(i));
  }));
  return out;
}

describe('issue 41, against npm start', () => {
  it('a client_id with a NUL character, sent 20 at a time from one address, fails none of another client\'s requests, and its address is limited within its minute', async () => {
    const db = createPrismaClient(pg.pool);
    const keys = await Promise.all(Array.from({ length: 4 }, async (_, i) =>
      (await createApiKey(db, { workspaceId: demo.workspaceId, name: `victim ${i}`, permissions: ['api:read', 'mcp:read'], defaultProductId: demo.productId, servicePrefix: 'loupe_' })).key));
    const started = Date.now();
    let limited = 0;
    // At least 8 s (the audit's run), and until the attacker's address has been limited a while.
    const done = () => Date.now() - started > 40_000 || (Date.now() - started > 8_000 && limited > 200);
    const attacker = loops(20, done, async () => {
      const sent = Math.floor(Date.now() / 60_000);
      const res = await fetch(`${service.url}/oauth/token`, {
        method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': '203.0.113.7' },
        body: 'grant_type=authorization_code&code=x&client_id=%00',
      });
      const body = (await res.json()) as { error: string; error_description: string };
      if (res.status === 429) limited++;
      return { status: res.status, error: body.error, description: body.error_description, sent, window: Math.floor(Date.now() / 60_000) };
    });
    // Each victim paces itself under its key's 10 requests a second, from its own address.
    const victims = loops(4, done, async (i) => {
      const at = Date.now();
      const res = await fetch(`${service.url}/api/v1/ingest/batches`, { headers: { 'x-api-key': keys[i]!, 'x-forwarded-for': `198.51.100.${i + 1}` } });
      const text = await res.text();
      await new Promise((r) => setTimeout(r, Math.max(0, 130 - (Date.now() - at))));
      return { status: res.status, text: res.status === 200 ? '' : text };
    });
    // And an MCP client, whose credential is read by the statement that counts the limits.
    const mcp = loops(1, done, async () => {
      const res = await fetch(`${service.url}/api/mcp`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': keys[0]!, 'x-forwarded-for': '198.51.100.50' },
        body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_products', arguments: {} } }),
      });
      const text = await res.text();
      const result = (JSON.parse(text) as { result?: { isError?: boolean } }).result;
      const ok = result !== undefined && result.isError !== true;
      await new Promise((r) => setTimeout(r, 200));
      return { status: res.status, ok, text: ok ? '' : text };
    });
    const [attacks, served, calls] = await Promise.all([attacker, victims, mcp]);

    const byStatus = (xs: { status: number }[]) => xs.reduce<Record<number, number>>((c, x) => ({ ...c, [x.status]: (c[x.status] ?? 0) + 1 }), {});
    const windows = new Set(attacks.map((a) => a.window)).size;
    console.log(`attacker: ${attacks.length} requests in ${((Date.now() - started) / 1000).toFixed(1)} s over ${windows} minute window(s) ${JSON.stringify(byStatus(attacks))}; ` +
      `victims: ${served.length} requests ${JSON.stringify(byStatus(served))}; MCP: ${calls.length} calls ${JSON.stringify(byStatus(calls))}`);

    expect(served.filter((v) => v.status !== 200)).toEqual([]);
    expect(served.length).toBeGreaterThan(100);
    expect(calls.filter((c) => c.status !== 200 || !c.ok)).toEqual([]);
    // The attacker is told what is wrong with its client_id, and each minute its address gets at most the limit.
    expect(Object.keys(byStatus(attacks)).sort()).toEqual(['400', '429']);
    const refused = attacks.find((a) => a.status === 400)!;
    expect(refused).toMatchObject({ error: 'invalid_request', description: 'client_id must be printable ASCII (RFC 6749, Appendix A.1); it holds U+0000 at position 0' });
    // The server counts a request in the minute it arrives, between its sending and its answer: only a
    // request sent and answered in the same minute is known to be in that minute (20 in flight straddle
    // each boundary; counted by their answers, a minute once held 2,007).
    for (const w of new Set(attacks.map((a) => a.window))) {
      expect(attacks.filter((a) => a.sent === w && a.window === w && a.status === 400).length).toBeLessThanOrEqual(PER_IP_LIMIT);
    }
    expect(attacks.find((a) => a.status === 429)!.error).toBe('rate_limit_exceeded');
  });

  it('NUL, overlong and malformed values in every field that reaches a shared statement fail only their own request, while another tenant\'s requests run', async () => {
    const db = createPrismaClient(pg.pool);
    const victimKey = (await createApiKey(db, { workspaceId: demo.workspaceId, name: 'victim', permissions: ['api:read', 'mcp:read'], defaultProductId: demo.productId, servicePrefix: 'loupe_' })).key;
    const attackerKeys = await Promise.all(Array.from({ length: 3 }, async (_, i) =>
      (await createApiKey(db, { workspaceId: demo.workspaceId, name: `attacker ${i}`, permissions: ['mcp:read'], defaultProductId: demo.productId, servicePrefix: 'loupe_' })).key));
    const mcp = (key: string, ip: string, name: string, args: Record<string, unknown>) => fetch(`${service.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key, 'x-forwarded-for': ip },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { result?: { isError?: boolean; structuredContent?: any; content: Array<{ text: string }> } } }));
    const sources = (await mcp(victimKey, '198.51.100.70', 'find_sources', {})).body.result!.structuredContent.items as Array<{ id: string }>;
    expect(sources.length).toBeGreaterThan(0);
    const token = (ip: string, body: string) => fetch(`${service.url}/oauth/token`, {
      method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip }, body,
    }).then(async (r) => ({ status: r.status, body: (await r.json()) as { error?: string } }));
    const hostile: Array<[string, (i: number) => Promise<{ status: number; refused: boolean }>]> = [
      ...['%00', `cli_${'x'.repeat(3000)}`, 'cli_%C3%A9', 'a%0Ab', `https%3A%2F%2Fevil.test%2F${'%00'.repeat(4)}`].flatMap((clientId) => ['authorization_code', 'refresh_token'].map((grant) =>
        [`${grant} client_id=${clientId.slice(0, 20)}`, (i: number) => token(`203.0.113.${20 + (i % 3)}`, `grant_type=${grant}&code=x&refresh_token=loupe_rt_x&client_id=${clientId}`)
          .then((r) => ({ status: r.status, refused: r.status === 400 && r.body.error === 'invalid_request' }))] as [string, (i: number) => Promise<{ status: number; refused: boolean }>])),
      ...['src_\u0000', '\u0000', `src_${'\u0000'.repeat(100)}`, 'src_ sp ace', 'src_é', 'x'.repeat(5000)].map((id) =>
        [`read_source ${JSON.stringify(id.slice(0, 12))}`, (i: number) => mcp(attackerKeys[i % 3]!, `203.0.113.${30 + (i % 3)}`, 'read_source', { source_id: id })
          .then((r) => ({ status: r.status, refused: r.status === 200 && r.body.result?.isError === true }))] as [string, (i: number) => Promise<{ status: number; refused: boolean }>]),
    ];
    const started = Date.now();
    const done = () => Date.now() - started > 6_000;
    let n = 0;
    const attacks = loops(12, done, async () => {
      const i = n++;
      const [what, send] = hostile[i % hostile.length]!;
      return { what, ...(await send(i)) };
    });
    const victims = loops(3, done, async (i) => {
      const at = Date.now();
      const ip = `198.51.100.${80 + i}`;
      const answer = i === 0
        ? await fetch(`${service.url}/api/v1/ingest/batches`, { headers: { 'x-api-key': victimKey, 'x-forwarded-for': ip } }).then(async (r) => ({ status: r.status, ok: r.status === 200, text: await r.text() }))
        : await mcp(victimKey, ip, i === 1 ? 'read_source' : 'get_products', i === 1 ? { source_id: sources[0]!.id } : {})
          .then((r) => ({ status: r.status, ok: r.status === 200 && r.body.result !== undefined && r.body.result.isError !== true, text: JSON.stringify(r.body).slice(0, 300) }));
      await new Promise((r) => setTimeout(r, Math.max(0, 150 - (Date.now() - at))));
      return answer;
    });
    const [attacked, served] = await Promise.all([attacks, victims]);
    const byWhat = new Map<string, Record<string, number>>();
    for (const a of attacked) {
      const row = byWhat.get(a.what) ?? {};
      row[a.refused ? 'refused' : String(a.status)] = (row[a.refused ? 'refused' : String(a.status)] ?? 0) + 1;
      byWhat.set(a.what, row);
    }
    console.log(`hostile values beside another tenant, ${attacked.length} hostile requests in 6 s:\n${[...byWhat].map(([w, c]) => `  ${w.padEnd(44)} ${JSON.stringify(c)}`).join('\n')}\n` +
      `  victims: ${served.length} requests, ${served.filter((v) => v.ok).length} answered`);
    expect(served.filter((v) => !v.ok)).toEqual([]);
    // Each hostile request is refused for what it carries (or limited: a key's hour, an address's minute), never a 500.
    expect(attacked.filter((a) => !a.refused && a.status !== 429)).toEqual([]);
  });

  it('the diff page of two 1 MB versions of 100,000 distinct lines answers within 2 s, /healthz under 100 ms throughout', async () => {
    const db = createPrismaClient(pg.pool);
    const key = (await createApiKey(db, { workspaceId: demo.workspaceId, name: 'notes', permissions: ['mcp:read', 'mcp:write'], defaultProductId: demo.productId, servicePrefix: 'loupe_' })).key;
    const call = async (name: string, args: Record<string, unknown>) => (await (await fetch(`${service.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key, 'x-forwarded-for': '198.51.100.120' },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name, arguments: args } }),
    })).json()) as { result: { isError?: boolean; structuredContent: { id: string; version: number } } };
    const lines = (tag: string) => Array.from({ length: 100_000 }, (_, i) => `${tag}${String(i).padStart(6, '0')}`).join('\n').slice(0, 1024 * 1024);
    const created = await call('create_shaping_note', { product_id: demo.productId, title: 'Two big versions', content: lines('a') });
    expect(created.result.isError).not.toBe(true);
    const noteId = created.result.structuredContent.id;
    expect((await call('update_shaping_note', { note_id: noteId, content: lines('b') })).result.isError).not.toBe(true);
    await admin(pg.url, 'member', 'add', '--workspace', demo.workspaceId, '--email', 'notes41@acme.test', '--role', 'member');
    const person = new WebPerson(service.url, pg.pool, 'notes41@acme.test', '198.51.100.121');
    await person.signInToAccount();

    let probing = true;
    const health: number[] = [];
    const prober = (async () => {
      while (probing) {
        const at = performance.now();
        await (await fetch(`${service.url}/healthz`)).arrayBuffer();
        health.push(performance.now() - at);
        await new Promise((r) => setTimeout(r, 10));
      }
    })();
    await new Promise((r) => setTimeout(r, 200));
    const at = performance.now();
    const res = await person.get(`/account/w/${demo.workspaceId}/notes/${noteId}/diff?from=1&to=2`);
    const html = await res.text();
    const ms = performance.now() - at;
    await new Promise((r) => setTimeout(r, 200));
    probing = false;
    await prober;
    const slowest = Math.max(...health);
    console.log(`diff page of two 1 MB versions against npm start: ${res.status} in ${ms.toFixed(0)} ms; /healthz probed ${health.length} times, slowest ${slowest.toFixed(1)} ms`);
    expect(res.status).toBe(200);
    expect(html).toContain('These two versions are too different to compare line by line.');
    expect(ms).toBeLessThan(2_000);
    expect(slowest).toBeLessThan(100);
  });

  it('a 100-message batch under 2025-06-18 gets a JSON-RPC error and runs nothing; under 2025-03-26 each message counts against the key', async () => {
    const db = createPrismaClient(pg.pool);
    const key = (await createApiKey(db, { workspaceId: demo.workspaceId, name: 'batches', permissions: ['mcp:read'], defaultProductId: demo.productId, servicePrefix: 'loupe_' })).key;
    const batch = (n: number) => Array.from({ length: n }, (_, i) => ({ jsonrpc: '2.0', id: i + 1, method: 'tools/call', params: { name: 'get_products', arguments: {} } }));
    const post = (version: string, body: unknown) => fetch(`${service.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key, 'mcp-protocol-version': version, 'x-forwarded-for': '198.51.100.130' },
      body: JSON.stringify(body),
    });
    // The key's hourly count, as the service keeps it (libs/http counters: mcp-key:<sha256 of the key>).
    const counter = `mcp-key:${createHash('sha256').update(key).digest('base64url')}`;
    const counted = async () => (await pg.pool.query<{ n: number }>('SELECT coalesce(sum(count), 0)::int AS n FROM rate_limit_counters WHERE key = $1', [counter])).rows[0]!.n;
    await (await post('2025-06-18', { jsonrpc: '2.0', id: 1, method: 'tools/call', params: { name: 'get_products', arguments: {} } })).arrayBuffer();
    const before = await counted();
    const charged = async () => (await pg.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM credit_ledger WHERE workspace_id = $1 AND kind = 'charge'", [demo.workspaceId])).rows[0]!.n;
    const chargesBefore = await charged();
    const refused = await post('2025-06-18', batch(100));
    const body = (await refused.json()) as { error: { code: number; message: string }; id: null };
    expect([refused.status, body.error.code, body.id]).toEqual([400, -32600, null]);
    expect(body.error.message).toMatch(/batches are not supported in protocol version 2025-06-18/);
    const after = await counted();
    const chargesAfter = await charged();
    const allowed = await post('2025-03-26', batch(20));
    const answers = (await allowed.json()) as Array<{ id: number; result?: unknown }>;
    const last = await counted();
    console.log(`the key's count: ${before} → ${after} after a refused batch of 100 (charges ${chargesBefore} → ${chargesAfter}) → ${last} after a batch of 20 under 2025-03-26`);
    expect(after - before).toBe(1); // the refused batch counts as one request
    expect(chargesAfter).toBe(chargesBefore); // and nothing in it ran
    expect(answers.filter((a) => a.result !== undefined)).toHaveLength(20);
    expect(last - after).toBe(20); // each message of the batch
  });

  it('erasing cust-1 leaves cust-2\'s call exactly as it was, though both are "Customer"; a one-character id is refused', async () => {
    const db = createPrismaClient(pg.pool);
    const key = (await createApiKey(db, { workspaceId: demo.workspaceId, name: 'privacy', permissions: ['api:read', 'api:write'], defaultProductId: demo.productId, servicePrefix: 'loupe_' })).key;
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${service.url}${path}`, {
        method, headers: { 'x-api-key': key, 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.140' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as any };
    };
    const until = async (what: string, check: () => Promise<boolean>) => {
      for (const deadline = Date.now() + 90_000; !(await check());) {
        if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
        await new Promise((r) => setTimeout(r, 250));
      }
    };
    const call = (id: string, text: string) => ({
      _type: 'call_transcription', _schema_version: '1.0.0', _event_at: '2026-11-20T10:00:00Z', _vendor_ids: { gong: `call41-${id}` },
      _product_id: demo.productId, _project_ids: [demo.projectId], _nature: 'evidence',
      _participants: [{ id, name: 'Customer', role: 'external' }],
      data: { title: 'Support call', transcript: [{ speaker: 'Customer', text }] },
    });
    const sent = await api('POST', '/api/v1/ingest', [call('cust-1', 'My invoices never arrive by email.'), call('cust-2', 'The mobile app logs me out every morning.')]);
    expect(sent.status).toBe(202);
    await until('both sources', async () => (await pg.pool.query("SELECT 1 FROM sources s JOIN records r ON r.id = s.record_id WHERE r.batch_id = $1", [sent.body.batchId])).rowCount === 2);
    // Everything stored of cust-2's call: the record, its source and the source's segments.
    const snapshot = async (participant: string) => (await pg.pool.query<{ j: string }>(
      `SELECT json_build_object('record', json_build_object('data', r.data, 'participants', r.participants, 'vendor_ids', r.vendor_ids),
                                'source', json_build_object('title', s.title, 'participants', s.participants),
                                'segments', (SELECT json_agg(json_build_object('speaker', g.speaker, 'text', g.text) ORDER BY g.position) FROM source_segments g WHERE g.source_id = s.id))::text AS j
         FROM records r JOIN sources s ON s.record_id = r.id WHERE r.batch_id = $1 AND r.participants @> $2::jsonb`,
      [sent.body.batchId, JSON.stringify([{ id: participant }])])).rows[0]?.j;
    const before = await snapshot('cust-2');
    expect(before).toContain('The mobile app logs me out every morning.');

    const short = await api('POST', '/api/v1/erasures', { participant_id: '7' });
    expect(short.status).toBe(400);
    expect(short.body.message).toMatch(/^participant_id: must be at least 3 characters/);

    const asked = await api('POST', '/api/v1/erasures', { participant_id: 'cust-1' });
    expect(asked.status).toBe(202);
    await until('the erasure to complete', async () => (await api('GET', `/api/v1/erasures/${asked.body.id}`)).body.status === 'complete');
    expect(await snapshot('cust-2')).toBe(before);
    const { rows: [erased] } = await pg.pool.query<{ text: string }>(
      "SELECT string_agg(g.speaker || ': ' || g.text, ' | ') AS text FROM source_segments g JOIN sources s ON s.id = g.source_id JOIN records r ON r.id = s.record_id WHERE r.batch_id = $1 AND r.vendor_ids->>'gong' = 'call41-cust-1'",
      [sent.body.batchId]);
    console.log(`after erasing cust-1: its call reads "${erased!.text}"; cust-2's call is unchanged`);
    expect(erased!.text).toBe('[erased]: [erased]');
  });

  it('a batch holding a call and its cancellation, and extreme offsets, are answered at once and cost nothing they did not run', async () => {
    const db = createPrismaClient(pg.pool);
    const key = (await createApiKey(db, { workspaceId: demo.workspaceId, name: 'cancel', permissions: ['mcp:read'], defaultProductId: demo.productId, servicePrefix: 'loupe_' })).key;
    const post = (body: unknown) => fetch(`${service.url}/api/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', 'x-api-key': key, 'mcp-protocol-version': '2025-03-26', 'x-forwarded-for': '198.51.100.150' },
      body: JSON.stringify(body),
      signal: AbortSignal.timeout(10_000),
    });
    const charged = async () => (await pg.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM credit_ledger WHERE workspace_id = $1 AND kind = 'charge'", [demo.workspaceId])).rows[0]!.n;
    const call = (id: number, name: string, args: Record<string, unknown>) => ({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });
    const cancel = (requestId: number) => ({ jsonrpc: '2.0', method: 'notifications/cancelled', params: { requestId, reason: 'stopped' } });
    const before = await charged();
    let at = performance.now();
    const both = await post([call(1, 'get_products', {}), call(2, 'get_products', {}), cancel(2)]);
    const answers = (await both.json()) as Array<{ id: number }>;
    const bothMs = performance.now() - at;
    at = performance.now();
    const alone = await post([call(3, 'get_products', {}), cancel(3)]);
    await alone.arrayBuffer();
    const aloneMs = performance.now() - at;
    const after = await charged();
    at = performance.now();
    const deep = await post(call(4, 'find_sources', { query: 'export invoices', offset: 1e9 }));
    const deepBody = (await deep.json()) as { result: { isError: boolean; content: Array<{ text: string }> } };
    const deepMs = performance.now() - at;
    console.log(`a call and another cancelled: ${both.status} in ${bothMs.toFixed(0)} ms; a call cancelled alone: ${alone.status} in ${aloneMs.toFixed(0)} ms; charges +${after - before}; find_sources offset 1e9: ${deepMs.toFixed(0)} ms`);
    expect([both.status, answers.map((a) => a.id)]).toEqual([200, [1]]);
    expect(alone.status).toBe(202);
    expect(after - before).toBe(1); // only the call that ran
    expect(deepBody.result.isError).toBe(true);
    expect(deepBody.result.content[0]!.text).toMatch(/offset: must be at most 10,000/);
  });
});
