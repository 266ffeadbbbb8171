import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import { requestErasure, runErasure } from '@loupe/erasure';
import type { Boss } from '@loupe/jobs';
import type { SafeFetch } from '@loupe/safe-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { downloadAttachment } from './download-attachment';
import { FIRST_ATTEMPT, createWorkspace, land, startBoss, testConfig, testContext } from './test/helpers';

describe('erasing a person beside the worker', () => {
  let t: TestDatabase;
  let boss: Boss;
  let dataDir: string;
  beforeAll(async () => {
    t = await createTestDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-worker-erasure-'));
    boss = await startBoss(t.url);
  });
  afterAll(async () => {
    await boss.stop({ graceful: false, close: true });
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  it('a person erased while an attachment of their record downloads: the file that arrives after is deleted, the download counted failed', async () => {
    const ws = await createWorkspace(t.pool, 10);
    const batchId = await land(t.pool, boss, ws, 'email', [{
      data: { subject: 'Exports', from: 'Ana Planted <ana.planted@globex.test>', body: 'See the attached recording.' },
      attachments: [{ type: 'audio', vendor_url: 'https://files.example/ana.mp3' }],
    }]);
    const { rows: [att] } = await t.pool.query<{ id: string }>('SELECT id FROM attachments WHERE batch_id = $1', [batchId]);
    const ctx = testContext(t.pool, boss, testConfig(dataDir));
    // The file's bytes come in while the person is erased.
    const fetch = {
      stream: async () => {
        const erasure = await requestErasure(t.pool, boss, { workspaceId: ws, email: 'ana.planted@globex.test', by: { label: 'test' }, now: new Date() });
        expect((await runErasure({ pool: t.pool, boss, storage: ctx.storage, clock: ctx.clock }, ws, erasure.id)).status).toBe('complete');
        return { url: 'https://files.example/ana.mp3', status: 200, contentType: 'audio/mpeg', contentLength: 5, body: Readable.from([Buffer.from('audio')]) };
      },
    } as unknown as SafeFetch;
    const outcome = await downloadAttachment({ ...ctx, fetch }, { workspaceId: ws, batchId, attachmentId: att!.id }, FIRST_ATTEMPT);
    expect(outcome).toBe('skipped');
    expect(await ctx.storage.exists(`${ws}/${batchId}/${att!.id}`)).toBe(false);
    const { rows: [a] } = await t.pool.query('SELECT status, storage_key, vendor_url FROM attachments WHERE id = $1', [att!.id]);
    expect(a).toEqual({ status: 'FAILED', storage_key: null, vendor_url: null });
    const { rows: [b] } = await t.pool.query('SELECT attachment_download_total, attachment_download_complete, attachment_download_failed, attachment_download_status FROM batches WHERE id = $1', [batchId]);
    expect(b).toEqual({ attachment_download_total: 1, attachment_download_complete: 0, attachment_download_failed: 1, attachment_download_status: 'FAILED' });
  });
});
