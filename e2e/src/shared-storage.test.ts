import { createServer, type Server } from 'node:http';
import { mkdtemp, readdir, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command, S3Client } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { controlledPostgres, demoFrom, records, serviceOn, submit, type ControlledPostgres } from './cluster';
import type { Started } from './process';

// Issue 47: attachments in an S3-compatible bucket (STORAGE_URL) shared by two instances of `npm start`
// on one PostgreSQL: the worker of one downloads a file into the bucket, the other serves and erases it.
describe('two instances sharing one bucket', () => {
  let pg: ControlledPostgres;
  let s3: S3rver;
  let s3Dir: string;
  let files: Server;
  let fileUrl: string;
  let endpoint: string;
  const started: Started[] = [];

  beforeAll(async () => {
    pg = await controlledPostgres();
    s3Dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-s3-'));
    s3 = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: s3Dir, configureBuckets: [{ name: 'loupe', configs: [] }] });
    endpoint = `http://127.0.0.1:${(await s3.run()).port}`;
    files = createServer((_req, res) => res.end('the bytes of a call recording'));
    await new Promise<void>((r) => files.listen(0, '127.0.0.1', r));
    fileUrl = `http://127.0.0.1:${(files.address() as { port: number }).port}/call.mp3`;
  });
  afterAll(async () => {
    for (const s of started) await s.stop();
    files?.close();
    await s3?.close();
    await pg?.destroy();
    await rm(s3Dir, { recursive: true, force: true });
  });

  const bucketEnv = {
    STORAGE_URL: 's3://loupe/prod/attachments', S3_ENDPOINT: '', S3_FORCE_PATH_STYLE: 'true',
    AWS_ACCESS_KEY_ID: 'S3RVER', AWS_SECRET_ACCESS_KEY: 'S3RVER', FETCH_ALLOW_LOOPBACK: 'true',
  };
  const objects = async () => {
    const client = new S3Client({ endpoint, region: 'us-east-1', forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
    const out = await client.send(new ListObjectsV2Command({ Bucket: 'loupe', Prefix: 'prod/attachments/' }));
    client.destroy();
    return (out.Contents ?? []).map((o) => o.Key!);
  };

  it('stores the file one instance\'s worker downloaded in the bucket, not on its disk; the other instance serves it, and a deletion and an erasure asked there remove it', async () => {
    const env = { ...bucketEnv, S3_ENDPOINT: endpoint };
    const disks = [await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-disk-')), await mkdtemp(path.join(os.tmpdir(), 'loupe-e2e-disk-'))];
    const one = await serviceOn(pg.url, { ...env, DATA_DIR: disks[0]! });
    started.push(one);
    // The second instance runs no worker: only the first can have downloaded the file.
    const two = await serviceOn(pg.url, { ...env, DATA_DIR: disks[1]!, WORKER_ENABLED: 'false' });
    started.push(two);
    const demo = demoFrom(one.output());

    const erased = 'ana.erased@globex.example';
    const [plain, hers] = records(demo, 2, { _attachments: [{ type: 'audio', vendor_url: fileUrl }] });
    const sent = await submit(two.url, demo.key, [plain, { ...hers, _participants: [{ id: 'cust-ana-77', email: erased, name: 'Ana', role: 'external' }] }]);
    expect(sent.status).toBe(202);
    expect(sent.body.acceptedCount).toBe(2);
    const storedFiles = async () => (await pg.pool.query<{ record_id: string; storage_key: string }>(
      "SELECT a.record_id, a.storage_key FROM attachments a JOIN records r ON r.id = a.record_id WHERE a.batch_id = $1 AND a.storage_key IS NOT NULL AND a.status = 'COMPLETE' ORDER BY r.position", [sent.body.batchId],
    )).rows;
    let stored: Array<{ record_id: string; storage_key: string }> = [];
    for (let i = 0; i < 240 && stored.length < 2; i++) {
      await new Promise((r) => setTimeout(r, 250));
      stored = await storedFiles();
    }
    expect(stored).toHaveLength(2);
    expect((await objects()).sort()).toEqual(stored.map((f) => `prod/attachments/${f.storage_key}`).sort());
    // Nothing on either instance's disk.
    for (const disk of disks) expect(await readdir(path.join(disk, 'attachments')).catch(() => [])).toEqual([]);

    // The instance without a worker serves the file the other one's worker stored.
    const served = await fetch(`${two.url}/api/v1/records/${stored[0]!.record_id}/attachments/0`, { headers: { 'x-api-key': demo.key } });
    expect(served.status).toBe(200);
    expect(await served.text()).toBe('the bytes of a call recording');

    const deleted = await fetch(`${two.url}/api/v1/records/${stored[0]!.record_id}`, { method: 'DELETE', headers: { 'x-api-key': demo.key } });
    expect(deleted.status).toBe(200);
    expect(await objects()).toEqual([`prod/attachments/${stored[1]!.storage_key}`]);

    // Erasing the person asked through the second instance: the first one's worker deletes her file from the bucket.
    const asked = await fetch(`${two.url}/api/v1/erasures`, {
      method: 'POST', headers: { 'content-type': 'application/json', 'x-api-key': demo.key }, body: JSON.stringify({ email: erased }),
    });
    expect(asked.status).toBe(202);
    const erasureId = ((await asked.json()) as { id: string }).id;
    let status = '';
    for (let i = 0; i < 240 && status !== 'complete'; i++) {
      await new Promise((r) => setTimeout(r, 250));
      status = ((await (await fetch(`${two.url}/api/v1/erasures/${erasureId}`, { headers: { 'x-api-key': demo.key } })).json()) as { status: string }).status;
    }
    expect(status).toBe('complete');
    expect(await objects()).toEqual([]);
    const gone = await fetch(`${two.url}/api/v1/records/${stored[1]!.record_id}/attachments/0`, { headers: { 'x-api-key': demo.key } });
    expect(gone.status).toBe(404);
    for (const disk of disks) await rm(disk, { recursive: true, force: true });
  });
});
