import { newId } from '@loupe/db';
import type { Person, WebHarness } from './harness';

/** A workspace with one product ('Acme app'), the given people as members. */
export async function workspaceWith(h: WebHarness, members: Array<[Person, 'owner' | 'admin' | 'member']>, name = 'Acme') {
  const ws = newId('ws');
  const prod = `prod_${ws}`;
  await h.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $2)', [ws, name]);
  await h.pool.query('INSERT INTO products (id, workspace_id, name) VALUES ($1, $2, $3)', [prod, ws, 'Acme app']);
  for (const [p, role] of members) {
    const { rows } = await h.pool.query<{ id: string }>('SELECT id FROM users WHERE email = $1', [p.email]);
    await h.pool.query('INSERT INTO memberships (workspace_id, user_id, role) VALUES ($1, $2, $3)', [ws, rows[0]!.id, role]);
  }
  return { ws, prod };
}

export interface SeedCompany {
  key: string; name: string; domains: string[]; arr: string | null; plan: string | null; segment: string | null; stage: string | null; renewal: string | null;
  attributes?: Record<string, string | number | boolean>;
}

/** A company of the CRM import (external id `crm-<key>`) with its domains; its id. */
export async function addCompany(h: WebHarness, ws: string, c: SeedCompany, createdAt = new Date()): Promise<string> {
  const id = newId('cmp');
  await h.pool.query(
    `INSERT INTO companies (id, workspace_id, external_id, name, domains, arr, plan, segment, stage, renewal_date, attributes, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $12)`,
    [id, ws, `crm-${c.key}`, c.name, c.domains, c.arr, c.plan, c.segment, c.stage, c.renewal, JSON.stringify(c.attributes ?? {}), createdAt],
  );
  for (const d of c.domains) await h.pool.query('INSERT INTO company_domains (workspace_id, domain, company_id) VALUES ($1, $2, $3)', [ws, d, id]);
  return id;
}

/** A ready call source of the product; its id. */
export async function addSource(h: WebHarness, ws: string, prod: string, title: string, occurredAt: string | Date = new Date()) {
  const src = newId('src');
  await h.pool.query(
    `INSERT INTO sources (id, workspace_id, product_id, project_ids, type, nature, title, occurred_at, status) VALUES ($1, $2, $3, '{}', 'call', 'evidence', $4, $5, 'ready')`,
    [src, ws, prod, title, occurredAt],
  );
  return src;
}
