import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { migrationsDir, newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decryptHeaderValue, encryptHeaderValue, headerKey } from './header-secret';
import {
  addThirdPartyServer, HEADER_KEY_NAME, listThirdPartyServers, removeThirdPartyServer, slugFor, ThirdPartyServerError,
} from './index';

describe('third-party server registry', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  async function workspace(): Promise<string> {
    const id = newId('ws');
    await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $1)', [id]);
    return id;
  }

  async function refusal(promise: Promise<unknown>): Promise<ThirdPartyServerError> {
    const error = await promise.then(() => undefined, (e: unknown) => e);
    expect(error).toBeInstanceOf(ThirdPartyServerError);
    return error as ThirdPartyServerError;
  }

  it('makes slugs from names', () => {
    expect(slugFor('Linear')).toBe('linear');
    expect(slugFor('  Linear (prod) — EU ')).toBe('linear_prod_eu');
    expect(slugFor('__A__b__')).toBe('a_b');
    expect(slugFor('Très Long Name For A Server That Goes On')).toBe('tr_s_long_name_for_a_ser');
    expect(slugFor('a'.repeat(23) + ' b')).toBe('a'.repeat(23));
    expect(slugFor('!!!')).toBe('');
  });

  it('adds, lists and removes servers of one workspace only', async () => {
    const ws = await workspace();
    const other = await workspace();
    const added = await addThirdPartyServer(t.pool, {
      workspaceId: ws, name: 'Linear', url: 'https://mcp.linear.app/mcp', authHeader: { name: 'Authorization', value: 'Bearer lin_123' },
    });
    expect(added).toMatchObject({ workspaceId: ws, name: 'Linear', slug: 'linear', url: 'https://mcp.linear.app/mcp', hasAuth: true });
    expect(added.id).toMatch(/^tps_/);
    expect(added.createdAt).toBeInstanceOf(Date);
    expect(added).not.toHaveProperty('authHeaderValue');
    const second = await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Notion', url: 'https://mcp.notion.com/mcp' });
    expect(second.hasAuth).toBe(false);
    // The same name in another workspace is fine.
    const theirs = await addThirdPartyServer(t.pool, { workspaceId: other, name: 'Linear', url: 'https://mcp.linear.app/mcp' });

    expect((await listThirdPartyServers(t.pool, ws)).map((s) => s.name)).toEqual(['Linear', 'Notion']);
    expect(await removeThirdPartyServer(t.pool, ws, theirs.id)).toBe(false);
    expect(await listThirdPartyServers(t.pool, other)).toHaveLength(1);
    expect(await removeThirdPartyServer(t.pool, ws, added.id)).toBe(true);
    expect(await removeThirdPartyServer(t.pool, ws, added.id)).toBe(false);
    expect((await listThirdPartyServers(t.pool, ws)).map((s) => s.name)).toEqual(['Notion']);
  });

  it('stores the header value encrypted with the shared key', async () => {
    const ws = await workspace();
    const server = await addThirdPartyServer(t.pool, {
      workspaceId: ws, name: 'Secretive', url: 'https://example.com/mcp', authHeader: { name: 'X-Api-Key', value: 'very-secret-value' },
    });
    const { rows } = await t.pool.query<{ auth_header_name: string; auth_header_value: string }>(
      'SELECT auth_header_name, auth_header_value FROM third_party_servers WHERE id = $1', [server.id],
    );
    expect(rows[0]!.auth_header_name).toBe('X-Api-Key');
    expect(rows[0]!.auth_header_value).not.toContain('very-secret');
    expect(rows[0]!.auth_header_value.split('.')).toHaveLength(4);
    const [a, b] = await Promise.all([headerKey(t.pool), headerKey(t.pool)]);
    expect(a.equals(b)).toBe(true);
    expect(decryptHeaderValue(a, rows[0]!.auth_header_value)).toBe('very-secret-value');
    const { rows: keys } = await t.pool.query('SELECT name FROM service_secrets WHERE name = $1', [HEADER_KEY_NAME]);
    expect(keys).toHaveLength(1);
    // Fresh IV each time; tampering is detected.
    const once = encryptHeaderValue(a, 'x');
    expect(encryptHeaderValue(a, 'x')).not.toBe(once);
    const [v, iv, tag, data] = once.split('.');
    // One bit of the ciphertext flipped (a fixed replacement equals the real byte once in 256 runs).
    const tampered = Buffer.from(data!, 'base64url');
    tampered[0]! ^= 1;
    expect(() => decryptHeaderValue(a, [v, iv, tag, tampered.toString('base64url')].join('.'))).toThrow();
  });

  it('refuses bad input with an actionable message', async () => {
    const ws = await workspace();
    const base = { workspaceId: ws, name: 'Server', url: 'https://example.com/mcp' };
    const cases: [Record<string, unknown>, RegExp, string][] = [
      [{ name: '' }, /name is required/, 'name'],
      [{ name: 'x'.repeat(65) }, /longer than 64/, 'name'],
      [{ name: '***' }, /at least one letter or digit/, 'name'],
      [{ url: 'not a url' }, /is not an absolute URL/, 'url'],
      [{ url: 'ftp://example.com/' }, /must be an https URL/, 'url'],
      [{ url: 'http://example.com/mcp' }, /must use https/, 'url'],
      [{ url: 'http://127.0.0.1:1234/mcp' }, /must use https/, 'url'],
      [{ url: 'http://example.com/mcp', allowLoopback: true }, /must use https/, 'url'],
      [{ url: 'https://user:pw@example.com/' }, /must not carry credentials/, 'url'],
      [{ url: `https://example.com/${'a'.repeat(2048)}` }, /longer than 2048/, 'url'],
      [{ authHeader: { name: 'Bad Header', value: 'v' } }, /HTTP token/, 'authHeader.name'],
      [{ authHeader: { name: 'X-Key:', value: 'v' } }, /HTTP token/, 'authHeader.name'],
      [{ authHeader: { name: 'Host', value: 'evil.example' } }, /Host cannot be set/, 'authHeader.name'],
      [{ authHeader: { name: 'content-length', value: '0' } }, /cannot be set/, 'authHeader.name'],
      [{ authHeader: { name: 'X-Key', value: 'a\r\nInjected: 1' } }, /line breaks/, 'authHeader.value'],
      [{ authHeader: { name: 'X-Key', value: '' } }, /empty/, 'authHeader.value'],
      [{ workspaceId: 'ws_missing' }, /workspace ws_missing does not exist/, 'workspaceId'],
    ];
    for (const [input, message, field] of cases) {
      const error = await refusal(addThirdPartyServer(t.pool, { ...base, ...input } as never));
      expect(error.message, JSON.stringify(input)).toMatch(message);
      expect(error.field, JSON.stringify(input)).toBe(field);
    }
    expect(await listThirdPartyServers(t.pool, ws)).toEqual([]);
    const local = await addThirdPartyServer(t.pool, { ...base, url: 'http://127.0.0.1:1234/mcp', allowLoopback: true });
    expect(local.url).toBe('http://127.0.0.1:1234/mcp');
  });

  it('refuses a name whose slug another server of the workspace uses, naming it', async () => {
    const ws = await workspace();
    const first = await addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Linear', url: 'https://a.example/mcp' });
    const error = await refusal(addThirdPartyServer(t.pool, { workspaceId: ws, name: 'LINEAR!', url: 'https://b.example/mcp' }));
    expect(error.message).toContain('"linear"');
    expect(error.message).toContain(`"Linear" (${first.id})`);
    expect(error.field).toBe('name');
    // Two at once: the unique index settles it.
    const results = await Promise.allSettled([
      addThirdPartyServer(t.pool, { workspaceId: ws, name: 'Race', url: 'https://a.example/mcp' }),
      addThirdPartyServer(t.pool, { workspaceId: ws, name: 'race', url: 'https://b.example/mcp' }),
    ]);
    expect(results.filter((r) => r.status === 'fulfilled')).toHaveLength(1);
    const rejected = results.find((r) => r.status === 'rejected') as PromiseRejectedResult;
    expect(rejected.reason).toBeInstanceOf(ThirdPartyServerError);
    expect((rejected.reason as Error).message).toMatch(/"race"/);
  });

  it('the migration backfills slugs of existing rows the way slugFor makes them, numbering clashes', async () => {
    const sql = await readFile(path.join(migrationsDir, '20261123110000_third_party_servers', 'migration.sql'), 'utf8');
    const ws = await workspace();
    const names = ['Linear', '  Linear (prod) — EU ', '__A__b__', 'Très Long Name For A Server That Goes On', `${'a'.repeat(23)} b`, 'LINEAR', '***'];
    const client = await t.pool.connect();
    let slugs: string[];
    try {
      await client.query('BEGIN');
      // Back to the table as it was before the migration, with rows in it; rolled back after.
      await client.query('DROP INDEX third_party_servers_workspace_id_slug_key');
      await client.query('ALTER TABLE third_party_servers DROP COLUMN slug, DROP COLUMN auth_header_name, DROP COLUMN auth_header_value');
      for (const [i, name] of names.entries()) {
        await client.query('INSERT INTO third_party_servers (id, workspace_id, name, url, created_at) VALUES ($1, $2, $3, $4, $5)', [
          `tps_${i}`, ws, name, 'https://example.com/mcp', new Date(Date.UTC(2026, 0, 1, 0, 0, i)),
        ]);
      }
      await client.query(sql);
      const { rows } = await client.query<{ slug: string }>('SELECT slug FROM third_party_servers WHERE workspace_id = $1 ORDER BY id', [ws]);
      slugs = rows.map((r) => r.slug);
    } finally {
      await client.query('ROLLBACK');
      client.release();
    }
    expect(slugs).toEqual([...names.slice(0, 5).map(slugFor), 'linear_2', 'server']);
  });
});
