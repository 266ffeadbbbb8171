import { QUEUES } from '@loupe/jobs';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { del, get, startHarness, type Harness } from './test/harness';

// Companies and people through the API: PUT one, POST a batch, GET a page or one, DELETE one.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

async function call(method: string, path: string, key: string | undefined, body?: unknown, options: { raw?: string; contentType?: string } = {}) {
  const headers: Record<string, string> = { 'content-type': options.contentType ?? 'application/json' };
  if (key) headers['x-api-key'] = key;
  const res = await fetch(`${h.base}${path}`, { method, headers, body: options.raw ?? (body === undefined ? undefined : JSON.stringify(body)) });
  const text = await res.text();
  let json: Record<string, any>;
  try {
    json = JSON.parse(text) as Record<string, any>;
  } catch {
    json = { raw: text };
  }
  return { status: res.status, body: json, headers: res.headers };
}

const resolveJobs = async (workspaceId: string) =>
  (await h.t.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'workspaceId' = $2", [QUEUES.resolveCompanies, workspaceId])).rows[0]!.n;

describe('PUT /api/v1/companies/{external_id}', () => {
  it('creates (201), then replaces (200), and answers the stored company; a re-resolution job is queued', async () => {
    const created = await call('PUT', '/api/v1/companies/crm-1', h.a.writeKey, { name: 'Acme', domains: ['ACME.com', 'acme.com'], arr: 120000, segment: 'enterprise', plan: 'pro', stage: 'customer', renewal_date: '2027-03-01', attributes: { region: 'EU', seats: 40, vip: true } });
    expect(created.status).toBe(201);
    expect(created.headers.get('location')).toBe('/api/v1/companies/crm-1');
    expect(created.headers.get('x-request-id')).toBeTruthy();
    expect(created.body).toMatchObject({ external_id: 'crm-1', name: 'Acme', domains: ['acme.com'], arr: 120000, segment: 'enterprise', renewal_date: '2027-03-01', attributes: { region: 'EU', seats: 40, vip: true } });
    const replaced = await call('PUT', '/api/v1/companies/crm-1', h.a.writeKey, { external_id: 'crm-1', name: 'Acme Corp', domains: ['acme.com'] });
    expect(replaced.status).toBe(200);
    expect(replaced.body).toMatchObject({ name: 'Acme Corp', arr: null, segment: null, attributes: {} });
    expect(await resolveJobs(h.a.workspaceId)).toBeGreaterThan(0);
    expect((await get(h.base, h.a.readKey, '/api/v1/companies/crm-1')).body).toEqual(replaced.body);
  });

  it('refuses what is wrong, naming the field, and never answers 500', async () => {
    const cases: Array<[unknown, number, string, RegExp]> = [
      [{ name: 'A\u0000B' }, 400, 'VALIDATION_ERROR', /^name: must not contain NUL/],
      [{ name: 'A', arr: 1e308 }, 400, 'VALIDATION_ERROR', /^arr: /],
      [{ name: 'A', arr: -1 }, 400, 'VALIDATION_ERROR', /^arr: /],
      [{ name: 'A', arr: '100' }, 400, 'VALIDATION_ERROR', /^arr: /],
      [{ name: 'A', colour: 'red' }, 400, 'VALIDATION_ERROR', /unknown field "colour"/],
      [{ name: 42 }, 400, 'VALIDATION_ERROR', /^name: /],
      [{}, 400, 'VALIDATION_ERROR', /^name: is required/],
      [[1, 2], 400, 'VALIDATION_ERROR', /company: must be a JSON object/],
      [{ name: 'A', domains: ['gmail.com'] }, 400, 'FREE_MAIL_DOMAIN', /^domains\[0\]: "gmail.com" is a free-mail domain/],
      [{ name: 'A', domains: ['acme.com'] }, 409, 'DOMAIN_TAKEN', /"acme.com" is already a domain of company "crm-1"/],
      [{ name: 'A', renewal_date: '2027-13-01' }, 400, 'VALIDATION_ERROR', /^renewal_date: /],
      [{ name: 'A', external_id: 'other' }, 400, 'VALIDATION_ERROR', /^external_id: "other" differs/],
      [{ name: 'A', attributes: Object.fromEntries(Array.from({ length: 101 }, (_, i) => [`k${i}`, i])) }, 400, 'VALIDATION_ERROR', /^attributes: must have at most 100/],
    ];
    for (const [body, status, code, message] of cases) {
      const r = await call('PUT', '/api/v1/companies/crm-2', h.a.writeKey, body);
      expect({ body, status: r.status, code: r.body.error }).toEqual({ body, status, code });
      expect(r.body.message).toMatch(message);
    }
    expect((await call('PUT', '/api/v1/companies/crm-2', h.a.writeKey, undefined, { raw: '{"name":' })).body.error).toBe('INVALID_JSON');
    expect((await call('PUT', '/api/v1/companies/crm-2', h.a.writeKey, undefined, { raw: '{"name":"A"}', contentType: 'text/plain' })).status).toBe(415);
    expect((await call('PUT', `/api/v1/companies/${'x'.repeat(257)}`, h.a.writeKey, { name: 'A' })).status).toBe(400);
    expect((await call('PUT', '/api/v1/companies/a%00b', h.a.writeKey, { name: 'A' })).body.message).toMatch(/^Path parameter "external_id"/);
    expect((await call('PUT', '/api/v1/companies/crm-2', h.a.writeKey, undefined, { raw: `{"name":"${'x'.repeat(300_000)}"}` })).status).toBe(413);
    expect((await call('PUT', '/api/v1/companies/crm-2', h.a.readKey, { name: 'A' })).status).toBe(403);
    expect((await get(h.base, h.a.readKey, '/api/v1/companies/crm-2')).status).toBe(404);
  });

  it('takes ids with spaces, slashes and unicode, URL-encoded', async () => {
    const id = 'Acme / EU ü';
    const r = await call('PUT', `/api/v1/companies/${encodeURIComponent(id)}`, h.a.writeKey, { name: 'Acme EU' });
    expect(r.status).toBe(201);
    expect((await get(h.base, h.a.readKey, `/api/v1/companies/${encodeURIComponent(id)}`)).body.external_id).toBe(id);
  });
});

describe('POST /api/v1/companies:batch and /api/v1/people:batch', () => {
  it('stores each valid item and names each refused one by index, from a JSON array, a wrapper or NDJSON', async () => {
    const r = await call('POST', '/api/v1/companies:batch', h.a.writeKey, [
      { external_id: 'b-1', name: 'Globex', domains: ['globex.com'], arr: 5000 },
      { external_id: 'b-2', name: 'Initech', domains: ['globex.com'] },
      { external_id: 'b-3' },
      { external_id: 'crm-1', name: 'Acme Again', domains: ['acme.com'] },
    ]);
    expect(r.status).toBe(200);
    expect(r.body).toEqual({
      createdCount: 1, updatedCount: 1, rejectedCount: 2,
      errors: [
        { index: 1, code: 'DOMAIN_TAKEN', message: expect.stringContaining('company "b-1"') },
        { index: 2, code: 'VALIDATION_ERROR', message: 'name: is required' },
      ],
    });
    const wrapped = await call('POST', '/api/v1/companies:batch', h.a.writeKey, { companies: [{ external_id: 'b-4', name: 'Hooli' }] });
    expect(wrapped.body).toMatchObject({ createdCount: 1, rejectedCount: 0, errors: [] });
    const ndjson = await call('POST', '/api/v1/people:batch', h.a.writeKey, undefined, {
      contentType: 'application/x-ndjson',
      raw: '{"external_id":"p-1","email":"Ana@Globex.com","company_external_id":"b-1"}\nnot json\n{"external_id":"p-2","company_external_id":"nope"}\n{"external_id":"p-3","email":"ana@globex.com"}\n',
    });
    expect(ndjson.body).toEqual({
      createdCount: 1, updatedCount: 0, rejectedCount: 3,
      errors: [
        { index: 1, code: 'INVALID_JSON', message: expect.stringContaining('line is not valid JSON') },
        { index: 2, code: 'UNKNOWN_COMPANY', message: expect.stringContaining('company_external_id: no company "nope"') },
        { index: 3, code: 'EMAIL_TAKEN', message: expect.stringContaining('person "p-1"') },
      ],
    });
    expect((await get(h.base, h.a.readKey, '/api/v1/people/p-1')).body).toMatchObject({ email: 'ana@globex.com', company_external_id: 'b-1' });
  });

  it('a body with no valid item still answers 200 with the errors; a body that is not one answers 400', async () => {
    const none = await call('POST', '/api/v1/people:batch', h.a.writeKey, [{ external_id: '' }, 'x']);
    expect(none.status).toBe(200);
    expect(none.body).toMatchObject({ createdCount: 0, updatedCount: 0, rejectedCount: 2 });
    expect(none.body.errors.map((e: { index: number }) => e.index)).toEqual([0, 1]);
    for (const [raw, code] of [['[]', 'NO_ITEMS'], ['{"records":[]}', 'INVALID_BODY'], ['{', 'INVALID_JSON'], ['"x"', 'INVALID_BODY']] as const) {
      const r = await call('POST', '/api/v1/people:batch', h.a.writeKey, undefined, { raw });
      expect({ raw, status: r.status, error: r.body.error }).toEqual({ raw, status: 400, error: code });
    }
    const many = await call('POST', '/api/v1/companies:batch', h.a.writeKey, Array.from({ length: 1001 }, (_, i) => ({ external_id: `m-${i}`, name: 'M' })));
    expect(many.status).toBe(400);
    expect(many.body).toMatchObject({ error: 'TOO_MANY_ITEMS', errors: [{ index: 1000, code: 'TOO_MANY_ITEMS' }] });
    expect((await call('POST', '/api/v1/companies:batch', h.a.writeKey, undefined, { raw: 'x'.repeat(5 * 1024 * 1024 + 1) })).status).toBe(413);
    expect((await call('POST', '/api/v1/companies:batch', h.a.writeKey, undefined, { raw: '[]', contentType: 'text/csv' })).status).toBe(415);
  });

  it('takes 1,000 companies in one request', async () => {
    const r = await call('POST', '/api/v1/companies:batch', h.a.writeKey, Array.from({ length: 1000 }, (_, i) => ({ external_id: `bulk-${i}`, name: `Bulk ${i}`, domains: [`bulk${i}.example`], arr: i })));
    expect(r.body).toMatchObject({ createdCount: 1000, rejectedCount: 0 });
  });
});

describe('GET and DELETE', () => {
  it('lists newest first with limit and cursor; refuses a bad limit or cursor', async () => {
    const first = await get(h.base, h.a.readKey, '/api/v1/companies?limit=2');
    expect(first.status).toBe(200);
    expect(first.body.companies).toHaveLength(2);
    const next = await get(h.base, h.a.writeKey, `/api/v1/companies?limit=2&cursor=${encodeURIComponent(first.body.nextCursor)}`);
    expect(next.body.companies.map((c: { external_id: string }) => c.external_id)).not.toContain(first.body.companies[0].external_id);
    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'cursor=bad', 'limit=1&limit=2']) expect((await get(h.base, h.a.readKey, `/api/v1/companies?${q}`)).status).toBe(400);
    const people = await get(h.base, h.a.readKey, '/api/v1/people');
    expect(people.body.people.map((p: { external_id: string }) => p.external_id)).toEqual(['p-1']);
  });

  it('deleting a company frees its domains and unlinks its people and signals; 404 after', async () => {
    const r = await del(h.base, h.a.writeKey, '/api/v1/companies/b-1');
    expect(r).toMatchObject({ status: 200, body: { external_id: 'b-1', object: 'company', deleted: true } });
    expect((await del(h.base, h.a.writeKey, '/api/v1/companies/b-1')).status).toBe(404);
    expect((await get(h.base, h.a.readKey, '/api/v1/companies/b-1')).status).toBe(404);
    expect((await get(h.base, h.a.readKey, '/api/v1/people/p-1')).body.company_external_id).toBeNull();
    expect((await call('PUT', '/api/v1/companies/b-9', h.a.writeKey, { name: 'Globex 2', domains: ['globex.com'] })).status).toBe(201);
    expect(await del(h.base, h.a.writeKey, '/api/v1/people/p-1')).toMatchObject({ status: 200, body: { external_id: 'p-1', object: 'person', deleted: true } });
    expect((await get(h.base, h.a.readKey, '/api/v1/people/p-1')).status).toBe(404);
    expect((await del(h.base, h.a.readKey, '/api/v1/companies/b-9')).status).toBe(403);
  });
});

