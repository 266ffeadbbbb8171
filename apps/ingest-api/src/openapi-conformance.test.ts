import { Ajv2020 } from 'ajv/dist/2020.js';
import { createRateLimiter } from '@loupe/http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { del, get, post, rec, recordsOf, sourceOf, startHarness, type Harness } from './test/harness';

// Every status the API answers, produced for real, validated against the published OpenAPI document.
let h: Harness;
let doc: Record<string, any>;
let ajv: Ajv2020;
beforeAll(async () => {
  h = await startHarness();
  doc = (await (await fetch(`${h.base}/api/v1/openapi.json`)).json()) as Record<string, any>;
  ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
});
afterAll(() => h.close());

const pointer = (...parts: string[]) => parts.map((p) => p.replace(/~/g, '~0').replace(/\//g, '~1')).join('/');
const seen: string[] = [];

/** Checks the documented schema of (path, method, status) accepts `body`. */
function conforms(path: string, method: string, status: number, body: unknown) {
  const response = doc.paths[path]?.[method]?.responses?.[String(status)];
  expect(response, `${method.toUpperCase()} ${path} ${status} is documented`).toBeDefined();
  const validate = ajv.getSchema(`openapi.json#/${pointer('paths', path, method, 'responses', String(status), 'content', 'application/json', 'schema')}`)!;
  expect(validate(body), `${method.toUpperCase()} ${path} ${status}: ${ajv.errorsText(validate.errors)}\n${JSON.stringify(body).slice(0, 400)}`).toBe(true);
  seen.push(`${method} ${path} ${status}`);
}

describe('the published OpenAPI document', () => {
  // Limiters on fixed clocks: two requests never fall in two windows, however slow the machine.
  it('describes every answer of POST /api/v1/ingest', async () => {
    const path = '/api/v1/ingest';
    const check = async (r: { status: number; body: unknown }, status: number) => {
      expect(r.status).toBe(status);
      conforms(path, 'post', status, r.body);
    };
    await check(await post(h.base, h.a.writeKey, [rec(h.a), rec(h.a, { _type: 'fax' })]), 202);
    await check(await post(h.base, h.a.writeKey, [rec(h.a, { _type: 'fax' })]), 400);
    await check(await post(h.base, h.a.writeKey, [rec(h.a, { _product_id: 'prod_nope' })]), 400);
    await check(await post(h.base, h.a.writeKey, null, { raw: '[{' }), 400);
    await check(await post(h.base, undefined, [rec(h.a)]), 401);
    await check(await post(h.base, h.revokedKey, [rec(h.a)]), 401);
    await check(await post(h.base, h.a.readKey, [rec(h.a)]), 403);
    await check(await post(h.base, h.a.writeKey, null, { raw: 'x'.repeat(5 * 1024 * 1024 + 1) }), 413);
    await check(await post(h.base, h.a.writeKey, null, { raw: 'hello', contentType: 'text/plain' }), 415);
    const body = JSON.stringify([rec(h.a)]);
    await post(h.base, h.a.writeKey, null, { raw: body, headers: { 'idempotency-key': 'k-doc' } });
    await check(await post(h.base, h.a.writeKey, [rec(h.a)], { headers: { 'idempotency-key': 'k-doc' } }), 422);
    await h.t.pool.query(
      `INSERT INTO idempotency_keys (workspace_id, key, request_hash, state, created_at, expires_at)
       VALUES ($1, 'k-busy-doc', 'x', 'in_flight', now(), now() + interval '1 day')`, [h.a.workspaceId]);
    const busy = await post(h.base, h.a.writeKey, [rec(h.a)], { headers: { 'idempotency-key': 'k-busy-doc' } });
    expect([409, 422]).toContain(busy.status);
    conforms(path, 'post', busy.status, busy.body);
    const limited = await h.startApp({ rateLimiter: createRateLimiter(h.t.pool, { limit: 1, windowMs: 60_000, clock: { now: () => 9_000_003_600_000 } }) });
    await post(limited, h.b.writeKey, [rec(h.b)]);
    await check(await post(limited, h.b.writeKey, [rec(h.b)]), 429);
    // The per-IP limit, counted before the key is read, answers its own body.
    const perIp = await h.startApp({ perIp: createRateLimiter(h.t.pool, { limit: 1, windowMs: 60_000, clock: { now: () => 9_000_007_200_000 } }) });
    await post(perIp, h.b.writeKey, [rec(h.b)]);
    const ipLimited = await post(perIp, h.b.writeKey, [rec(h.b)]);
    expect(ipLimited.body).toMatchObject({ error: 'rate_limit_exceeded', retryAfterSeconds: expect.any(Number) });
    await check(ipLimited, 429);
  });

  it('describes every answer of the batch endpoints', async () => {
    const list = '/api/v1/ingest/batches';
    for (const [query, key, status] of [['', h.a.readKey, 200], ['?limit=0', h.a.readKey, 400], ['', undefined, 401], ['', h.mcpOnlyKey, 403]] as const) {
      const r = await get(h.base, key, `${list}${query}`);
      expect(r.status).toBe(status);
      conforms(list, 'get', status, r.body);
    }
    const one = '/api/v1/ingest/batches/{batchId}';
    const { body } = await post(h.base, h.a.writeKey, [rec(h.a)]);
    for (const [id, key, status] of [[body.batchId, h.a.readKey, 200], ['bat_missing', h.a.readKey, 404], ['b'.repeat(129), h.a.readKey, 400], [body.batchId, h.b.readKey, 404], [body.batchId, undefined, 401], [body.batchId, h.mcpOnlyKey, 403]] as const) {
      const r = await get(h.base, key, `/api/v1/ingest/batches/${id}`);
      expect(r.status).toBe(status);
      conforms(one, 'get', status, r.body);
    }
  });

  it('describes every answer of the deletion endpoints', async () => {
    const { body } = await post(h.base, h.a.writeKey, [rec(h.a), rec(h.a)]);
    const [r1, r2] = await recordsOf(h, body.batchId);
    const src = await sourceOf(h, r1!);
    for (const [path, id, key, status] of [
      ['/api/v1/sources/{sourceId}', src, h.a.readKey, 403], ['/api/v1/sources/{sourceId}', src, undefined, 401], ['/api/v1/sources/{sourceId}', src, h.b.writeKey, 404],
      ['/api/v1/sources/{sourceId}', 's'.repeat(129), h.a.writeKey, 400], ['/api/v1/sources/{sourceId}', src, h.a.writeKey, 200], ['/api/v1/sources/{sourceId}', src, h.a.writeKey, 404],
      ['/api/v1/records/{recordId}', r2, h.a.readKey, 403], ['/api/v1/records/{recordId}', r2, undefined, 401], ['/api/v1/records/{recordId}', 'r'.repeat(129), h.a.writeKey, 400],
      ['/api/v1/records/{recordId}', r2, h.a.writeKey, 200], ['/api/v1/records/{recordId}', r2, h.a.writeKey, 404],
    ] as const) {
      const r = await del(h.base, key, path.replace(/\{\w+\}/, id!));
      expect(r.status).toBe(status);
      conforms(path, 'delete', status, r.body);
    }
    const batch = await get(h.base, h.a.readKey, `/api/v1/ingest/batches/${body.batchId}`);
    expect(batch.body.deletedCount).toBe(2);
    conforms('/api/v1/ingest/batches/{batchId}', 'get', 200, batch.body);
  });

  it('describes every error answer of the attachment download', async () => {
    const { body } = await post(h.base, h.a.writeKey, [rec(h.a, { _attachments: [{ type: 'audio', vendor_url: 'https://files.example/a.mp3' }] })]);
    const [r1] = await recordsOf(h, body.batchId);
    const path = '/api/v1/records/{recordId}/attachments/{position}';
    for (const [url, key, status] of [
      [`/api/v1/records/${r1}/attachments/0`, h.a.writeKey, 403], [`/api/v1/records/${r1}/attachments/0`, undefined, 401],
      [`/api/v1/records/${r1}/attachments/0`, h.a.readKey, 404], [`/api/v1/records/${r1}/attachments/1`, h.a.readKey, 404],
      [`/api/v1/records/${r1}/attachments/0`, h.b.readKey, 404], [`/api/v1/records/${r1}/attachments/x`, h.a.readKey, 400],
      [`/api/v1/records/${'r'.repeat(129)}/attachments/0`, h.a.readKey, 400],
    ] as const) {
      const r = await get(h.base, key, url);
      expect({ url, status: r.status }).toEqual({ url, status });
      conforms(path, 'get', status, r.body);
    }
  });

  it('describes every answer of the connection endpoints', async () => {
    const send = async (method: string, path: string, key: string | undefined, body?: unknown, options: { raw?: string; contentType?: string } = {}) => {
      const res = await fetch(`${h.base}${path}`, {
        method, headers: { 'content-type': options.contentType ?? 'application/json', ...(key ? { 'x-api-key': key } : {}) },
        ...(options.raw !== undefined ? { body: options.raw } : body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const check = async (path: string, method: string, status: number, r: Promise<{ status: number; body: Record<string, any> }>) => {
      const answer = await r;
      expect({ path, method, status: answer.status }).toEqual({ path, method, status });
      conforms(path, method, status, answer.body);
      return answer.body;
    };
    const body = { kind: 'zendesk', product_id: h.a.productId, project_id: h.a.projectId, base_url: 'https://docs-co.zendesk.com', credentials: { email: 'ops@docs.example', api_token: 't' } };
    const all = '/api/v1/connections';
    const one = '/api/v1/connections/{connectionId}';
    const created = await check(all, 'post', 201, send('POST', all, h.a.writeKey, body));
    await check(all, 'post', 400, send('POST', all, h.a.writeKey, { ...body, credentials: {} }));
    // Slack: no base_url (Slack's own), channels required.
    const slack = { kind: 'slack', product_id: h.a.productId, project_id: h.a.projectId, credentials: { token: 'xoxb-1-2-docs' }, settings: { channel_ids: ['C0DOCS'] } };
    await check(all, 'post', 201, send('POST', all, h.a.writeKey, slack));
    await check(all, 'post', 400, send('POST', all, h.a.writeKey, { ...slack, settings: {} }));
    await check(all, 'post', 400, send('POST', all, h.a.writeKey, { ...body, project_id: 'proj_x' }));
    await check(all, 'post', 415, send('POST', all, h.a.writeKey, undefined, { raw: '{}', contentType: 'text/plain' }));
    await check(all, 'post', 413, send('POST', all, h.a.writeKey, undefined, { raw: `"${'x'.repeat(70_000)}"` }));
    await check(all, 'post', 401, send('POST', all, undefined, body));
    await check(all, 'post', 403, send('POST', all, h.a.readKey, body));
    await check(all, 'get', 200, send('GET', all, h.a.readKey));
    const at = (suffix = '') => `${all}/${created.id}${suffix}`;
    await check(one, 'get', 200, send('GET', at(), h.a.readKey));
    await check(one, 'get', 404, send('GET', `${all}/conn_x`, h.a.readKey));
    await check(one, 'patch', 200, send('PATCH', at(), h.a.writeKey, { settings: { start_date: '2026-01-01' } }));
    await check(one, 'patch', 400, send('PATCH', at(), h.a.writeKey, { settings: { start_date: 'soon' } }));
    await check(`${one}/pause`, 'post', 200, send('POST', at('/pause'), h.a.writeKey));
    await check(`${one}/sync`, 'post', 409, send('POST', at('/sync'), h.a.writeKey));
    await check(`${one}/resume`, 'post', 200, send('POST', at('/resume'), h.a.writeKey));
    await check(`${one}/sync`, 'post', 202, send('POST', at('/sync'), h.a.writeKey));
    await check(one, 'delete', 400, send('DELETE', at('?with_data=yes'), h.a.writeKey));
    await check(one, 'delete', 200, send('DELETE', at('?with_data=true'), h.a.writeKey));
    await check(one, 'delete', 404, send('DELETE', at(), h.a.writeKey));
  });

  it('describes every answer of the company and people endpoints', async () => {
    const send = async (method: string, path: string, key: string | undefined, body: unknown, options: { raw?: string; contentType?: string } = {}) => {
      const res = await fetch(`${h.base}${path}`, {
        method, headers: { 'content-type': options.contentType ?? 'application/json', ...(key ? { 'x-api-key': key } : {}) },
        ...(options.raw !== undefined ? { body: options.raw } : body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return { status: res.status, body: (await res.json()) as unknown };
    };
    const check = async (path: string, method: string, status: number, r: Promise<{ status: number; body: unknown }>) => {
      const answer = await r;
      expect({ path, method, status: answer.status }).toEqual({ path, method, status });
      conforms(path, method, status, answer.body);
    };
    for (const [noun, item, conflict, badItem] of [
      ['companies', { name: 'Docs Co', domains: ['docs.example'], arr: 10, attributes: { tier: 'gold' } }, { name: 'Other', domains: ['docs.example'] }, { name: 'X', arr: -1 }],
      ['people', { email: 'ana@docs.example', name: 'Ana', company_external_id: 'doc-1' }, { email: 'ana@docs.example' }, { company_external_id: 'nope' }],
    ] as const) {
      const one = `/api/v1/${noun}/{external_id}`;
      const at = (id: string) => `/api/v1/${noun}/${id}`;
      await check(one, 'put', 201, send('PUT', at('doc-1'), h.a.writeKey, item));
      await check(one, 'put', 200, send('PUT', at('doc-1'), h.a.writeKey, item));
      await check(one, 'put', 409, send('PUT', at('doc-2'), h.a.writeKey, conflict));
      await check(one, 'put', 400, send('PUT', at('doc-2'), h.a.writeKey, badItem));
      await check(one, 'put', 400, send('PUT', at('doc-2'), h.a.writeKey, undefined, { raw: '{' }));
      await check(one, 'put', 413, send('PUT', at('doc-2'), h.a.writeKey, undefined, { raw: `"${'x'.repeat(300_000)}"` }));
      await check(one, 'put', 415, send('PUT', at('doc-2'), h.a.writeKey, undefined, { raw: '{}', contentType: 'text/plain' }));
      await check(one, 'put', 401, send('PUT', at('doc-2'), undefined, item));
      await check(one, 'put', 403, send('PUT', at('doc-2'), h.a.readKey, item));
      const batch = `/api/v1/${noun}:batch`;
      await check(batch, 'post', 200, send('POST', batch, h.a.writeKey, [{ external_id: 'doc-1', ...item }, { external_id: 'doc-3', ...badItem }]));
      await check(batch, 'post', 400, send('POST', batch, h.a.writeKey, []));
      await check(batch, 'post', 400, send('POST', batch, h.a.writeKey, Array.from({ length: 1001 }, () => ({}))));
      await check(batch, 'post', 413, send('POST', batch, h.a.writeKey, undefined, { raw: 'x'.repeat(5 * 1024 * 1024 + 1) }));
      await check(batch, 'post', 415, send('POST', batch, h.a.writeKey, undefined, { raw: 'a,b', contentType: 'text/csv' }));
      await check(batch, 'post', 401, send('POST', batch, undefined, []));
      await check(batch, 'post', 403, send('POST', batch, h.a.readKey, []));
      const list = `/api/v1/${noun}`;
      await check(list, 'get', 200, send('GET', `${list}?limit=1`, h.a.readKey, undefined));
      await check(list, 'get', 400, send('GET', `${list}?cursor=nope`, h.a.readKey, undefined));
      await check(list, 'get', 401, send('GET', list, undefined, undefined));
      await check(list, 'get', 403, send('GET', list, h.mcpOnlyKey, undefined));
      await check(one, 'get', 200, send('GET', at('doc-1'), h.a.readKey, undefined));
      await check(one, 'get', 400, send('GET', at('x'.repeat(257)), h.a.readKey, undefined));
      await check(one, 'get', 404, send('GET', at('doc-1'), h.b.readKey, undefined));
      await check(one, 'get', 401, send('GET', at('doc-1'), undefined, undefined));
      await check(one, 'get', 403, send('GET', at('doc-1'), h.mcpOnlyKey, undefined));
    }
    for (const noun of ['people', 'companies']) {
      const one = `/api/v1/${noun}/{external_id}`;
      await check(one, 'delete', 403, send('DELETE', `/api/v1/${noun}/doc-1`, h.a.readKey, undefined));
      await check(one, 'delete', 401, send('DELETE', `/api/v1/${noun}/doc-1`, undefined, undefined));
      await check(one, 'delete', 400, send('DELETE', `/api/v1/${noun}/${'x'.repeat(257)}`, h.a.writeKey, undefined));
      await check(one, 'delete', 200, send('DELETE', `/api/v1/${noun}/doc-1`, h.a.writeKey, undefined));
      await check(one, 'delete', 404, send('DELETE', `/api/v1/${noun}/doc-1`, h.a.writeKey, undefined));
    }
    const limited = await h.startApp({ rateLimiter: createRateLimiter(h.t.pool, { limit: 1, windowMs: 60_000, clock: { now: () => 9_000_010_800_000 } }) });
    await fetch(`${limited}/api/v1/companies`, { headers: { 'x-api-key': h.b.readKey } });
    const tooMany = await fetch(`${limited}/api/v1/companies`, { headers: { 'x-api-key': h.b.readKey } });
    expect(tooMany.status).toBe(429);
    conforms('/api/v1/companies', 'get', 429, await tooMany.json());
  });

  it('has examples that its own schemas accept', () => {
    let count = 0;
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(methods)) {
        for (const [status, response] of Object.entries(op.responses as Record<string, any>)) {
          const media = response.content?.['application/json'];
          if (!media) continue;
          const examples = [...(media.example !== undefined ? [media.example] : []), ...Object.values(media.examples ?? {}).map((e: any) => e.value)];
          const validate = ajv.getSchema(`openapi.json#/${pointer('paths', path, method, 'responses', status, 'content', 'application/json', 'schema')}`)!;
          for (const example of examples) {
            count++;
            expect(validate(example), `${method} ${path} ${status} example: ${ajv.errorsText(validate.errors)}`).toBe(true);
          }
          expect(examples.length, `${method} ${path} ${status} has an example`).toBeGreaterThan(0);
        }
      }
    }
    expect(count).toBeGreaterThan(20);
  });

  it('says what the API is for, and tags every operation with a tag it declares', () => {
    expect(doc.info.title).toBe('Loupe API');
    for (const words of ['x-api-key', 'Rate limits', 'Retry-After', 'X-Request-Id', 'Idempotency-Key', `${h.base}/docs`]) expect(doc.info.description).toContain(words);
    const declared = (doc.tags as Array<{ name: string; description: string }>).map((t) => t.name);
    expect(declared).toEqual(['Ingestion', 'Batches', 'Export', 'Deletion', 'Privacy', 'Companies', 'Connections', 'Email forwarding']);
    const used = new Set<string>();
    for (const [path, methods] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, op] of Object.entries(methods)) {
        expect(op.tags, `${method} ${path} has one declared tag`).toHaveLength(1);
        expect(declared).toContain(op.tags[0]);
        used.add(op.tags[0]);
      }
    }
    expect([...used].sort()).toEqual([...declared].sort());
  });

  it('documents the response headers the answers really carry', async () => {
    const documented = (path: string, method: string, status: number) =>
      Object.keys(doc.paths[path][method].responses[String(status)].headers ?? {}).map((name) => {
        expect(doc.components.headers[name], `${name} is described`).toBeDefined();
        return name;
      });
    const carries = (r: { status: number; headers: Headers }, path: string, method: string, absent: string[] = []) => {
      const names = documented(path, method, r.status);
      for (const name of names.filter((n) => n !== 'Idempotent-Replayed')) expect(r.headers.get(name), `${method} ${path} ${r.status} carries ${name}`).not.toBeNull();
      for (const name of absent) {
        expect(names, `${method} ${path} ${r.status} does not document ${name}`).not.toContain(name);
        expect(r.headers.get(name), `${method} ${path} ${r.status} does not carry ${name}`).toBeNull();
      }
      return names;
    };
    const ingest = '/api/v1/ingest';
    const records = [rec(h.a)];
    const accepted = await post(h.base, h.a.writeKey, records, { headers: { 'idempotency-key': 'k-headers' } });
    expect(accepted.status).toBe(202);
    expect(carries(accepted, ingest, 'post', ['Retry-After'])).toEqual(['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Idempotent-Replayed']);
    expect(Number(accepted.headers.get('x-ratelimit-limit'))).toBeGreaterThan(0);
    const replayed = await post(h.base, h.a.writeKey, records, { headers: { 'idempotency-key': 'k-headers' } });
    expect(replayed.status).toBe(202);
    expect(replayed.headers.get('idempotent-replayed')).toBe('true');
    carries(await post(h.base, undefined, [rec(h.a)]), ingest, 'post', ['X-RateLimit-Limit', 'X-RateLimit-Remaining']);
    carries(await get(h.base, h.a.readKey, '/api/v1/ingest/batches'), '/api/v1/ingest/batches', 'get', ['Retry-After']);
    carries(await get(h.base, h.a.readKey, '/api/v1/ingest/batches/bat_missing'), '/api/v1/ingest/batches/{batchId}', 'get');
    const limited = await h.startApp({ rateLimiter: createRateLimiter(h.t.pool, { limit: 1, windowMs: 60_000, clock: { now: () => 9_000_014_400_000 } }) });
    await get(limited, h.b.readKey, '/api/v1/ingest/batches');
    const tooMany = await get(limited, h.b.readKey, '/api/v1/ingest/batches');
    expect(tooMany.status).toBe(429);
    expect(carries(tooMany, '/api/v1/ingest/batches', 'get')).toEqual(['X-Request-Id', 'X-RateLimit-Limit', 'X-RateLimit-Remaining', 'Retry-After']);
    expect(Number(tooMany.headers.get('retry-after'))).toBeGreaterThan(0);
  });
});
