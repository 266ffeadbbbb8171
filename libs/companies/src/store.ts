import { newId, withTransaction } from '@loupe/db';
import { enqueue, QUEUES, type Boss } from '@loupe/jobs';
import type { CompanyInput, CompanyView, PersonInput, PersonView } from '@loupe/records';
import type pg from 'pg';
import { isFreeMailDomain } from './free-mail';

type Queryable = Pick<pg.Pool, 'query'>;

export interface DirectoryDeps {
  pool: pg.Pool;
  /** Queues the background re-resolution of the workspace's signals after a change (libs/jobs resolveCompanies). */
  boss: Boss;
  /**
   * People the caller refuses, checked in the writing transaction before anything is written: by index of
   * `inputs`, the code and message of the refusal (the API refuses a person erased from the workspace).
   */
  screenPeople?: (client: pg.PoolClient, workspaceId: string, inputs: readonly PersonInput[]) => Promise<Map<number, { code: string; message: string }>>;
}

/** One item's outcome: stored (created or replaced), or refused with a code and a message naming the field. */
export type UpsertOutcome<V> = { ok: true; created: boolean; value: V } | { ok: false; code: string; message: string };

// Writes of a workspace's companies and people take this lock until they commit: the checks of domain
// and email clashes then see every write before them, so two imports at once cannot both take a domain.
const DIRECTORY_LOCK_NAMESPACE = 44_044_044;

async function lockDirectory(client: pg.PoolClient, workspaceId: string) {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [DIRECTORY_LOCK_NAMESPACE, workspaceId]);
}

/** Queues the re-resolution of the workspace's signals, committed with the write (one pending job per workspace). */
async function queueResolution(boss: Boss, client: pg.PoolClient, workspaceId: string) {
  await enqueue(boss, QUEUES.resolveCompanies, { workspaceId }, { client });
}

const COMPANY_COLUMNS = `c.id, c.external_id, c.name, c.domains, c.arr::text AS arr, c.plan, c.segment, c.stage,
  to_char(c.renewal_date, 'YYYY-MM-DD') AS renewal_date, c.attributes, c.created_at, c.updated_at`;

interface CompanyRow {
  id: string; external_id: string; name: string; domains: string[] | null; arr: string | null; plan: string | null; segment: string | null;
  stage: string | null; renewal_date: string | null; attributes: Record<string, string | number | boolean>; created_at: Date; updated_at: Date;
}

export function companyView(r: CompanyRow): CompanyView {
  return {
    external_id: r.external_id, name: r.name, domains: r.domains ?? [], arr: r.arr === null ? null : Number(r.arr), plan: r.plan, segment: r.segment,
    stage: r.stage, renewal_date: r.renewal_date, attributes: r.attributes ?? {}, created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(),
  };
}

const PERSON_COLUMNS = `p.id, p.external_id, p.email, p.name, c.external_id AS company_external_id, p.attributes, p.created_at, p.updated_at`;

interface PersonRow {
  id: string; external_id: string; email: string | null; name: string | null; company_external_id: string | null;
  attributes: Record<string, string | number | boolean>; created_at: Date; updated_at: Date;
}

export function personView(r: PersonRow): PersonView {
  return {
    external_id: r.external_id, email: r.email, name: r.name, company_external_id: r.company_external_id, attributes: r.attributes ?? {},
    created_at: r.created_at.toISOString(), updated_at: r.updated_at.toISOString(),
  };
}

