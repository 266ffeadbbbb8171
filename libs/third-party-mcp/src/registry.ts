import net from 'node:net';
import { newId } from '@loupe/db';
import type pg from 'pg';
import { z } from 'zod';
import { ThirdPartyServerError } from './errors';
import { encryptHeaderValue, headerKey } from './header-secret';

export const SLUG_MAX = 24;
export const NAME_MAX = 64;
export const URL_MAX = 2048;
export const HEADER_VALUE_MAX = 8192;

/** A third-party MCP server as it may be shown: never the header value. */
export interface ThirdPartyServer {
  id: string;
  workspaceId: string;
  name: string;
  /** Prefix of its tools' names: `<slug>__<tool>`. */
  slug: string;
  url: string;
  hasAuth: boolean;
  createdAt: Date;
}

export interface AddThirdPartyServer {
  workspaceId: string;
  name: string;
  url: string;
  /** Sent with every request to the server (an API key, usually); stored encrypted. */
  authHeader?: { name: string; value: string } | undefined;
  /** Accept http://127.0.0.1 and friends (tests, local development); https otherwise. */
  allowLoopback?: boolean | undefined;
}

/** Headers the transport sets itself, or that would change how the request is framed or routed. */
const RESERVED_HEADERS = new Set([
  'host', 'content-length', 'content-type', 'content-encoding', 'transfer-encoding', 'connection', 'keep-alive',
  'upgrade', 'te', 'trailer', 'expect', 'accept', 'accept-encoding', 'user-agent', 'proxy-authorization',
  'proxy-connection', 'mcp-session-id', 'mcp-protocol-version', 'last-event-id', 'http2-settings',
]);
const HTTP_TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const addSchema = z.object({
  workspaceId: z.string({ error: 'workspaceId is required' }).trim().min(1, 'workspaceId is required'),
  name: z
    .string({ error: 'name is required' })
    .trim()
    .min(1, 'name is required (1 to 64 characters)')
    .max(NAME_MAX, `name is longer than ${NAME_MAX} characters`),
  url: z.string({ error: 'url is required' }).trim().min(1, 'url is required').max(URL_MAX, `url is longer than ${URL_MAX} characters`),
  authHeader: z
    .object({
      name: z
        .string()
        .trim()
        .regex(HTTP_TOKEN, 'the header name must be an HTTP token (letters, digits and !#$%&\'*+.^_`|~-, no spaces or colon)')
        .refine((n) => !RESERVED_HEADERS.has(n.toLowerCase()) && !n.toLowerCase().startsWith('proxy-'), {
          error: (issue) => `the header ${String(issue.input)} cannot be set: the connection sets it itself`,
        }),
      value: z
        .string()
        .trim()
        .min(1, 'the header value is empty')
        .max(HEADER_VALUE_MAX, `the header value is longer than ${HEADER_VALUE_MAX} characters`)
        .refine((v) => !/[\r\n\0]/.test(v), 'the header value cannot contain line breaks or NUL'),
    })
    .optional(),
  allowLoopback: z.boolean().optional(),
});

/** `Linear (prod)` → `linear_prod`: lower case, runs of anything but a–z and 0–9 as one `_`, at most 24 characters. */
export function slugFor(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '')
    .slice(0, SLUG_MAX)
    .replace(/_+$/, '');
}

function isLoopbackHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost')) return true;
  if (net.isIPv4(host)) return host.startsWith('127.');
  return host === '::1';
}

function checkUrl(input: string, allowLoopback: boolean): string {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new ThirdPartyServerError(`url ${JSON.stringify(input.slice(0, 100))} is not an absolute URL (like https://mcp.example.com/mcp)`, 'url');
  }
  if (url.username || url.password) {
    throw new ThirdPartyServerError('url must not carry credentials; pass them as the auth header instead', 'url');
  }
  if (url.protocol === 'https:') return url.toString();
  if (url.protocol === 'http:') {
    if (allowLoopback && isLoopbackHost(url.hostname)) return url.toString();
    throw new ThirdPartyServerError(`url must use https (http is accepted only for loopback addresses in development): ${url.origin}`, 'url');
  }
  throw new ThirdPartyServerError(`url must be an https URL, not ${url.protocol}`, 'url');
}

