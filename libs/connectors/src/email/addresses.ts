import { randomBytes } from 'node:crypto';
import { withTransaction } from '@loupe/db';
import type pg from 'pg';

type Db = Pick<pg.Pool, 'query'>;

/** `fwd+<26 letters and digits>@<domain>`: 130 random bits, lower case (mail systems may lower-case a local part). */
const FORWARDING = /^fwd\+([a-z2-7]{26})@([^@\s]+)$/i;
const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';

function newToken(): string {
  const bytes = randomBytes(26);
  return Array.from(bytes, (b) => BASE32[b & 31]).join('');
}

export const forwardingAddress = (token: string, domain: string) => `fwd+${token}@${domain}`;

/** The token of a forwarding address of `domain`, or undefined when the address is not one. */
export function forwardingToken(address: string, domain: string): string | undefined {
  const m = FORWARDING.exec(address.trim());
  return m && m[2]!.toLowerCase() === domain.toLowerCase() ? m[1]!.toLowerCase() : undefined;
}

export interface ProjectAddress {
  productId: string;
  productName: string;
  projectId: string;
  projectName: string;
  /** Undefined until the project's address is first asked for. */
  token: string | undefined;
  createdAt: Date | undefined;
}

/** Every project of the workspace with its forwarding address, if it has one yet (product, then project, by name). */
export async function listProjectAddresses(db: Db, workspaceId: string): Promise<ProjectAddress[]> {
  const { rows } = await db.query<{ product_id: string; product_name: string; project_id: string; project_name: string; token: string | null; created_at: Date | null }>(
    `SELECT p.id AS product_id, p.name AS product_name, j.id AS project_id, j.name AS project_name, a.token, a.created_at
       FROM projects j JOIN products p ON p.id = j.product_id AND p.workspace_id = j.workspace_id
       LEFT JOIN inbound_addresses a ON a.workspace_id = j.workspace_id AND a.project_id = j.id
      WHERE j.workspace_id = $1 ORDER BY p.name, p.id, j.name, j.id LIMIT 1000`,
    [workspaceId],
  );
  return rows.map((r) => ({
    productId: r.product_id, productName: r.product_name, projectId: r.project_id, projectName: r.project_name, token: r.token ?? undefined, createdAt: r.created_at ?? undefined,
  }));
}

/**
 * The project's forwarding token, made on first use; undefined when the workspace has no such project. With
 * `rotate`, a new one replaces it: mail to the old address is refused from then on.
 */
export async function projectAddressToken(db: Db, workspaceId: string, projectId: string, now: Date, options: { rotate?: boolean } = {}): Promise<string | undefined> {
  const token = newToken();
  const { rows } = await db.query<{ token: string }>(
    `INSERT INTO inbound_addresses (token, workspace_id, project_id, created_at)
     SELECT $3, j.workspace_id, j.id, $4 FROM projects j WHERE j.workspace_id = $1 AND j.id = $2
     ON CONFLICT (workspace_id, project_id) DO UPDATE SET token = CASE WHEN $5 THEN EXCLUDED.token ELSE inbound_addresses.token END,
       created_at = CASE WHEN $5 THEN EXCLUDED.created_at ELSE inbound_addresses.created_at END
     RETURNING token`,
    [workspaceId, projectId, token, now, options.rotate === true],
  );
  return rows[0]?.token;
}

export interface AddressTarget {
  workspaceId: string;
  productId: string;
  projectId: string;
}

/** Where mail to a forwarding token goes: its workspace, product and project (still there), or undefined. */
export async function addressTarget(db: Db, token: string): Promise<AddressTarget | undefined> {
  const { rows } = await db.query<{ workspace_id: string; product_id: string; project_id: string }>(
    `SELECT a.workspace_id, j.product_id, a.project_id FROM inbound_addresses a
       JOIN projects j ON j.id = a.project_id AND j.workspace_id = a.workspace_id
      WHERE a.token = $1`,
    [token.toLowerCase()],
  );
  const row = rows[0];
  return row && { workspaceId: row.workspace_id, productId: row.product_id, projectId: row.project_id };
}

const DOMAIN = /^(?=.{1,253}$)(?:[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?\.)+[a-z][a-z0-9-]{0,62}$/;
export const MAX_SENDER_DOMAINS = 50;

/**
 * A list of sender domains as a person types it (commas, spaces or lines; `@acme.com` and `Acme.COM` mean
 * `acme.com`), or what is wrong with it, naming the entry.
 */
export function parseDomainList(text: string): { domains: string[] } | { error: string } {
  const entries = text.split(/[\s,;]+/).map((e) => e.trim().replace(/^@/, '').replace(/\.$/, '').toLowerCase()).filter(Boolean);
  const domains = [...new Set(entries)];
  const bad = domains.find((d) => !DOMAIN.test(d));
  if (bad !== undefined) return { error: `"${bad.slice(0, 100)}" is not a mail domain (like acme.com): give domains only, no addresses or wildcards` };
  if (domains.length > MAX_SENDER_DOMAINS) return { error: `At most ${MAX_SENDER_DOMAINS} domains; ${domains.length} were given` };
  return { domains };
}

export interface SenderDomains {
  domains: string[];
  /** True when none is set: the domains of the members' emails apply. */
  fromMembers: boolean;
}

/** The domains a workspace accepts forwarded mail from: its own list, or without one its members' email domains. */
export async function senderDomains(db: Db, workspaceId: string): Promise<SenderDomains> {
  const set = await db.query<{ domain: string }>('SELECT domain FROM inbound_sender_domains WHERE workspace_id = $1 ORDER BY domain', [workspaceId]);
  if (set.rows.length) return { domains: set.rows.map((r) => r.domain), fromMembers: false };
  const { rows } = await db.query<{ domain: string }>(
    `SELECT DISTINCT lower(split_part(u.email, '@', 2)) AS domain FROM memberships m JOIN users u ON u.id = m.user_id
      WHERE m.workspace_id = $1 AND u.email LIKE '%@%' ORDER BY 1 LIMIT 200`,
    [workspaceId],
  );
  return { domains: rows.map((r) => r.domain).filter(Boolean), fromMembers: true };
}

/** Replaces the workspace's list (an empty list: back to the members' domains). */
export async function setSenderDomains(pool: pg.Pool, workspaceId: string, domains: readonly string[], now: Date): Promise<void> {
  await withTransaction(pool, async (client) => {
    await client.query('DELETE FROM inbound_sender_domains WHERE workspace_id = $1', [workspaceId]);
    if (domains.length) {
      await client.query(
        'INSERT INTO inbound_sender_domains (workspace_id, domain, created_at) SELECT $1, d, $3 FROM unnest($2::text[]) AS d ON CONFLICT DO NOTHING',
        [workspaceId, domains, now],
      );
    }
  });
}

/** The domain of an address, lower case. */
export const domainOf = (address: string) => address.slice(address.lastIndexOf('@') + 1).toLowerCase();

/** True when `domain` is one of `allowed` or a subdomain of one (`eu.acme.com` under `acme.com`). */
export function domainAllowed(domain: string, allowed: readonly string[]): boolean {
  const d = domain.toLowerCase();
  return allowed.some((a) => d === a || d.endsWith(`.${a}`));
}
