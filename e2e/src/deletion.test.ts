import { access, mkdtemp, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { runTool, startProcess, until, type Started } from './process';

// Issue 28 against npm start: a source deleted through the API is gone from every tool, the export,
// /metrics and the disk; retention set with the admin CLI is applied by the worker after a restart.
describe('deleting data and retention against npm start', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: Started;
  let files: http.Server;
  let key: string;
  let workspaceId: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-delete-'));
    files = http.createServer((_req, res) => res.end(Buffer.from('the call recording of Zebulon')));
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    delete process.env.DATABASE_URL;
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()), FETCH_ALLOW_LOOPBACK: 'true' };
    service = await startProcess(env);
    key = /API key:\s+(\S+)/.exec(service.output())![1]!;
    workspaceId = /Workspace:\s+(\S+)/.exec(service.output())![1]!;
  });
  afterAll(async () => {
    await service?.stop();
    files?.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  const api = (method: string, p: string, body?: unknown) =>
    fetch(`${service.url}${p}`, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
  async function exported(): Promise<Array<Record<string, any>>> {
    const text = await (await api('GET', '/api/v1/export')).text();
    return text.trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
  }
  async function findSources(query: string): Promise<string> {
    const client = new Client({ name: 'e2e-delete', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(`${service.url}/api/mcp`), { requestInit: { headers: { 'x-api-key': key } } }));
    try {
      const r = await client.callTool({ name: 'find_sources', arguments: { query } });
      return JSON.stringify(r.structuredContent);
    } finally {
      await client.close();
    }
  }

  it('a deleted source is gone from the tools, the export, /metrics and the disk', async () => {
    const out = service.output();
    const productId = /Product id:\s+(\S+)/.exec(out)![1]!;
    const projectId = /Project id:\s+(\S+)/.exec(out)![1]!;
    const sent = await api('POST', '/api/v1/ingest', [{
      _type: 'call', _schema_version: '1.0.0', _event_at: new Date().toISOString(), _vendor_ids: { gong: 'zebulon-1' },
      _product_id: productId, _project_ids: [projectId], _nature: 'evidence',
      _attachments: [{ type: 'audio', vendor_url: `http://127.0.0.1:${(files.address() as AddressInfo).port}/call.mp3` }],
      data: { title: 'Call with Zebulon of Quuxcorp', transcript: 'Zebulon: our Quuxcorp invoices are printed with the wrong VAT number' },
    }]);
    expect(sent.status).toBe(202);
    const { batchId } = (await sent.json()) as { batchId: string };
    await until('the batch and its download', async () => {
      const b = (await (await api('GET', `/api/v1/ingest/batches/${batchId}`)).json()) as Record<string, unknown>;
      return b.status === 'COMPLETE' && b.attachmentDownloadStatus === 'COMPLETE';
    });
    const line = (await exported()).find((l) => l.kind === 'source' && l.source.title === 'Call with Zebulon of Quuxcorp')!;
    const sourceId = line.source.id as string;
    const file = path.join(dataDir, 'attachments', workspaceId, batchId, line.source.attachments[0].id as string);
    await access(file);
    expect(await findSources('Zebulon')).toContain(sourceId);

    const deleted = await api('DELETE', `/api/v1/sources/${sourceId}`);
    expect(await deleted.json()).toEqual({ id: sourceId, object: 'source', deleted: true, recordId: line.source.record_id });
    expect((await api('DELETE', `/api/v1/sources/${sourceId}`)).status).toBe(404);

    await expect(access(file)).rejects.toThrow();
    for (const query of ['Zebulon', 'wrong VAT number on invoices']) expect(await findSources(query)).not.toContain(sourceId);
    // Within a second the index of meaning has dropped it too.
    await new Promise((r) => setTimeout(r, 1_200));
    expect(await findSources('tax identification printed incorrectly on the bills')).not.toContain(sourceId);
    const all = JSON.stringify(await exported());
    expect(all).not.toContain(sourceId);
    expect(all).not.toMatch(/Zebulon|Quuxcorp/);
    expect(await (await fetch(`${service.url}/metrics`)).text()).not.toContain(sourceId);
    const batch = (await (await api('GET', `/api/v1/ingest/batches/${batchId}`)).json()) as Record<string, unknown>;
    expect(batch).toMatchObject({ acceptedCount: 1, deletedCount: 1, billing: { totalCreditsCharged: 1 } });
  });

  it('retention set with the admin CLI is applied by the worker after a restart', async () => {
    // The demo evidence happened 1 to 6 days ago.
    const before = (await exported()).filter((l) => l.kind === 'source');
    const cutoff = Date.now() - 3 * 86_400_000;
    const young = before.filter((l) => new Date(l.source.occurred_at as string).getTime() >= cutoff).map((l) => l.source.id as string).sort();
    expect(young.length).toBeLessThan(before.length);
    const set = await runTool('tools/src/admin.ts', ['workspace', 'retention', '--workspace', workspaceId, '--days', '3'], { ...env, LOG_LEVEL: 'error' });
    expect(set.code, set.stderr).toBe(0);
    expect(set.stdout).toContain('keeps sources for 3 days');

    expect(await service.stop()).toBe(0);
    service = await startProcess(env);
    const left = await until('retention to apply', async () => {
      const ids = (await exported()).filter((l) => l.kind === 'source').map((l) => l.source.id as string).sort();
      return ids.length === young.length && ids;
    });
    expect(left).toEqual(young);
  });
});
