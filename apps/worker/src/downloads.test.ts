import { createHash } from 'node:crypto';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { createTestDatabase, type TestDatabase } from '@loupe/db/testing';
import type { Boss } from '@loupe/jobs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createWorker, type Worker } from './app';
import { handleDeadJob } from './dead-letter';
import { FAST_OPTIONS, batchRow, createWorkspace, land, silentLog, startBoss, testConfig, testContext, waitFor, type TestRecord } from './test/helpers';

const CONTENT = Buffer.from('RIFF fake audio payload '.repeat(50));
const sha1 = (b: Buffer) => createHash('sha1').update(b).digest('hex');
const md5Base64 = (b: Buffer) => createHash('md5').update(b).digest('base64');

interface AttachmentRow {
  id: string;
  position: number;
  status: string;
  attempts: number;
  error: string | null;
  storage_key: string | null;
  stored_size: number | null;
  stored_mime_type: string | null;
}

describe('attachment downloads', () => {
  let t: TestDatabase;
  let boss: Boss;
  let dataDir: string;
  let server: http.Server;
  let base: string;
  const sockets = new Set<Socket>();
  const hits = new Map<string, number>();

  beforeAll(async () => {
    t = await createTestDatabase();
    dataDir = await mkdtemp(path.join(os.tmpdir(), 'loupe-downloads-'));
    boss = await startBoss(t.url, { download: { retryLimit: 1, retryDelay: 0, retryBackoff: false } });
    server = http.createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const key = `${url.pathname}${url.search}`;
      hits.set(key, (hits.get(key) ?? 0) + 1);
      if (url.pathname === '/file') return void res.writeHead(200, { 'content-type': 'audio/mpeg' }).end(CONTENT);
      if (url.pathname === '/chunked') {
        res.writeHead(200, { 'content-type': 'audio/mpeg' });
        res.write(CONTENT.subarray(0, 100));
        return void setTimeout(() => res.end(CONTENT.subarray(100)), 10);
      }
      if (url.pathname === '/big') {
        res.writeHead(200);
        for (let i = 0; i < 10; i++) res.write(Buffer.alloc(1000, i));
        return void res.end();
      }
      if (url.pathname === '/slow') return; // never answers
      if (url.pathname === '/flaky') {
        if (hits.get(key) === 1) return void res.writeHead(503).end('try later');
        return void res.writeHead(200, { 'content-type': 'text/plain' }).end(CONTENT);
      }
      if (url.pathname === '/redirect') return void res.writeHead(302, { location: url.searchParams.get('to')! }).end();
      res.writeHead(404).end('no such file');
    });
    server.on('connection', (s) => {
      sockets.add(s);
      s.on('close', () => sockets.delete(s));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    for (const s of sockets) s.destroy();
    await new Promise((resolve) => server.close(resolve));
    await boss.stop({ graceful: false, close: true });
    await t.close();
    await rm(dataDir, { recursive: true, force: true });
  });

  function worker(dir = dataDir): Worker {
    return createWorker({
      pool: t.pool, db: t.db, boss, clock: { now: () => Date.now() }, log: silentLog, config: testConfig(dir),
      options: { ...FAST_OPTIONS, maxAttachmentBytes: 4096 },
    });
  }

  async function attachments(batchId: string): Promise<AttachmentRow[]> {
    const { rows } = await t.pool.query<AttachmentRow>(
      `SELECT a.id, r.position, a.status, a.attempts, a.error, a.storage_key, a.stored_size, a.stored_mime_type
         FROM attachments a JOIN records r ON r.id = a.record_id WHERE a.batch_id = $1 ORDER BY r.position, a.position`,
      [batchId],
    );
    return rows;
  }

  async function downloadsSettled(batchId: string) {
    return waitFor(`downloads of ${batchId} to settle`, async () => {
      const row = await batchRow(t.pool, batchId);
      return ['COMPLETE', 'PARTIAL_FAILURE', 'FAILED'].includes(row.attachment_download_status ?? '') && row;
    });
  }

  /** Runs `w` until every batch's downloads settle; their batch rows, in order. */
  async function settleWith(w: Worker, ...batchIds: string[]) {
    await w.start();
    try {
      const rows = [];
      for (const id of batchIds) rows.push(await downloadsSettled(id));
      return rows;
    } finally {
      await w.stop();
    }
  }

  const one = (vendor_url: string, extra: Record<string, unknown> = {}): TestRecord => ({
    data: { title: 'Call with a recording' },
    attachments: [{ type: 'audio', vendor_url, ...extra }],
  });

  it('downloads what it may, fails what it must, and counts each once', async () => {
    const ws = await createWorkspace(t.pool);
    const records: TestRecord[] = [
      one(`${base}/file`, { size: CONTENT.length, sha1: sha1(CONTENT).toUpperCase(), md5: md5Base64(CONTENT), mime_type: 'application/octet-stream' }),
      one(`${base}/missing`),
      one(`${base}/slow`),
      one(`${base}/file`, { size: 10 }),
      one(`${base}/chunked`, { size: 10 }),
      one(`${base}/big`),
      one(`${base}/file`, { sha1: sha1(Buffer.from('something else')) }),
      one(`${base}/redirect?to=${encodeURIComponent('http://10.0.0.1/recording.mp3')}`),
      one(`${base}/redirect?to=${encodeURIComponent('http://169.254.169.254/latest/meta-data/')}`),
      one(`${base}/flaky`),
      { data: { title: 'uploaded earlier' }, attachments: [{ type: 'file', upload_intent_id: 'up_1' }] },
    ];
    const batchId = await land(t.pool, boss, ws, 'call', records);
    expect(await batchRow(t.pool, batchId)).toMatchObject({ attachment_download_total: 10, attachment_download_status: 'PENDING' });
    const [settled] = await settleWith(worker(), batchId);
    expect(settled).toMatchObject({
      attachment_download_total: 10, attachment_download_complete: 2, attachment_download_failed: 8, attachment_download_status: 'PARTIAL_FAILURE',
    });
    const rows = await attachments(batchId);
    const byPosition = (p: number) => rows.find((r) => r.position === p)!;
    expect(byPosition(0)).toMatchObject({
      status: 'COMPLETE', attempts: 1, error: null, stored_size: CONTENT.length, stored_mime_type: 'audio/mpeg',
      storage_key: `${ws}/${batchId}/${byPosition(0).id}`,
    });
    expect((await readFile(path.join(dataDir, 'attachments', byPosition(0).storage_key!))).equals(CONTENT)).toBe(true);
    expect(byPosition(1)).toMatchObject({ status: 'FAILED', attempts: 1, error: expect.stringMatching(/answered HTTP 404/) });
    expect(byPosition(2)).toMatchObject({ status: 'FAILED', attempts: 2, error: expect.stringMatching(/gave up after 2 attempts: .*waiting for the response headers after 1000 ms/) });
    expect(byPosition(3)).toMatchObject({ status: 'FAILED', attempts: 1, error: 'the file is larger than its declared size of 10 bytes' });
    expect(byPosition(4)).toMatchObject({ status: 'FAILED', attempts: 1, error: 'the file is larger than its declared size of 10 bytes' });
    expect(byPosition(5)).toMatchObject({ status: 'FAILED', attempts: 1, error: expect.stringMatching(/more than the limit of 4096 bytes/) });
    expect(byPosition(6)).toMatchObject({ status: 'FAILED', attempts: 1, error: expect.stringMatching(/^sha1 of the received file is [0-9a-f]{40}, not the declared/) });
    expect(byPosition(7)).toMatchObject({ status: 'FAILED', attempts: 1, error: expect.stringMatching(/refused to connect to 10\.0\.0\.1: it is a private network address/) });
    expect(byPosition(8)).toMatchObject({ status: 'FAILED', attempts: 1, error: expect.stringMatching(/refused to connect to 169\.254\.169\.254: it is a link-local address/) });
    expect(byPosition(9)).toMatchObject({ status: 'COMPLETE', attempts: 2, error: null, stored_mime_type: 'text/plain' });
    expect(byPosition(10)).toMatchObject({ status: 'NOT_DOWNLOADED', attempts: 0 });
    for (const failed of rows.filter((r) => r.status === 'FAILED')) {
      expect(await readFile(path.join(dataDir, 'attachments', ws, batchId, failed.id)).catch(() => 'absent')).toBe('absent');
    }
    expect(hits.get('/missing')).toBe(1);
    expect(hits.get('/flaky')).toBe(2);
    // Processing of the records went its own way.
    expect(await batchRow(t.pool, batchId)).toMatchObject({ status: 'COMPLETE', processed_count: 11 });
  });

  it('ends a batch COMPLETE when every download succeeds and FAILED when every one fails', async () => {
    const ws = await createWorkspace(t.pool);
    const good = await land(t.pool, boss, ws, 'call', [one(`${base}/file`), one(`${base}/chunked`, { md5: createHash('md5').update(CONTENT).digest('hex') })]);
    const bad = await land(t.pool, boss, ws, 'call', [one(`${base}/missing`), one(`${base}/redirect?to=${encodeURIComponent('http://10.1.2.3/')}`)]);
    const [goodRow, badRow] = await settleWith(worker(), good, bad);
    expect(goodRow).toMatchObject({ attachment_download_status: 'COMPLETE', attachment_download_complete: 2, attachment_download_failed: 0 });
    expect(badRow).toMatchObject({ attachment_download_status: 'FAILED', attachment_download_complete: 0, attachment_download_failed: 2 });
  });

  it('fails downloads cleanly after retries when storage cannot be written', async () => {
    const blocked = path.join(dataDir, 'a-file-not-a-directory');
    await writeFile(blocked, 'x');
    const ws = await createWorkspace(t.pool);
    const batchId = await land(t.pool, boss, ws, 'call', [one(`${base}/file`)]);
    const [settled] = await settleWith(worker(blocked), batchId);
    expect(settled).toMatchObject({ attachment_download_status: 'FAILED', attachment_download_failed: 1 });
    const [row] = await attachments(batchId);
    expect(row).toMatchObject({ status: 'FAILED', attempts: 2, error: expect.stringMatching(/gave up after 2 attempts: .*ENOTDIR/) });
  });

  it('fails a dead-lettered download once, and never recounts a final one', async () => {
    const ws = await createWorkspace(t.pool);
    const batchId = await land(t.pool, boss, ws, 'call', [one(`${base}/file`), one(`${base}/file`)]);
    const [first, second] = await attachments(batchId);
    await t.pool.query("UPDATE attachments SET status = 'DOWNLOADING', attempts = 5 WHERE id = $1", [first!.id]);
    const ctx = testContext(t.pool, boss, testConfig(dataDir));
    const dead = (attachmentId: string) => ({
      sourceName: 'attachment.download', sourceRetryCount: 4, sourceOutput: { value: { message: 'job heartbeat timeout' } },
      data: { workspaceId: ws, batchId, attachmentId },
    });
    expect(await handleDeadJob(ctx, dead(first!.id))).toBe('attachment-failed');
    expect(await handleDeadJob(ctx, dead(first!.id))).toBe('attachment-already-final');
    expect(await handleDeadJob(ctx, dead(second!.id))).toBe('attachment-failed');
    expect(await batchRow(t.pool, batchId)).toMatchObject({ attachment_download_failed: 2, attachment_download_status: 'FAILED' });
    const rows = await attachments(batchId);
    expect(rows[0]).toMatchObject({ status: 'FAILED', error: 'gave up after 5 attempts: job heartbeat timeout' });
  });
});
