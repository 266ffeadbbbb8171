import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { launchChromium } from '@loupe/browser-testing';
import { startCallbackServer } from './callback-server';
import { registerOAuthClient } from './oauth-flow';
import { packageBin, runBin, startProcess, type Started } from './process';

const SPEC_TOOLS = ['add_signals', 'update_signals', 'add_source', 'create_shaping_note', 'update_shaping_note', 'find_skills', 'read_skills', 'read_source', 'get_products', 'view_item', 'get_opportunities'];
const WRITING_TOOLS = ['add_signals', 'update_signals', 'add_source', 'create_shaping_note', 'update_shaping_note'];

interface ToolResult {
  content: Array<{ type: string; text?: string }>;
  structuredContent?: Record<string, unknown>;
  isError?: boolean;
}

// The MCP Inspector's CLI (v2, a client built on the MCP SDK's v2 client, not ours) as a separate
// process against `npm start`, once with the demo API key and once with an OAuth access token that
// the demo user granted on the real pages in Chromium.
describe('MCP Inspector CLI', () => {
  let dataDir: string;
  let home: string;
  let service: Started;
  let browser: Browser;
  let callbacks: Awaited<ReturnType<typeof startCallbackServer>>;
  let apiKey: string;
  let productId: string;
  let accessToken: string;
  const inspector = packageBin('@modelcontextprotocol/inspector', 'mcp-inspector');

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-inspector-'));
    home = path.join(dataDir, 'home'); // the Inspector keeps its catalog and secrets under $HOME
    delete process.env.DATABASE_URL;
    [service, browser, callbacks] = await Promise.all([
      startProcess({ DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) }),
      launchChromium(),
      startCallbackServer(),
    ]);
    apiKey = /API key:\s+(\S+)/.exec(service.output())![1]!;
    productId = /Product id:\s+(\S+)/.exec(service.output())![1]!;
    const flow = await registerOAuthClient(service, callbacks, 'Inspector E2E');
    accessToken = (await flow.authorizeAs(browser, 'demo@loupe.local', 'Demo workspace', 'mcp:read')).access_token;
  });
  afterAll(async () => {
    await browser?.close();
    await callbacks?.close();
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  /** One Inspector CLI run with `--format json`: its exit code and the JSON it printed. */
  async function inspect(header: string, ...args: string[]) {
    const run = await runBin(inspector, ['--cli', `${service.url}/api/mcp`, '--transport', 'http', '--header', header, '--stored-auth-only', '--format', 'json', ...args], {
      env: { HOME: home },
      cwd: dataDir,
      timeoutMs: 60_000,
    });
    const printed = (run.stdout.trim() || run.stderr.trim().split('\n').pop()) ?? '';
    let json: { result?: Record<string, unknown>; error?: { code: string; message: string } } = {};
    try {
      json = JSON.parse(printed) as typeof json;
    } catch {
      // not JSON: the assertions below show the raw output
    }
    return { code: run.code, json, output: `${run.stdout}\n${run.stderr}` };
  }
  const withKey = (...args: string[]) => inspect(`x-api-key: ${apiKey}`, ...args);
  const withToken = (...args: string[]) => inspect(`Authorization: Bearer ${accessToken}`, ...args);
  const call = (run: Awaited<ReturnType<typeof inspect>>) => run.json.result as unknown as ToolResult;

  it('API key: tools/list has every tool of the spec, writing tools marked readOnlyHint false, and no schema the Inspector finds unportable (--strict)', async () => {
    const run = await withKey('--method', 'tools/list', '--strict');
    expect(run.code, run.output).toBe(0); // --strict exits 6 on an error-severity portability problem
    const tools = (run.json.result as { tools: Array<{ name: string; inputSchema: { type: string }; annotations?: { readOnlyHint?: boolean } }> }).tools;
    expect(tools.map((t) => t.name)).toEqual(expect.arrayContaining(SPEC_TOOLS));
    for (const tool of tools) expect(tool.inputSchema.type, tool.name).toBe('object');
    for (const name of WRITING_TOOLS) expect(tools.find((t) => t.name === name)!.annotations?.readOnlyHint, name).toBe(false);
  });

  it('API key: tools/call answers structured content; a note written with arguments reads back through view_item', async () => {
    const products = await withKey('--method', 'tools/call', '--tool-name', 'get_products');
    expect(products.code, products.output).toBe(0);
    expect(call(products).structuredContent).toMatchObject({ default_product_id: productId, products: [{ id: productId, is_default: true }] });

    const created = await withKey('--method', 'tools/call', '--tool-name', 'create_shaping_note', '--tool-arg', 'title=Faster exports', 'content=# Problem\nExports time out.', 'status=ideas');
    expect(created.code, created.output).toBe(0);
    expect(call(created).isError).toBeFalsy();
    const note = call(created).structuredContent as { id: string; product_id: string; title: string };
    expect(note).toMatchObject({ product_id: productId, title: 'Faster exports' });

    const read = await withKey('--method', 'tools/call', '--tool-name', 'view_item', '--tool-arg', `item_id=${note.id}`, 'item_type=shaping_note');
    expect(read.code, read.output).toBe(0);
    expect(call(read).structuredContent).toMatchObject({ item_type: 'shaping_note', item: { id: note.id, title: 'Faster exports', content: '# Problem\nExports time out.' } });
  });

  it('API key: a tool error is an isError result (the Inspector exits 5) with the message of spec 7.4', async () => {
    const run = await withKey('--method', 'tools/call', '--tool-name', 'read_source', '--tool-arg', 'source_id=src_unknown');
    expect(run.code, run.output).toBe(5);
    expect(call(run).isError).toBe(true);
    expect(call(run).content[0]!.text).toMatch(/^Source not found or access denied/);
  });

  it('OAuth access token: tools/list and tools/call reach the workspace the person approved, with no default product', async () => {
    const list = await withToken('--method', 'tools/list');
    expect(list.code, list.output).toBe(0);
    // The token was granted mcp:read only: the signal writers are not listed to it (issue 24 item 2).
    const names = (list.json.result as { tools: Array<{ name: string }> }).tools.map((t) => t.name);
    expect(names).toEqual(expect.arrayContaining(SPEC_TOOLS.filter((n) => n !== 'add_signals' && n !== 'update_signals')));
    expect(names).not.toContain('add_signals');
    expect(names).not.toContain('update_signals');

    const products = await withToken('--method', 'tools/call', '--tool-name', 'get_products');
    expect(products.code, products.output).toBe(0);
    expect(call(products).structuredContent).toMatchObject({ products: [{ id: productId, is_default: false }] });
    expect(call(products).structuredContent).not.toHaveProperty('default_product_id'); // no default: left out (results carry no nulls)

    const unscoped = await withToken('--method', 'tools/call', '--tool-name', 'create_shaping_note', '--tool-arg', 'title=t', 'content=c');
    expect(unscoped.code, unscoped.output).toBe(5);
    expect(call(unscoped).content[0]!.text).toMatch(/^product_id is required/);
    const scoped = await withToken('--method', 'tools/call', '--tool-name', 'create_shaping_note', '--tool-arg', `product_id=${productId}`, 'title=From the token', 'content=c');
    expect(scoped.code, scoped.output).toBe(0);
    expect(call(scoped).structuredContent).toMatchObject({ product_id: productId, title: 'From the token' });
  });

  it('a wrong API key or access token: the Inspector stops with auth_required (exit 3) and the server\'s reason', async () => {
    const key = await inspect('x-api-key: loupe_sk_not-a-key', '--method', 'tools/list');
    expect(key.code, key.output).toBe(3);
    expect(key.json.error).toMatchObject({ code: 'auth_required', message: expect.stringContaining('Invalid API key') });
    const token = await inspect('Authorization: Bearer loupe_at_not-a-token', '--method', 'tools/list');
    expect(token.code, token.output).toBe(3);
    expect(token.json.error).toMatchObject({ code: 'auth_required' });
  });
});