async function upsertCompanyIn(client: pg.PoolClient, workspaceId: string, input: CompanyInput, now: Date): Promise<UpsertOutcome<CompanyView>> {
  const domains = [...new Set(input.domains ?? [])];
  const free = domains.findIndex(isFreeMailDomain);
  if (free >= 0) {
    return {
      ok: false, code: 'FREE_MAIL_DOMAIN',
      message: `domains[${(input.domains ?? []).indexOf(domains[free]!)}]: "${domains[free]}" is a free-mail domain: anyone can have an address there, so it never identifies a company`,
    };
  }
  const existing = await client.query<{ id: string }>('SELECT id FROM companies WHERE workspace_id = $1 AND external_id = $2 FOR UPDATE', [workspaceId, input.external_id]);
  const id = existing.rows[0]?.id ?? newId('cmp', now.getTime());
  if (domains.length) {
    const taken = await client.query<{ domain: string; external_id: string }>(
      `SELECT d.domain, c.external_id FROM company_domains d JOIN companies c ON c.id = d.company_id
        WHERE d.workspace_id = $1 AND d.domain = ANY($2::text[]) AND d.company_id <> $3 ORDER BY d.domain LIMIT 1`,
      [workspaceId, domains, id],
    );
    const clash = taken.rows[0];
    if (clash) {
      return {
        ok: false, code: 'DOMAIN_TAKEN',
        message: `domains[${(input.domains ?? []).indexOf(clash.domain)}]: "${clash.domain}" is already a domain of company "${clash.external_id}"; a domain names one company: remove it there first`.slice(0, 2048),
      };
    }
  }
  const { rows } = await client.query<CompanyRow>(
    `INSERT INTO companies AS c (id, workspace_id, external_id, name, domains, arr, plan, segment, stage, renewal_date, attributes, created_at, updated_at)
     VALUES ($1, $2, $3, $4, $5::text[], $6::numeric, $7, $8, $9, $10::date, $11::jsonb, $12, $12)
     ON CONFLICT (workspace_id, external_id) DO UPDATE SET
       name = EXCLUDED.name, domains = EXCLUDED.domains, arr = EXCLUDED.arr, plan = EXCLUDED.plan, segment = EXCLUDED.segment,
       stage = EXCLUDED.stage, renewal_date = EXCLUDED.renewal_date, attributes = EXCLUDED.attributes, updated_at = EXCLUDED.updated_at
     RETURNING ${COMPANY_COLUMNS}`,
    [id, workspaceId, input.external_id, input.name, domains, input.arr == null ? null : input.arr.toFixed(2), input.plan ?? null, input.segment ?? null,
      input.stage ?? null, input.renewal_date ?? null, JSON.stringify(input.attributes ?? {}), now],
  );
  // company_domains in step with `domains`, in the same transaction
  await client.query('DELETE FROM company_domains WHERE company_id = $1 AND NOT (domain = ANY($2::text[]))', [id, domains]);
  if (domains.length) {
    await client.query(
      `INSERT INTO company_domains (workspace_id, domain, company_id) SELECT $1, d, $2 FROM unnest($3::text[]) AS d ON CONFLICT DO NOTHING`,
      [workspaceId, id, domains],
    );
  }
  return { ok: true, created: !existing.rows[0], value: companyView(rows[0]!) };
}

async function upsertPersonIn(client: pg.PoolClient, workspaceId: string, input: PersonInput, now: Date): Promise<UpsertOutcome<PersonView>> {
  let companyId: string | null = null;
  if (input.company_external_id != null) {
    const company = await client.query<{ id: string }>('SELECT id FROM companies WHERE workspace_id = $1 AND external_id = $2', [workspaceId, input.company_external_id]);
    if (!company.rows[0]) {
      return {
        ok: false, code: 'UNKNOWN_COMPANY',
        message: `company_external_id: no company "${input.company_external_id}" in this workspace; send the company first`.slice(0, 2048),
      };
    }
    companyId = company.rows[0].id;
  }
  const email = input.email ?? null;
  if (email) {
    const clash = await client.query<{ external_id: string }>(
      'SELECT external_id FROM people WHERE workspace_id = $1 AND email = $2 AND external_id <> $3', [workspaceId, email, input.external_id]);
    if (clash.rows[0]) {
      return {
        ok: false, code: 'EMAIL_TAKEN',
        message: `email: "${email}" is already the email of person "${clash.rows[0].external_id}"; an email names one person of a workspace`.slice(0, 2048),
      };
    }
  }
  const { rows } = await client.query<PersonRow & { created: boolean }>(
    `WITH p AS (
       INSERT INTO people AS p (id, workspace_id, external_id, email, name, company_id, attributes, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $8)
       ON CONFLICT (workspace_id, external_id) DO UPDATE SET
         email = EXCLUDED.email, name = EXCLUDED.name, company_id = EXCLUDED.company_id, attributes = EXCLUDED.attributes, updated_at = EXCLUDED.updated_at
       RETURNING p.*, (p.xmax = 0) AS created
     )
     SELECT ${PERSON_COLUMNS}, p.created FROM p LEFT JOIN companies c ON c.id = p.company_id`,
    [newId('per', now.getTime()), workspaceId, input.external_id, email, input.name ?? null, companyId, JSON.stringify(input.attributes ?? {}), now],
  );
  const row = rows[0]!;
  return { ok: true, created: row.created, value: personView(row) };
}

