import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { createBoss, ensureQueues, QUEUES, type Boss } from '@loupe/jobs';
import { companyInputSchema, personInputSchema } from '@loupe/records';
import { createProduct, createWorkspace } from '@loupe/workspaces';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  BatchBodyError, deleteCompany, deletePerson, getCompany, getPerson, listCompanies, listPeople, parseBatchBody, upsertCompanies, upsertPeople, validateBatchItems,
  type DirectoryDeps,
} from './index';

let t: TestDatabase;
let boss: Boss;
let deps: DirectoryDeps;
let ws: string;
let other: string;
const now = new Date('2026-11-27T10:00:00Z');
const company = (o: Record<string, unknown>) => companyInputSchema.parse({ name: 'Acme', ...o });
const person = (o: Record<string, unknown>) => personInputSchema.parse(o);

beforeAll(async () => {
  t = await createTestDatabase();
  boss = createBoss({ connectionString: t.url, supervise: false, max: 2 });
  boss.on('error', () => {});
  await boss.start();
  await ensureQueues(boss);
  deps = { pool: t.pool, boss };
  ws = (await createWorkspace(t.db, { name: 'A' })).id;
  other = (await createWorkspace(t.db, { name: 'B' })).id;
});
afterAll(async () => {
  await boss.stop({ graceful: false, close: true });
  await t.close();
});

const jobsOf = async (workspaceId: string) =>
  (await t.pool.query<{ n: number }>("SELECT count(*)::int AS n FROM pgboss.job WHERE name = $1 AND data->>'workspaceId' = $2", [QUEUES.resolveCompanies, workspaceId])).rows[0]!.n;

describe('companies', () => {
  it('upserts by external_id: created, then updated, with domains lower-cased, deduplicated and kept in company_domains', async () => {
    const [first] = await upsertCompanies(deps, ws, [company({ external_id: 'crm-1', domains: ['Acme.com', 'acme.com', 'acme.io'], arr: 1200.5, segment: 'smb', renewal_date: '2027-01-31', attributes: { tier: 1, vip: true } })], now);
    expect(first).toMatchObject({ ok: true, created: true, value: { external_id: 'crm-1', domains: ['acme.com', 'acme.io'], arr: 1200.5, renewal_date: '2027-01-31', attributes: { tier: 1, vip: true } } });
    const [second] = await upsertCompanies(deps, ws, [company({ external_id: 'crm-1', name: 'Acme Inc', domains: ['acme.io', 'acme.net'] })], new Date(now.getTime() + 1000));
    expect(second).toMatchObject({ ok: true, created: false, value: { name: 'Acme Inc', domains: ['acme.io', 'acme.net'], arr: null, segment: null } });
    const { rows } = await t.pool.query('SELECT domain FROM company_domains WHERE workspace_id = $1 ORDER BY domain', [ws]);
    expect(rows.map((r) => r.domain)).toEqual(['acme.io', 'acme.net']);
    expect(await jobsOf(ws)).toBe(1); // one pending job per workspace
  });

  it('refuses a domain another company of the workspace lists, naming it, and a free-mail domain; another workspace may list it', async () => {
    const out = await upsertCompanies(deps, ws, [
      company({ external_id: 'crm-2', domains: ['globex.com', 'acme.net'] }),
      company({ external_id: 'crm-3', domains: ['gmail.com'] }),
      company({ external_id: 'crm-4', domains: ['globex.com'] }),
    ], now);
    expect(out[0]).toMatchObject({ ok: false, code: 'DOMAIN_TAKEN', message: expect.stringContaining('domains[1]: "acme.net" is already a domain of company "crm-1"') });
    expect(out[1]).toMatchObject({ ok: false, code: 'FREE_MAIL_DOMAIN', message: expect.stringContaining('domains[0]: "gmail.com"') });
    expect(out[2]).toMatchObject({ ok: true, created: true });
    expect(await getCompany(t.pool, ws, 'crm-2')).toBeUndefined();
    const [theirs] = await upsertCompanies(deps, other, [company({ external_id: 'crm-1', domains: ['acme.net'] })], now);
    expect(theirs).toMatchObject({ ok: true, created: true });
  });

  it('lists newest first with a cursor, and only the workspace\'s', async () => {
    for (let i = 0; i < 3; i++) await upsertCompanies(deps, ws, [company({ external_id: `page-${i}` })], new Date(now.getTime() + 10_000 + i));
    const first = await listCompanies(t.pool, ws, { limit: 2 });
    expect(first.companies.map((c) => c.external_id)).toEqual(['page-2', 'page-1']);
    const second = await listCompanies(t.pool, ws, { limit: 100, cursor: first.nextCursor });
    // crm-1 and crm-4 were first stored at the same instant: their order is their ids'
    expect(second.companies.map((c) => c.external_id).slice(0, 1)).toEqual(['page-0']);
    expect(second.companies.map((c) => c.external_id).slice(1).sort()).toEqual(['crm-1', 'crm-4']);
    expect(second.nextCursor).toBeUndefined();
    expect((await listCompanies(t.pool, other, { limit: 100 })).companies.map((c) => c.external_id)).toEqual(['crm-1']);
    await expect(listCompanies(t.pool, ws, { limit: 2, cursor: 'nope' })).rejects.toThrow(/cursor/);
  });
});

