import { createHash } from 'node:crypto';
import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { StorageKeyError, StorageNotFoundError, StorageTooLargeError, createLocalStorage } from './index';

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Sends `chunks`, then fails with `error` if given. */
function source(chunks: Buffer[], error?: Error): Readable {
  let i = 0;
  return new Readable({
    read() {
      if (i < chunks.length) this.push(chunks[i++]);
      else if (error) this.destroy(error);
      else this.push(null);
    },
  });
}

describe('local storage', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-storage-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  async function leftovers(root: string): Promise<string[]> {
    return readdir(path.join(root, '.partial')).catch(() => []);
  }

  it('stores a stream under its key with its size and hashes', async () => {
    const storage = createLocalStorage(dir);
    const content = Buffer.from('the quick brown fox '.repeat(10_000));
    const stored = await storage.put('ws_1/bat_1/att_1', source([content.subarray(0, 1000), content.subarray(1000)]), {
      maxBytes: content.length,
    });
    expect(stored).toEqual({
      size: content.length,
      sha1: createHash('sha1').update(content).digest('hex'),
      md5: createHash('md5').update(content).digest('hex'),
    });
    expect(storage.root).toBe(path.join(dir, 'attachments'));
    expect(await storage.exists('ws_1/bat_1/att_1')).toBe(true);
    expect((await readAll(await storage.get('ws_1/bat_1/att_1'))).equals(content)).toBe(true);
    expect(await leftovers(storage.root)).toEqual([]);
    expect(await storage.delete('ws_1/bat_1/att_1')).toBe(true);
    expect(await storage.delete('ws_1/bat_1/att_1')).toBe(false);
    expect(await storage.exists('ws_1/bat_1/att_1')).toBe(false);
    await expect(storage.get('ws_1/bat_1/att_1')).rejects.toThrow(StorageNotFoundError);
  });

  it('leaves nothing behind when the stream fails midway', async () => {
    const storage = createLocalStorage(dir);
    const failing = source([Buffer.alloc(64 * 1024, 1), Buffer.alloc(64 * 1024, 2)], new Error('connection reset by vendor'));
    await expect(storage.put('ws_1/bat_1/broken', failing, { maxBytes: 10_000_000 })).rejects.toThrow('connection reset by vendor');
    expect(await storage.exists('ws_1/bat_1/broken')).toBe(false);
    expect(await leftovers(storage.root)).toEqual([]);
  });

  it('stops past maxBytes and leaves nothing behind', async () => {
    const storage = createLocalStorage(dir);
    const error = await storage
      .put('ws_1/bat_1/huge', source(Array.from({ length: 20 }, () => Buffer.alloc(1024))), { maxBytes: 5000 })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageTooLargeError);
    expect((error as Error).message).toMatch(/ws_1\/bat_1\/huge is larger than the limit of 5000 bytes/);
    expect(await storage.exists('ws_1/bat_1/huge')).toBe(false);
    expect(await leftovers(storage.root)).toEqual([]);
  });

  it('keeps a rejected object out of its key and the previous object intact', async () => {
    const storage = createLocalStorage(dir);
    await storage.put('ws_1/bat_1/kept', source([Buffer.from('first version')]), { maxBytes: 100 });
    await expect(
      storage.put('ws_1/bat_1/kept', source([Buffer.from('second version')]), {
        maxBytes: 100,
        verify: (stored) => {
          throw new Error(`sha1 ${stored.sha1} does not match`);
        },
      }),
    ).rejects.toThrow(/does not match/);
    expect((await readAll(await storage.get('ws_1/bat_1/kept'))).toString()).toBe('first version');
    expect(await leftovers(storage.root)).toEqual([]);
  });

  it('fails cleanly when the storage root cannot be written', async () => {
    const blocker = path.join(dir, 'not-a-directory');
    await writeFile(blocker, 'a file where the data directory should be');
    const storage = createLocalStorage(blocker);
    const body = source([Buffer.from('data')]);
    await expect(storage.put('ws_1/bat_1/att', body, { maxBytes: 100 })).rejects.toThrow(/ENOTDIR|EEXIST/);
    expect(body.destroyed).toBe(true);
    expect(await storage.exists('ws_1/bat_1/att').catch(() => false)).toBe(false);
  });

  it('refuses keys that could leave the root', async () => {
    const storage = createLocalStorage(dir);
    for (const key of ['../escape', 'a/../../b', '/abs', '', 'a//b', '.hidden', 'a/.partial', 'white space']) {
      await expect(storage.put(key, source([]), { maxBytes: 1 })).rejects.toThrow(StorageKeyError);
      await expect(storage.exists(key)).rejects.toThrow(StorageKeyError);
    }
  });
});
