import { newId } from '@loupe/db';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { ThirdPartyServerError } from '@loupe/third-party-mcp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseHeaderFlag, thirdPartyCommand, ThirdPartyUsageError } from './admin-third-party';

describe('admin third-party commands', () => {
  let t: TestDatabase;
  beforeAll(async () => {
    t = await createTestDatabase();
  });
  afterAll(() => t.close());

  it('adds, lists without the header value, and removes', async () => {
    const ws = newId('ws');
    await t.pool.query('INSERT INTO workspaces (id, name) VALUES ($1, $1)', [ws]);
    const deps = { pool: t.pool };
    expect(await thirdPartyCommand('list', { workspace: ws }, deps)).toEqual(['No third-party servers']);

    const added = await thirdPartyCommand(
      'add', { workspace: ws, name: 'Linear', url: 'https://mcp.linear.app/mcp', header: 'Authorization: Bearer lin_secret_123' }, deps,
    );
    expect(added[0]).toMatch(/^Added third-party server tps_\w+ \(Linear\) at https:\/\/mcp\.linear\.app\/mcp, auth: yes$/);
    expect(added[1]).toBe('Its tools are offered as linear__<tool>.');
    await thirdPartyCommand('add', { workspace: ws, name: 'Notion', url: 'https://mcp.notion.com/mcp' }, deps);

    const listed = await thirdPartyCommand('list', { workspace: ws }, deps);
    expect(listed).toHaveLength(2);
    expect(listed[0]).toMatch(/^tps_\w+ {2}Linear {2}prefix=linear__ {2}https:\/\/mcp\.linear\.app\/mcp {2}auth: yes {2}created /);
    expect(listed[1]).toContain('auth: no');
    expect(listed.join('\n')).not.toContain('lin_secret');

    const id = listed[0]!.split('  ')[0]!;
    expect(await thirdPartyCommand('remove', { workspace: ws, id }, deps)).toEqual([`Removed third-party server ${id}`]);
    await expect(thirdPartyCommand('remove', { workspace: ws, id }, deps)).rejects.toThrow(/No third-party server/);
    expect(await thirdPartyCommand('list', { workspace: ws }, deps)).toHaveLength(1);
  });

  it('says what is missing or wrong', async () => {
    const deps = { pool: t.pool };
    await expect(thirdPartyCommand('add', { name: 'x', url: 'https://x.example' }, deps)).rejects.toThrow('Missing --workspace');
    await expect(thirdPartyCommand('add', { workspace: 'ws_x', url: 'https://x.example' }, deps)).rejects.toThrow('Missing --name');
    await expect(thirdPartyCommand('add', { workspace: 'ws_x', name: 'x' }, deps)).rejects.toThrow('Missing --url');
    await expect(thirdPartyCommand('list', {}, deps)).rejects.toThrow(ThirdPartyUsageError);
    await expect(thirdPartyCommand('remove', { workspace: 'ws_x' }, deps)).rejects.toThrow('Missing --id');
    await expect(thirdPartyCommand('frobnicate', {}, deps)).rejects.toThrow(/Unknown command "third-party frobnicate"/);
    await expect(thirdPartyCommand('add', { workspace: 'ws_x', name: 'x', url: 'http://x.example' }, deps)).rejects.toThrow(ThirdPartyServerError);
    expect(() => parseHeaderFlag('no colon')).toThrow(/"Name: value"/);
    expect(() => parseHeaderFlag('X-Key:')).toThrow(ThirdPartyUsageError);
    expect(parseHeaderFlag('X-Key: a:b ')).toEqual({ name: 'X-Key', value: 'a:b' });
  });
});
