import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { z } from 'zod';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { runTool, startProcess, type Started } from './process';

// A workspace of `npm start` connects another vendor's MCP server (on loopback, allowed here by
// FETCH_ALLOW_LOOPBACK) through the admin CLI; a key with mcp:thirdparty uses its tools.
describe('third-party MCP servers against npm start', () => {
  let dataDir: string;
  let service: Started;
  let vendor: http.Server;
  let vendorUrl: string;
  let env: Record<string, string>;

  beforeAll(async () => {
    vendor = http.createServer(async (req, res) => {
      const chunks: Buffer[] = [];
      for await (const c of req) chunks.push(c as Buffer);
      if (req.headers.authorization !== 'Bearer vendor-secret') return void res.writeHead(401).end();
      const mcp = new McpServer({ name: 'tracker', version: '1.0.0' });
      mcp.registerTool('create_issue', { description: 'Files an issue', inputSchema: { title: z.string() } },
        async ({ title }) => ({ content: [{ type: 'text', text: `Filed "${title}" as TRK-1` }] }));
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      await mcp.connect(transport);
      await transport.handleRequest(req, res, JSON.parse(Buffer.concat(chunks).toString() || 'null'));
    });
    await new Promise<void>((r) => vendor.listen(0, '127.0.0.1', r));
    vendorUrl = `http://127.0.0.1:${(vendor.address() as AddressInfo).port}/mcp`;
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-tp-'));
    delete process.env.DATABASE_URL;
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()), FETCH_ALLOW_LOOPBACK: 'true' };
    service = await startProcess(env);
  });
  afterAll(async () => {
    await service?.stop();
    vendor?.closeAllConnections();
    await new Promise((r) => vendor?.close(r));
    await rm(dataDir, { recursive: true, force: true });
  });

  it('offers the connected server\'s tools to a key with mcp:thirdparty, and never to a key without it', async () => {
    const admin = async (...args: string[]) => {
      const r = await runTool('tools/src/admin.ts', args, env);
      expect(r.code, r.stderr).toBe(0);
      return r.stdout;
    };
    const ws = /Workspace:\s+(\S+)/.exec(service.output())![1]!;
    const productId = /Product id:\s+(\S+)/.exec(service.output())![1]!;
    expect(await admin('third-party', 'add', '--workspace', ws, '--name', 'Tracker', '--url', vendorUrl, '--header', 'Authorization: Bearer vendor-secret'))
      .toContain('offered as tracker__<tool>');
    const listed = await admin('third-party', 'list', '--workspace', ws);
    expect(listed).toContain('auth: yes');
    expect(listed).not.toContain('vendor-secret');
    const key = (await admin('key', 'create', '--workspace', ws, '--name', 'tp', '--permissions', 'mcp:read,mcp:thirdparty', '--product', productId)).trim().split('\n').pop()!;

    const connect = async (apiKey: string) => {
      const client = new Client({ name: 'e2e-tp', version: '1.0.0' });
      await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/api/mcp`), { requestInit: { headers: { 'x-api-key': apiKey } } }));
      return client;
    };
    const client = await connect(key);
    const tools = (await client.listTools()).tools;
    expect(tools.find((t) => t.name === 'tracker__create_issue')).toMatchObject({ description: '[Tracker] Files an issue', inputSchema: { properties: { title: { type: 'string' } } } });
    const filed = await client.callTool({ name: 'tracker__create_issue', arguments: { title: 'Exports time out' } });
    expect(filed).toMatchObject({ content: [{ type: 'text', text: 'Filed "Exports time out" as TRK-1' }] });
    await client.close();

    const plainKey = (await admin('key', 'create', '--workspace', ws, '--name', 'plain', '--permissions', 'mcp:read,mcp:write', '--product', productId)).trim().split('\n').pop()!;
    const plain = await connect(plainKey);
    expect((await plain.listTools()).tools.some((t) => t.name.startsWith('tracker__'))).toBe(false);
    expect((await plain.callTool({ name: 'tracker__create_issue', arguments: { title: 'x' } })).isError).toBe(true);
    await plain.close();
  });
});