describe('people', () => {
  it('upserts by external_id, links a company of the workspace, refuses an unknown company and a taken email', async () => {
    const out = await upsertPeople(deps, ws, [
      person({ external_id: 'p-1', email: 'Ana@Acme.io', name: 'Ana', company_external_id: 'crm-1' }),
      person({ external_id: 'p-2', email: 'ana@acme.io' }),
      person({ external_id: 'p-3', company_external_id: 'crm-404' }),
      person({ external_id: 'p-1', email: 'ana@acme.io', name: 'Ana B', company_external_id: 'crm-1', attributes: { role: 'cto' } }),
    ], now);
    expect(out[0]).toMatchObject({ ok: true, created: true, value: { email: 'ana@acme.io', company_external_id: 'crm-1' } });
    expect(out[1]).toMatchObject({ ok: false, code: 'EMAIL_TAKEN', message: expect.stringContaining('person "p-1"') });
    expect(out[2]).toMatchObject({ ok: false, code: 'UNKNOWN_COMPANY', message: expect.stringContaining('company_external_id: no company "crm-404"') });
    expect(out[3]).toMatchObject({ ok: true, created: false, value: { name: 'Ana B', attributes: { role: 'cto' } } });
    // a company of another workspace is unknown here
    const [theirs] = await upsertPeople(deps, other, [person({ external_id: 'p-9', company_external_id: 'crm-4' })], now);
    expect(theirs).toMatchObject({ ok: false, code: 'UNKNOWN_COMPANY' });
    expect((await listPeople(t.pool, ws, { limit: 10 })).people.map((p) => p.external_id)).toEqual(['p-1']);
  });

  it('deleting a company frees its domains and unlinks its people and signals; deleting a person leaves the company', async () => {
    await upsertPeople(deps, ws, [person({ external_id: 'p-4', email: 'bo@globex.com', company_external_id: 'crm-4' })], now);
    // a signal resolved to the company (as the worker would have set it)
    const product = await createProduct(t.db, ws, { name: 'P' });
    const q = (sql: string, values: unknown[]) => t.pool.query(sql, values);
    await q(`INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status) VALUES ('src_c1', $1, $2, '{}', 'call', 'evidence', 'Call', now(), 'ready')`, [ws, product.id]);
    await q(`INSERT INTO signal_types (id, workspace_id, key, name, description) VALUES ('sty_c1', $1, 'pain_point', 'Pain point', 'x')`, [ws]);
    await q(`INSERT INTO signals (id, workspace_id, product_id, source_id, type_id, title, content, content_hash, company, company_id, created_at, updated_at)
             SELECT 'sig_c1', $1, $2, 'src_c1', 'sty_c1', 'Slow', 'Slow export', 'h', 'globex.com', id, now(), now() FROM companies WHERE workspace_id = $1 AND external_id = 'crm-4'`, [ws, product.id]);
    expect(await deleteCompany(deps, ws, 'crm-4')).toBe(true);
    expect(await deleteCompany(deps, ws, 'crm-4')).toBe(false);
    expect(await deleteCompany(deps, other, 'crm-1')).toBe(true);
    expect(await getCompany(t.pool, ws, 'crm-1')).toBeDefined(); // the other workspace's went, not ours
    expect(await getPerson(t.pool, ws, 'p-4')).toMatchObject({ company_external_id: null });
    expect((await t.pool.query("SELECT company, company_id FROM signals WHERE id = 'sig_c1'")).rows).toEqual([{ company: 'globex.com', company_id: null }]);
    const [reuse] = await upsertCompanies(deps, ws, [company({ external_id: 'crm-5', domains: ['globex.com'] })], now);
    expect(reuse).toMatchObject({ ok: true });
    expect(await deletePerson(deps, ws, 'p-1')).toBe(true);
    expect(await getPerson(t.pool, ws, 'p-1')).toBeUndefined();
    expect(await getCompany(t.pool, ws, 'crm-1')).toBeDefined();
    expect(await deletePerson(deps, other, 'p-4')).toBe(false);
  });
});