describe('erased people', () => {
  it('a person erased from the workspace (by email or participant id) is refused until the suppression is lifted', async () => {
    for (const body of [{ email: 'gone@globex.com' }, { participant_id: 'crm-contact-gone' }]) {
      expect((await call('POST', '/api/v1/erasures', h.a.writeKey, body)).status).toBe(202);
    }
    const byEmail = await call('PUT', '/api/v1/people/back-1', h.a.writeKey, { email: 'Gone@Globex.com' });
    expect(byEmail.status).toBe(400);
    expect(byEmail.body).toMatchObject({ error: 'PERSON_SUPPRESSED', message: expect.stringMatching(/^email: names a person erased from this workspace/) });
    const batch = await call('POST', '/api/v1/people:batch', h.a.writeKey, [{ external_id: 'crm-contact-gone' }, { external_id: 'back-2', email: 'kept@globex.com' }]);
    expect(batch.body).toMatchObject({ createdCount: 1, rejectedCount: 1, errors: [{ index: 0, code: 'PERSON_SUPPRESSED', message: expect.stringMatching(/^external_id: /) }] });
    // another workspace's suppressions are its own
    expect((await call('PUT', '/api/v1/people/back-1', h.b.writeKey, { email: 'gone@globex.com' })).status).toBe(201);
    const { suppressions } = (await get(h.base, h.a.readKey, '/api/v1/suppressions')).body as { suppressions: Array<{ id: string }> };
    for (const s of suppressions) expect((await del(h.base, h.a.writeKey, `/api/v1/suppressions/${s.id}`)).status).toBe(200);
    expect((await call('PUT', '/api/v1/people/back-1', h.a.writeKey, { email: 'gone@globex.com' })).status).toBe(201);
  });
});