/**
 * Upserts companies by external_id, one after the other in one transaction (a later item sees the
 * earlier ones: a domain claimed by item 0 is refused to item 1), and queues the re-resolution of the
 * workspace's signals with them when any was stored. An outcome per input, in order.
 */
export async function upsertCompanies(deps: DirectoryDeps, workspaceId: string, inputs: CompanyInput[], now: Date): Promise<UpsertOutcome<CompanyView>[]> {
  if (!inputs.length) return [];
  return withTransaction(deps.pool, async (client) => {
    await lockDirectory(client, workspaceId);
    const out: UpsertOutcome<CompanyView>[] = [];
    for (const input of inputs) out.push(await upsertCompanyIn(client, workspaceId, input, now));
    if (out.some((o) => o.ok)) await queueResolution(deps.boss, client, workspaceId);
    return out;
  });
}

/** Upserts people by external_id, like `upsertCompanies`. */
export async function upsertPeople(deps: DirectoryDeps, workspaceId: string, inputs: PersonInput[], now: Date): Promise<UpsertOutcome<PersonView>[]> {
  if (!inputs.length) return [];
  return withTransaction(deps.pool, async (client) => {
    await lockDirectory(client, workspaceId);
    const refused = deps.screenPeople ? await deps.screenPeople(client, workspaceId, inputs) : new Map<number, { code: string; message: string }>();
    const out: UpsertOutcome<PersonView>[] = [];
    for (const [i, input] of inputs.entries()) {
      const refusal = refused.get(i);
      out.push(refusal ? { ok: false, ...refusal } : await upsertPersonIn(client, workspaceId, input, now));
    }
    if (out.some((o) => o.ok)) await queueResolution(deps.boss, client, workspaceId);
    return out;
  });
}

/**
 * Deletes a company: its domains go with it (FK cascade), its people and signals stay, unlinked (FK SET
 * NULL), and the workspace's signals are re-resolved. False when the workspace has no such company.
 */
export async function deleteCompany(deps: DirectoryDeps, workspaceId: string, externalId: string): Promise<boolean> {
  return withTransaction(deps.pool, async (client) => {
    await lockDirectory(client, workspaceId);
    const { rowCount } = await client.query('DELETE FROM companies WHERE workspace_id = $1 AND external_id = $2', [workspaceId, externalId]);
    if (!rowCount) return false;
    await queueResolution(deps.boss, client, workspaceId);
    return true;
  });
}

/** Deletes a person (their company stays); the workspace's signals are re-resolved. False when there is none. */
export async function deletePerson(deps: DirectoryDeps, workspaceId: string, externalId: string): Promise<boolean> {
  return withTransaction(deps.pool, async (client) => {
    await lockDirectory(client, workspaceId);
    const { rowCount } = await client.query('DELETE FROM people WHERE workspace_id = $1 AND external_id = $2', [workspaceId, externalId]);
    if (!rowCount) return false;
    await queueResolution(deps.boss, client, workspaceId);
    return true;
  });
}

