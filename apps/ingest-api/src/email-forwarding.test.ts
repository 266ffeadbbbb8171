import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startHarness, type Harness } from './test/harness';

// GET /api/v1/email-forwarding (issue 45): each project's forwarding address, by the key's workspace only.
let h: Harness;
let on: string;
let validate: (body: unknown) => boolean;
beforeAll(async () => {
  h = await startHarness();
  on = await h.startApp({ inboundMailDomain: 'in.loupe.test' });
  const doc = (await (await fetch(`${h.base}/api/v1/openapi.json`)).json()) as Record<string, any>;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  ajv.addSchema({ ...doc, $id: 'openapi.json' });
  validate = ajv.getSchema('openapi.json#/paths/~1api~1v1~1email-forwarding/get/responses/200/content/application~1json/schema')!;
});
afterAll(() => h.close());

const get = async (base: string, key?: string) => {
  const res = await fetch(`${base}/api/v1/email-forwarding`, { headers: key ? { 'x-api-key': key } : {} });
  return { status: res.status, body: (await res.json()) as any };
};

describe('GET /api/v1/email-forwarding', () => {
  it('gives each project of the key\'s workspace its lasting address and the sender rule, as documented', async () => {
    const a = await get(on, h.a.writeKey);
    expect(a.status).toBe(200);
    expect(validate(a.body)).toBe(true);
    expect(a.body.enabled).toBe(true);
    expect(a.body.addresses.map((x: { project_id: string }) => x.project_id).sort()).toEqual([h.a.projectId, h.a.otherProjectId].sort());
    for (const x of a.body.addresses) expect(x.address).toMatch(/^fwd\+[a-z2-7]{26}@in\.loupe\.test$/);
    expect(a.body).toMatchObject({ sender_domains: [], sender_domains_from_members: true });
    expect((await get(on, h.a.writeKey)).body).toEqual(a.body);

    await h.t.pool.query("INSERT INTO inbound_sender_domains (workspace_id, domain, created_at) VALUES ($1, 'acme.test', now())", [h.b.workspaceId]);
    const b = await get(on, h.b.writeKey);
    expect(b.body.addresses.map((x: { project_id: string }) => x.project_id).sort()).toEqual([h.b.projectId, h.b.otherProjectId].sort());
    expect(b.body.addresses.some((x: { address: string }) => a.body.addresses.some((y: { address: string }) => y.address === x.address))).toBe(false);
    expect(b.body).toMatchObject({ sender_domains: ['acme.test'], sender_domains_from_members: false });
    expect((await get(on, h.a.writeKey)).body.sender_domains).toEqual([]);
  });

  it('on a server that receives no mail: enabled false, no address made', async () => {
    const before = (await h.t.pool.query('SELECT count(*)::int AS n FROM inbound_addresses')).rows[0].n;
    const r = await get(h.base, h.b.writeKey);
    expect(r.status).toBe(200);
    expect(validate(r.body)).toBe(true);
    expect(r.body).toMatchObject({ enabled: false, addresses: [] });
    expect((await h.t.pool.query('SELECT count(*)::int AS n FROM inbound_addresses')).rows[0].n).toBe(before);
  });

  it('needs api:write (an address lets records in) and a live key', async () => {
    expect((await get(on, h.a.readKey)).status).toBe(403);
    expect((await get(on, h.mcpOnlyKey)).status).toBe(403);
    expect((await get(on, h.revokedKey)).status).toBe(401);
    expect((await get(on)).status).toBe(401);
  });
});