describe('fuzz: odd ids, fields and bodies', () => {
  const odd = fc.oneof(
    fc.constantFrom('', ' ', '\u0000', 'a\u0000b', '\ud800', '\udfff', '\ufeff', '%00', '%', '%ZZ', '__proto__', 'constructor', '1e309', '9'.repeat(400), 'gmail.com', 'ACME.COM.', 'xn--bcher-kva.example'),
    fc.string({ unit: 'binary', maxLength: 30 }),
  );
  const value: fc.Arbitrary<unknown> = fc.oneof(
    odd,
    fc.constantFrom(null, true, false, 0, -1, 1.5, 2 ** 53 + 1, -1e308, 1e308, [], {}, [null]),
    fc.jsonValue({ maxDepth: 3 }),
    fc.integer({ min: 1, max: 500 }).map((d) => JSON.parse(`${'['.repeat(d)}1${']'.repeat(d)}`) as unknown),
  );
  const fields = ['external_id', 'name', 'domains', 'arr', 'plan', 'segment', 'stage', 'renewal_date', 'attributes', 'email', 'company_external_id', '__proto__', 'extra'];
  const item = fc.dictionary(fc.constantFrom(...fields), fc.oneof(value, fc.array(value, { maxLength: 4 }), fc.dictionary(odd, value, { maxKeys: 4 })), { maxKeys: 6 });

  it('never answers 500: PUT, batch, GET and DELETE of either kind', async () => {
    const statuses: Record<number, number> = {};
    await fc.assert(
      fc.asyncProperty(fc.constantFrom('companies', 'people'), odd, item, fc.array(fc.oneof(item, value), { maxLength: 5 }), async (noun, id, one, many) => {
        let encoded: string;
        try {
          encoded = encodeURIComponent(id);
        } catch {
          encoded = id; // a lone surrogate: sent as fetch encodes it
        }
        const path = `/api/v1/${noun}/${encoded || 'x'}`;
        const answers = [
          await call('PUT', path, h.b.writeKey, one),
          await call('POST', `/api/v1/${noun}:batch`, h.b.writeKey, many),
          await call('POST', `/api/v1/${noun}:batch`, h.b.writeKey, undefined, { raw: many.map((m) => JSON.stringify(m)).join('\n') || '\n', contentType: 'application/x-ndjson' }),
          await get(h.base, h.b.readKey, path),
          await del(h.base, h.b.writeKey, path),
        ];
        for (const r of answers) {
          statuses[r.status] = (statuses[r.status] ?? 0) + 1;
          expect([200, 201, 400, 404, 409]).toContain(r.status);
          if (r.status >= 400) expect(r.body.error).toEqual(expect.any(String));
        }
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { numRuns: Number(process.env.FUZZ_RUNS ?? 150) },
    );
    console.log(`fuzz: statuses ${JSON.stringify(statuses)}`);
  }, 240_000);

  it('a path id that is not valid percent-encoding is a 400', async () => {
    for (const raw of ['%E0%A4%A', '%ZZ', '%']) expect((await get(h.base, h.a.readKey, `/api/v1/companies/${raw}`)).status).toBe(400);
  });
});
