import { mkdtemp, readFile, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { mcpTool } from './mcp-client';
import { startProcess, type Started } from './process';

// Issue 28 items 2 and 5 on the real `npm start`: the worker erases a person asked for over the API; then
// find_sources (words and meaning: the index of the MCP server in this process), read_source and a dump of
// the database hold nothing of them, and a new record about them is refused.
describe('erasing a person under npm start', () => {
  let dataDir: string;
  let env: Record<string, string>;
  let service: Started;
  let key: string;
  let productId: string;
  let projectId: string;

  beforeAll(async () => {
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-erasure-'));
    delete process.env.DATABASE_URL;
    env = { DATA_DIR: dataDir, PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
    service = await startProcess(env);
    key = /API key:\s+(\S+)/.exec(service.output())![1]!;
    productId = /Product id:\s+(\S+)/.exec(service.output())![1]!;
    projectId = /Project id:\s+(\S+)/.exec(service.output())![1]!;
  });
  afterAll(async () => {
    await service?.stop();
    await rm(dataDir, { recursive: true, force: true });
  });

  async function database(): Promise<pg.Client> {
    const password = (await readFile(path.join(dataDir, 'postgres.password'), 'utf8')).trim();
    const client = new pg.Client({ connectionString: `postgresql://postgres:${encodeURIComponent(password)}@127.0.0.1:${env.EMBEDDED_PG_PORT}/loupe` });
    await client.connect();
    return client;
  }
  const api = async (method: string, p: string, body?: unknown) => {
    const res = await fetch(`${service.url}${p}`, { method, headers: { 'x-api-key': key, 'content-type': 'application/json' }, ...(body === undefined ? {} : { body: JSON.stringify(body) }) });
    return { status: res.status, body: (await res.json()) as any };
  };
  const until = async (what: string, check: () => Promise<boolean>, ms = 60_000) => {
    const deadline = Date.now() + ms;
    while (!(await check())) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((r) => setTimeout(r, 250));
    }
  };
  const record = (email: string) => ({
    _type: 'call_transcription', _schema_version: '1.0.0', _event_at: '2026-11-20T10:00:00Z', _vendor_ids: { gong: `call/${email}` },
    _product_id: productId, _project_ids: [projectId], _nature: 'evidence',
    _participants: [{ id: 'p-ana-7', role: 'external', name: 'Ana Planted', email }, { id: 'p-bob', role: 'internal', name: 'Bob Keeper' }],
    data: { title: 'Call with Globex', transcript: [
      { speaker: 'Ana Planted', text: 'The zebra report takes forever to export and the quokka dashboard never loads.' },
      { speaker: 'Bob Keeper', text: 'Understood. We are rebuilding the onboarding checklist this quarter.' },
    ] },
  });
  const traces = ['ana planted', 'planted', 'ana.planted', 'p-ana-7', 'zebra', 'quokka'];
  const noTrace = (label: string, text: string) => {
    const lower = text.toLowerCase();
    for (const t of traces) {
      const at = lower.indexOf(t);
      expect(at < 0 ? '' : lower.slice(Math.max(0, at - 200), at + 80), `${label}: ${t}`).toBe('');
    }
  };

  it('the worker erases her everywhere; the tools, the index of meaning and a dump find nothing; she stays out', async () => {
    const sent = await api('POST', '/api/v1/ingest', [record('ana.planted@globex.test')]);
    expect(sent.status).toBe(202);
    const db = await database();
    try {
      await until('the source to be embedded', async () => (await db.query("SELECT 1 FROM sources s JOIN records r ON r.id = s.record_id JOIN source_semantics m ON m.source_id = s.id WHERE r.batch_id = $1 AND NOT m.pending", [sent.body.batchId])).rowCount === 1);
      const { rows: [{ id: sourceId }] } = await db.query("SELECT s.id FROM sources s JOIN records r ON r.id = s.record_id WHERE r.batch_id = $1", [sent.body.batchId]);
      const headers = { 'x-api-key': key };
      const found = await mcpTool(service.url, headers, 'find_sources', { query: 'zebra report export' });
      expect(found.ok, found.message).toBe(true);
      expect(JSON.stringify(found.result!.structuredContent)).toContain(sourceId);
      const signal = await mcpTool(service.url, headers, 'add_signals', { source_id: sourceId, signals: [{ type: 'pain_point', title: 'Zebra report slow', content: 'The zebra report takes forever to export.', who_said_it: 'Ana Planted', participant_id: 'p-ana-7' }] });
      expect(signal.ok, signal.message).toBe(true);

      const asked = await api('POST', '/api/v1/erasures', { email: 'ana.planted@globex.test' });
      expect(asked.status).toBe(202);
      await until('the erasure to complete', async () => (await api('GET', `/api/v1/erasures/${asked.body.id}`)).body.status === 'complete');
      const done = await api('GET', `/api/v1/erasures/${asked.body.id}`);
      expect(done.body.counts).toMatchObject({ records: 1, sources: 1, signalsDeleted: 1 });
      // the worker embeds the redacted text again; the index drops the old vector at once
      await until('the source to be embedded again', async () => (await db.query('SELECT 1 FROM source_semantics WHERE source_id = $1 AND NOT pending', [sourceId])).rowCount === 1);

      for (const query of ['zebra report export', 'Ana Planted', 'quokka dashboard never loads', 'ana.planted@globex.test']) {
        const r = await mcpTool(service.url, headers, 'find_sources', { query });
        const text = `${r.message}\n${JSON.stringify(r.result?.structuredContent ?? {})}`.toLowerCase().split(query.toLowerCase()).join('<query>');
        noTrace(`find_sources ${query}`, text);
      }
      const read = await mcpTool(service.url, headers, 'read_source', { source_id: sourceId });
      noTrace('read_source', `${read.message}\n${JSON.stringify(read.result?.structuredContent)}`);
      expect(read.message).toContain('rebuilding the onboarding checklist');

      // what a dump of the database holds
      const { rows: tables } = await db.query<{ s: string; n: string }>(
        "SELECT table_schema AS s, table_name AS n FROM information_schema.tables WHERE table_schema IN ('public', 'pgboss') AND table_type = 'BASE TABLE'",
      );
      let dump = '';
      for (const { s, n } of tables) dump += (await db.query(`SELECT row_to_json(x)::text AS j FROM "${s}"."${n}" x`)).rows.map((r) => r.j).join('\n');
      noTrace('database dump', dump);

      const again = await api('POST', '/api/v1/ingest', [record('ANA.PLANTED@globex.test')]);
      expect(again.status).toBe(400);
      expect(again.body.errors[0]).toMatchObject({ index: 0, code: 'PERSON_SUPPRESSED' });
      const metrics = await (await fetch(`${service.url}/metrics`)).text();
      noTrace('/metrics', metrics);
    } finally {
      await db.end();
    }
  });
});