describe('batch bodies', () => {
  it('reads a JSON array, a wrapper object and NDJSON, and validates each item alone', () => {
    const array = parseBatchBody('json', Buffer.from('[{"external_id":"a","name":"A"},{"external_id":"b"}]'), 'companies');
    const wrapped = parseBatchBody('json', Buffer.from('{"companies":[{"external_id":"a","name":"A"}]}'), 'companies');
    const ndjson = parseBatchBody('ndjson', Buffer.from('{"external_id":"a","name":"A"}\n\nnot json\n{"external_id":"c","name":"C","arr":-1,"extra":1}\n'), 'companies');
    expect(array).toHaveLength(2);
    expect(wrapped).toHaveLength(1);
    const { accepted, errors } = validateBatchItems(ndjson, companyInputSchema, 'company');
    expect(accepted.map((a) => a.index)).toEqual([0]);
    expect(errors).toEqual([
      { index: 1, code: 'INVALID_JSON', message: expect.stringContaining('line is not valid JSON') },
      { index: 2, code: 'VALIDATION_ERROR', message: expect.stringMatching(/arr: .*; company: unknown field "extra"|company: unknown field "extra".*arr/) },
    ]);
    expect(validateBatchItems(array, companyInputSchema, 'company').errors).toEqual([{ index: 1, code: 'VALIDATION_ERROR', message: 'name: is required' }]);
  });

  it('refuses a body with no items, too many, or the wrong shape', () => {
    expect(() => parseBatchBody('json', Buffer.from('[]'), 'people')).toThrow(BatchBodyError);
    expect(() => parseBatchBody('json', Buffer.from('{"companies":[]}'), 'people')).toThrow(/only "people"/);
    expect(() => parseBatchBody('json', Buffer.from('{'), 'people')).toThrow(/not valid JSON/);
    try {
      parseBatchBody('json', Buffer.from(JSON.stringify(Array.from({ length: 1001 }, () => ({})))), 'people');
    } catch (error) {
      expect(error).toMatchObject({ code: 'TOO_MANY_ITEMS', errors: [{ index: 1000, code: 'TOO_MANY_ITEMS' }] });
    }
  });

  it('names the field of every refusal: NUL characters, huge numbers, wrong types, bad domains and dates', () => {
    const check = (value: unknown) => validateBatchItems([{ index: 0, ok: true, value }], companyInputSchema, 'company').errors[0]?.message;
    expect(check({ external_id: 'a', name: 'A\u0000' })).toMatch(/^name: must not contain NUL/);
    expect(check({ external_id: 'a', name: 'A', arr: 1e300 })).toMatch(/^arr: /);
    expect(check({ external_id: 'a', name: 'A', arr: '12' })).toMatch(/^arr: /);
    expect(check({ external_id: 'a', name: 'A', domains: ['not a domain'] })).toMatch(/^domains\[0\]: must be an email domain/);
    expect(check({ external_id: 'a', name: 'A', renewal_date: '2027-02-30' })).toMatch(/^renewal_date: is not a real date/);
    expect(check({ external_id: 'a', name: 'A', attributes: { x: { nested: 1 } } })).toMatch(/^attributes\.x: /);
    expect(check({ external_id: 'x'.repeat(257), name: 'A' })).toMatch(/^external_id: /);
    expect(check('a string')).toBe('company: must be a JSON object');
    expect(check({ external_id: 'a', name: 'A', domains: Array.from({ length: 51 }, (_, i) => `d${i}.com`) })).toMatch(/^domains: /);
  });
});