export async function getCompany(db: Queryable, workspaceId: string, externalId: string): Promise<CompanyView | undefined> {
  const { rows } = await db.query<CompanyRow>(`SELECT ${COMPANY_COLUMNS} FROM companies c WHERE c.workspace_id = $1 AND c.external_id = $2`, [workspaceId, externalId]);
  return rows[0] && companyView(rows[0]);
}

export async function getPerson(db: Queryable, workspaceId: string, externalId: string): Promise<PersonView | undefined> {
  const { rows } = await db.query<PersonRow>(
    `SELECT ${PERSON_COLUMNS} FROM people p LEFT JOIN companies c ON c.id = p.company_id WHERE p.workspace_id = $1 AND p.external_id = $2`,
    [workspaceId, externalId],
  );
  return rows[0] && personView(rows[0]);
}

export class DirectoryCursorError extends Error {
  override name = 'DirectoryCursorError';
}

function encodeCursor(createdAt: Date, id: string): string {
  return Buffer.from(`${createdAt.getTime()}.${id}`).toString('base64url');
}

function decodeCursor(cursor: string, prefix: 'cmp' | 'per'): { createdAt: Date; id: string } {
  const m = new RegExp(`^(\\d{1,16})\\.(${prefix}_[0-9a-z]{26})$`).exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  const createdAt = m ? new Date(Number(m[1])) : new Date(NaN);
  if (!m || Number.isNaN(createdAt.getTime())) throw new DirectoryCursorError('cursor is not a nextCursor returned by this API');
  return { createdAt, id: m[2]! };
}

export interface Page {
  limit: number;
  cursor?: string | undefined;
}

async function listPage<R extends { id: string; created_at: Date }>(db: Queryable, sql: (where: string) => string, workspaceId: string, page: Page, prefix: 'cmp' | 'per') {
  const after = page.cursor ? decodeCursor(page.cursor, prefix) : undefined;
  const { rows } = await db.query<R>(sql('($2::timestamptz IS NULL OR (x.created_at, x.id) < ($2, $3))'), [workspaceId, after?.createdAt ?? null, after?.id ?? null, page.limit + 1]);
  const more = rows.length > page.limit;
  const pageRows = more ? rows.slice(0, page.limit) : rows;
  const last = pageRows[pageRows.length - 1];
  return { rows: pageRows, nextCursor: more && last ? encodeCursor(last.created_at, last.id) : undefined };
}

/** One page of the workspace's companies, newest first (keyset on created_at, id: new ones never shift later pages). */
export async function listCompanies(db: Queryable, workspaceId: string, page: Page): Promise<{ companies: CompanyView[]; nextCursor?: string }> {
  const { rows, nextCursor } = await listPage<CompanyRow>(db, (where) =>
    `SELECT ${COMPANY_COLUMNS} FROM companies c WHERE c.workspace_id = $1 AND ${where.replaceAll('x.', 'c.')}
      ORDER BY c.created_at DESC, c.id DESC LIMIT $4`, workspaceId, page, 'cmp');
  return { companies: rows.map(companyView), ...(nextCursor ? { nextCursor } : {}) };
}

/** One page of the workspace's people, newest first. */
export async function listPeople(db: Queryable, workspaceId: string, page: Page): Promise<{ people: PersonView[]; nextCursor?: string }> {
  const { rows, nextCursor } = await listPage<PersonRow>(db, (where) =>
    `SELECT ${PERSON_COLUMNS} FROM people p LEFT JOIN companies c ON c.id = p.company_id WHERE p.workspace_id = $1 AND ${where.replaceAll('x.', 'p.')}
      ORDER BY p.created_at DESC, p.id DESC LIMIT $4`, workspaceId, page, 'per');
  return { people: rows.map(personView), ...(nextCursor ? { nextCursor } : {}) };
}
