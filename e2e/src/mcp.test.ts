import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { runTool, startProcess, type Started } from './process';

// The MCP endpoint of `npm start` with the printed demo key, through the MCP SDK's own client.
describe('MCP with the demo key', () => {
  let dataDir: string;
  let service: Started;
  let client: Client;
  let productId: string;
  let projectId: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-mcp-'));
    delete process.env.DATABASE_URL;
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
    service = await startProcess(env);
    const key = /API key:\s+(\S+)/.exec(service.output())![1]!;
    productId = /Product id:\s+(\S+)/.exec(service.output())![1]!;
    projectId = /Project id:\s+(\S+)/.exec(service.output())![1]!;
    client = new Client({ name: 'e2e', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/api/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
  });
  afterAll(async () => {
    await client?.close();
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('get_products shows the demo product as the key\'s default', async () => {
    const r = await client.callTool({ name: 'get_products', arguments: {} });
    expect(r.structuredContent).toMatchObject({ default_product_id: productId, products: [{ id: productId, is_default: true, projects: [{ id: projectId }] }] });
  });

  it('the demo workspace has customer evidence to explore at once', async () => {
    let items: Array<{ title: string; status: string }> = [];
    for (let i = 0; i < 60 && items.filter((s) => s.status === 'ready').length < 5; i++) {
      const found = await client.callTool({ name: 'find_sources', arguments: {} });
      items = (found.structuredContent as { items: typeof items }).items;
      if (items.filter((s) => s.status === 'ready').length < 5) await new Promise((r) => setTimeout(r, 250));
    }
    expect(items.map((s) => s.title)).toEqual(expect.arrayContaining(['Quarterly review with Globex', 'Support chat: SAML login', 'Procurement call with Soylent']));
    const sso = await client.callTool({ name: 'find_sources', arguments: { query: 'SSO' } });
    expect((sso.structuredContent as { total: number }).total).toBeGreaterThanOrEqual(3);
  });

  it('signals recorded on demo sources become opportunities, recomputed by the worker', async () => {
    const found = await client.callTool({ name: 'find_sources', arguments: { query: 'SSO' } });
    const sources = (found.structuredContent as { items: Array<{ id: string }> }).items;
    for (const [i, s] of sources.entries()) {
      const r = await client.callTool({ name: 'add_signals', arguments: { source_id: s.id, signals: [{ type: 'need', title: `Needs SSO (${i})`, content: 'The company requires single sign-on through its identity provider before rolling out.' }] } });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    }
    let items: Array<{ evidence_count: number; title: string }> = [];
    for (let i = 0; i < 80 && !items.some((o) => o.evidence_count === sources.length); i++) {
      await new Promise((r) => setTimeout(r, 250));
      items = ((await client.callTool({ name: 'get_opportunities', arguments: {} })).structuredContent as { items: typeof items }).items;
    }
    expect(items[0]).toMatchObject({ evidence_count: sources.length });
  });

  it('add_source → the worker builds the source → read_source and find_sources see it', async () => {
    const added = await client.callTool({
      name: 'add_source',
      arguments: {
        project_id: projectId,
        source_type: 'call_transcription',
        title: 'Call with Globex about exports (zyxwv)',
        transcript_turns: [
          { speaker: 'Ana (Globex)', text: 'Exporting the quarterly report to Excel takes forever.' },
          { speaker: 'Sam (Loupe)', text: 'How long does it take today?' },
          { speaker: 'Ana (Globex)', text: 'About twenty minutes, and it often times out.' },
        ],
        external_source: 'e2e',
        external_id: 'call-1',
      },
    });
    expect(added.isError, JSON.stringify(added.content)).toBeFalsy();
    const out = added.structuredContent as { status: string; source_id: string | null };
    let sourceId = out.source_id;
    for (let i = 0; i < 40 && !sourceId; i++) {
      await new Promise((r) => setTimeout(r, 250));
      const found = await client.callTool({ name: 'find_sources', arguments: { query: 'zyxwv' } });
      sourceId = (found.structuredContent as { items: Array<{ id: string; status: string }> }).items.find((s) => s.status === 'ready')?.id ?? null;
    }
    expect(sourceId).toBeTruthy();
    const read = await client.callTool({ name: 'read_source', arguments: { source_id: sourceId } });
    const page = read.structuredContent as { segments: Array<{ speaker: string; text: string }>; has_more: boolean };
    expect(page.segments.map((s) => s.speaker)).toEqual(['Ana (Globex)', 'Sam (Loupe)', 'Ana (Globex)']);
    expect(page.has_more).toBe(false);
    const again = await client.callTool({ name: 'add_source', arguments: { project_id: projectId, source_type: 'call_transcription', content: 'same call', external_source: 'e2e', external_id: 'call-1' } });
    expect(again.structuredContent).toMatchObject({ already_exists: true, source_id: sourceId });
  });

  it('charges tool calls and processed sources, pauses a workspace without credits, and keeps local-storage workspaces out (admin CLI)', async () => {
    const admin = async (...args: string[]) => {
      const r = await runTool('tools/src/admin.ts', args, env);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    const ws = /Workspace:\s+(\S+)/.exec(service.output())![1]!;
    const shown = await admin('credits', 'show', '--workspace', ws);
    expect(shown).toMatch(/API key Demo key \(every permission\) \(loupe_sk_\S+…\): \d+ credits/);
    expect(shown).toMatch(/processed records and added sources: \d+ credits/);
    expect(shown).toContain('MCP access is open');

    // A new workspace starts with no credits and no plan: paused, except the skills tools.
    const fresh = /Created workspace (\S+)/.exec(await admin('workspace', 'create', '--name', 'Fresh'))![1]!;
    const product = /Created product (\S+)/.exec(await admin('product', 'create', '--workspace', fresh, '--name', 'App'))![1]!;
    const key = (await admin('key', 'create', '--workspace', fresh, '--name', 'k', '--permissions', 'mcp:read', '--product', product)).trim().split('\n').pop()!;
    const other = new Client({ name: 'e2e-fresh', version: '1.0.0' });
    await other.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/api/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
    const text = (r: Awaited<ReturnType<Client['callTool']>>) => (r.content as Array<{ text: string }>)[0]!.text;
    const paused = await other.callTool({ name: 'get_products', arguments: {} });
    expect(paused.isError).toBe(true);
    expect(text(paused)).toMatch(/^MCP access is paused/);
    expect((await other.callTool({ name: 'find_skills', arguments: {} })).isError).toBeFalsy();
    expect(await admin('credits', 'grant', '--workspace', fresh, '--amount', '2')).toContain('balance 2');
    expect((await other.callTool({ name: 'get_products', arguments: {} })).isError).toBeFalsy();
    await admin('plan', 'set', '--name', 'Team', '--included', '1000', '--overage', 'on');
    await admin('workspace', 'plan', '--workspace', fresh, '--plan', 'Team');
    for (let i = 0; i < 3; i++) expect((await other.callTool({ name: 'get_products', arguments: {} })).isError).toBeFalsy();
    const billed = await admin('credits', 'show', '--workspace', fresh);
    expect(billed).toContain('balance -2 credits');
    expect(billed).toMatch(/API key k \(\S+…\): 4 credits, 4 charges, 2 overage/);

    expect(await admin('member', 'add', '--workspace', fresh, '--email', 'Cy@Fresh.test', '--role', 'admin')).toContain('Created the account of cy@fresh.test as admin');
    expect(await admin('user', 'list', '--workspace', fresh)).toContain('cy@fresh.test');
    expect(await admin('member', 'remove', '--workspace', fresh, '--email', 'cy@fresh.test')).toContain('Removed cy@fresh.test');

    await admin('workspace', 'local-storage', '--workspace', fresh, '--value', 'on');
    const local = await other.callTool({ name: 'find_skills', arguments: {} });
    expect(text(local)).toMatch(/^Tool is not available for this workspace/);
    await other.close();
  });
});
