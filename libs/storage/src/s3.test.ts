import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import S3rver from 's3rver';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createS3Storage, parseStorageUrl } from './s3';
import { source, storageContract } from './storage-contract';

// The same contract as the local disk, against a local S3-compatible server (s3rver) the test starts.
describe('S3-compatible storage', () => {
  let dir: string;
  let server: S3rver;
  let endpoint: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-s3-'));
    server = new S3rver({ address: '127.0.0.1', port: 0, silent: true, directory: dir, configureBuckets: [{ name: 'loupe-test', configs: [] }] });
    const { port } = await server.run();
    endpoint = `http://127.0.0.1:${port}`;
  });
  afterAll(async () => {
    await server?.close();
    await rm(dir, { recursive: true, force: true });
  });
  const storage = () => createS3Storage({ bucket: 'loupe-test', prefix: 'attachments', endpoint, forcePathStyle: true, credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' } });
  const keys = async (prefix: string) => {
    const out = await storage().client.send(new ListObjectsV2Command({ Bucket: 'loupe-test', Prefix: prefix }));
    return (out.Contents ?? []).map((o) => o.Key!);
  };

  storageContract({ storage, leftovers: () => keys('attachments/.partial/') });

  it('stores keys under the prefix, and a failing server is an error, never a silent success', async () => {
    await storage().put('ws_9/bat_1/att_1', source([Buffer.from('hello')]), { maxBytes: 10 });
    expect(await keys('attachments/ws_9/')).toEqual(['attachments/ws_9/bat_1/att_1']);
    const down = createS3Storage({ bucket: 'loupe-test', prefix: 'attachments', endpoint: 'http://127.0.0.1:1', forcePathStyle: true, credentials: { accessKeyId: 'a', secretAccessKey: 'b' } });
    await expect(down.put('ws_9/bat_1/att_2', source([Buffer.from('hello')]), { maxBytes: 10 })).rejects.toThrow();
    await expect(down.exists('ws_9/bat_1/att_1')).rejects.toThrow();
  });

  it('leaves nothing behind when a stream fails after its first upload part', async () => {
    const failing = source(Array.from({ length: 10 }, () => Buffer.alloc(1024 * 1024, 3)), new Error('vendor hung up'));
    await expect(storage().put('ws_9/bat_2/cut', failing, { maxBytes: 100 * 1024 * 1024 })).rejects.toThrow('vendor hung up');
    expect(await storage().exists('ws_9/bat_2/cut')).toBe(false);
    expect(await keys('attachments/.partial/')).toEqual([]);
  });

  it('reads STORAGE_URL as a bucket and a prefix, and says what a bad one lacks', () => {
    expect(parseStorageUrl('s3://acme-loupe/prod/attachments/')).toEqual({ bucket: 'acme-loupe', prefix: 'prod/attachments' });
    expect(parseStorageUrl('s3://acme-loupe')).toEqual({ bucket: 'acme-loupe', prefix: '' });
    expect(() => parseStorageUrl('https://acme-loupe/x')).toThrow(/STORAGE_URL must be s3:\/\/<bucket>\/<prefix>/);
    expect(() => parseStorageUrl('s3://A_B/x')).toThrow(/bucket name/);
  });
});