interface Row {
  id: string;
  workspace_id: string;
  name: string;
  slug: string;
  url: string;
  has_auth: boolean;
  created_at: Date;
}

const COLUMNS = 'id, workspace_id, name, slug, url, auth_header_value IS NOT NULL AS has_auth, created_at';

function toServer(row: Row): ThirdPartyServer {
  return {
    id: row.id, workspaceId: row.workspace_id, name: row.name, slug: row.slug, url: row.url, hasAuth: row.has_auth, createdAt: row.created_at,
  };
}

function slugClash(slug: string, other: { id: string; name: string } | undefined): ThirdPartyServerError {
  const holder = other ? `"${other.name}" (${other.id})` : 'another server';
  return new ThirdPartyServerError(
    `the name gives the tool prefix "${slug}", which ${holder} in this workspace already uses; choose a different name or remove that server`,
    'name',
  );
}

/** Connects a third-party MCP server to a workspace. */
export async function addThirdPartyServer(pool: pg.Pool, input: AddThirdPartyServer): Promise<ThirdPartyServer> {
  const parsed = addSchema.safeParse(input);
  if (!parsed.success) {
    const issue = parsed.error.issues[0]!;
    const field = issue.path.join('.');
    throw new ThirdPartyServerError(issue.message, field || undefined);
  }
  const { workspaceId, name, authHeader } = parsed.data;
  const url = checkUrl(parsed.data.url, parsed.data.allowLoopback ?? false);
  const slug = slugFor(name);
  if (!slug) throw new ThirdPartyServerError('name must contain at least one letter or digit (it makes the tool prefix)', 'name');

  const { rows: clash } = await pool.query<{ id: string; name: string }>(
    'SELECT id, name FROM third_party_servers WHERE workspace_id = $1 AND slug = $2',
    [workspaceId, slug],
  );
  if (clash[0]) throw slugClash(slug, clash[0]);

  const headerValue = authHeader ? encryptHeaderValue(await headerKey(pool), authHeader.value) : null;
  try {
    const { rows } = await pool.query<Row>(
      `INSERT INTO third_party_servers (id, workspace_id, name, slug, url, auth_header_name, auth_header_value)
       VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${COLUMNS}`,
      [newId('tps'), workspaceId, name, slug, url, authHeader?.name ?? null, headerValue],
    );
    return toServer(rows[0]!);
  } catch (error) {
    const code = (error as { code?: string }).code;
    if (code === '23505') throw slugClash(slug, undefined);
    if (code === '23503') throw new ThirdPartyServerError(`workspace ${workspaceId} does not exist`, 'workspaceId');
    throw error;
  }
}

export async function listThirdPartyServers(pool: pg.Pool, workspaceId: string): Promise<ThirdPartyServer[]> {
  const { rows } = await pool.query<Row>(
    `SELECT ${COLUMNS} FROM third_party_servers WHERE workspace_id = $1 ORDER BY created_at, id`,
    [workspaceId],
  );
  return rows.map(toServer);
}

/** True when the server existed in that workspace and is gone. */
export async function removeThirdPartyServer(pool: pg.Pool, workspaceId: string, id: string): Promise<boolean> {
  const { rowCount } = await pool.query('DELETE FROM third_party_servers WHERE workspace_id = $1 AND id = $2', [workspaceId, id]);
  return (rowCount ?? 0) > 0;
}

/** A server with what it takes to connect: the header value still encrypted. For the gateway. */
export interface StoredServer {
  id: string;
  name: string;
  slug: string;
  url: string;
  authHeaderName: string | null;
  authHeaderValue: string | null;
}

export async function storedServers(pool: pg.Pool, workspaceId: string, slug?: string): Promise<StoredServer[]> {
  const { rows } = await pool.query<StoredServer>(
    `SELECT id, name, slug, url, auth_header_name AS "authHeaderName", auth_header_value AS "authHeaderValue"
     FROM third_party_servers WHERE workspace_id = $1 AND ($2::text IS NULL OR slug = $2) ORDER BY created_at, id`,
    [workspaceId, slug ?? null],
  );
  return rows;
}
