import { access, mkdir, mkdtemp, readFile, readdir, rm } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { freePort } from '@loupe/db';
import { demoFrom } from './cluster';
import { bash, root, startProcess, until, type Started } from './process';

/** The sh block of docs/self-hosting/backup-and-restore.md marked `<!-- backup-test: NAME -->`. */
async function docBlock(name: 'backup' | 'restore'): Promise<string> {
  const lines = (await readFile(path.join(root, 'docs/self-hosting/backup-and-restore.md'), 'utf8')).split('\n');
  const at = lines.indexOf(`<!-- backup-test: ${name} -->`);
  if (at < 0 || lines[at + 1] !== '```sh') throw new Error(`no sh block marked backup-test: ${name}`);
  return lines.slice(at + 2, lines.indexOf('```', at + 2)).join('\n');
}

// The embedded cluster's backup and restore, as the self-hosting guide gives them: copy `.data/` with
// Loupe stopped, put the copy back on another checkout, and everything is there.
describe('backup and restore of the embedded cluster (docs/self-hosting/backup-and-restore.md)', () => {
  let original: string;
  let restored: string;
  let files: http.Server;
  let service: Started | undefined;
  beforeAll(async () => {
    original = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-backup-'));
    restored = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-restore-'));
    files = http.createServer((_req, res) => res.end(Buffer.from('the recording of the call with Xanthippe')));
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    delete process.env.DATABASE_URL;
  });
  afterAll(async () => {
    await service?.stop();
    files?.close();
    await rm(original, { recursive: true, force: true });
    await rm(restored, { recursive: true, force: true });
  });

  it('runs the two blocks as written: the copy serves the same keys, sources and attachments', async () => {
    const env = { FETCH_ALLOW_LOOPBACK: 'true', PORT: String(await freePort()), EMBEDDED_PG_PORT: String(await freePort()) };
    service = await startProcess({ ...env, DATA_DIR: path.join(original, '.data') });
    const demo = demoFrom(service.output());
    const api = (base: string, method: string, p: string, body?: unknown) =>
      fetch(`${base}${p}`, { method, headers: { 'x-api-key': demo.key, 'content-type': 'application/json' }, ...(body ? { body: JSON.stringify(body) } : {}) });
    const sent = await api(service.url, 'POST', '/api/v1/ingest', [{
      _type: 'call', _schema_version: '1.0.0', _event_at: '2026-11-20T10:00:00Z', _vendor_ids: { gong: 'xanthippe-1' },
      _product_id: demo.productId, _project_ids: [demo.projectId], _nature: 'evidence',
      _attachments: [{ type: 'audio', vendor_url: `http://127.0.0.1:${(files.address() as AddressInfo).port}/call.mp3` }],
      data: { title: 'Call with Xanthippe', transcript: 'Xanthippe: the renewal quote never reached our procurement team' },
    }]);
    expect(sent.status).toBe(202);
    const { batchId } = (await sent.json()) as { batchId: string };
    const batchOf = async (base: string) => (await (await api(base, 'GET', `/api/v1/ingest/batches/${batchId}`)).json()) as Record<string, unknown>;
    await until('the batch and its download', async () => {
      const b = await batchOf(service!.url);
      return b.status === 'COMPLETE' && b.attachmentDownloadStatus === 'COMPLETE';
    });
    const exportOf = async (base: string) => (await (await api(base, 'GET', '/api/v1/export')).text()).trimEnd().split('\n').map((l) => JSON.parse(l) as Record<string, any>);
    const before = await exportOf(service.url);
    expect(await service.stop()).toBe(0);
    service = undefined;

    const backup = await bash(await docBlock('backup'), { cwd: original });
    expect(backup.code, backup.out).toBe(0);
    const [copy] = (await readdir(original)).filter((name) => /^loupe-backup-\d{8}T\d{6}Z$/.test(name));
    expect(copy, 'the backup block made a loupe-backup-<time> directory').toBeDefined();

    // Another checkout, with a stale .data of its own that the restore replaces.
    await mkdir(path.join(restored, '.data', 'attachments'), { recursive: true });
    const restore = await bash(await docBlock('restore'), { cwd: restored, env: { BACKUP: path.join(original, copy!) } });
    expect(restore.code, restore.out).toBe(0);
    service = await startProcess({ ...env, DATA_DIR: path.join(restored, '.data') });
    expect(service.output(), 'no second demo workspace is seeded').not.toContain('API key:');
    expect(await batchOf(service.url)).toMatchObject({ status: 'COMPLETE', acceptedCount: 1, attachmentDownloadStatus: 'COMPLETE' });
    const after = await exportOf(service.url);
    expect(after).toEqual(before);
    const source = after.find((l) => l.kind === 'source' && l.source.title === 'Call with Xanthippe')!;
    const attachment = path.join(restored, '.data', 'attachments', demo.workspaceId, batchId, source.source.attachments[0].id as string);
    await access(attachment);
    expect(await readFile(attachment, 'utf8')).toBe('the recording of the call with Xanthippe');
  });
});
