import { createHash } from 'node:crypto';
import { Readable } from 'node:stream';
import { expect, it } from 'vitest';
import { StorageKeyError, StorageNotFoundError, StorageTooLargeError, type Storage } from './storage';

/** What every Storage promises, run against each kind (tests only). */
export interface ContractSubject {
  storage: () => Storage;
  /** Partial uploads still present (they must never outlive a put). */
  leftovers: () => Promise<string[]>;
}

export async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Sends `chunks`, then fails with `error` if given. */
export function source(chunks: Buffer[], error?: Error): Readable {
  let i = 0;
  return new Readable({
    read() {
      if (i < chunks.length) this.push(chunks[i++]);
      else if (error) this.destroy(error);
      else this.push(null);
    },
  });
}

export function storageContract(subject: ContractSubject): void {
  it('stores a stream under its key with its size and hashes, reads, deletes it', async () => {
    const storage = subject.storage();
    const content = Buffer.from('the quick brown fox '.repeat(10_000));
    const stored = await storage.put('ws_1/bat_1/att_1', source([content.subarray(0, 1000), content.subarray(1000)]), { maxBytes: content.length });
    expect(stored).toEqual({
      size: content.length,
      sha1: createHash('sha1').update(content).digest('hex'),
      md5: createHash('md5').update(content).digest('hex'),
    });
    expect(await storage.exists('ws_1/bat_1/att_1')).toBe(true);
    expect((await readAll(await storage.get('ws_1/bat_1/att_1'))).equals(content)).toBe(true);
    expect(await subject.leftovers()).toEqual([]);
    expect(await storage.delete('ws_1/bat_1/att_1')).toBe(true);
    expect(await storage.delete('ws_1/bat_1/att_1')).toBe(false);
    expect(await storage.exists('ws_1/bat_1/att_1')).toBe(false);
    await expect(storage.get('ws_1/bat_1/att_1')).rejects.toThrow(StorageNotFoundError);
  });

  it('leaves nothing behind when the stream fails midway', async () => {
    const storage = subject.storage();
    const failing = source([Buffer.alloc(64 * 1024, 1), Buffer.alloc(64 * 1024, 2)], new Error('connection reset by vendor'));
    await expect(storage.put('ws_1/bat_1/broken', failing, { maxBytes: 10_000_000 })).rejects.toThrow('connection reset by vendor');
    expect(await storage.exists('ws_1/bat_1/broken')).toBe(false);
    expect(await subject.leftovers()).toEqual([]);
  });

  it('stops past maxBytes and leaves nothing behind', async () => {
    const storage = subject.storage();
    const error = await storage.put('ws_1/bat_1/huge', source(Array.from({ length: 20 }, () => Buffer.alloc(1024))), { maxBytes: 5000 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(StorageTooLargeError);
    expect((error as Error).message).toMatch(/ws_1\/bat_1\/huge is larger than the limit of 5000 bytes/);
    expect(await storage.exists('ws_1/bat_1/huge')).toBe(false);
    expect(await subject.leftovers()).toEqual([]);
  });

  it('keeps a rejected object out of its key and the previous object intact', async () => {
    const storage = subject.storage();
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
    expect(await subject.leftovers()).toEqual([]);
  });

  it('streams a file larger than one upload part without holding it, and reads it back whole', async () => {
    const storage = subject.storage();
    // 20 MiB in 1 MiB chunks, each of its own byte value: order and completeness both checked.
    const chunks = Array.from({ length: 20 }, (_, i) => Buffer.alloc(1024 * 1024, i + 1));
    const whole = Buffer.concat(chunks);
    const stored = await storage.put('ws_1/bat_2/big', source(chunks), { maxBytes: whole.length });
    expect(stored.size).toBe(whole.length);
    expect(stored.sha1).toBe(createHash('sha1').update(whole).digest('hex'));
    expect((await readAll(await storage.get('ws_1/bat_2/big'))).equals(whole)).toBe(true);
    expect(await subject.leftovers()).toEqual([]);
    await storage.delete('ws_1/bat_2/big');
  });

  it('refuses keys that could leave the root', async () => {
    const storage = subject.storage();
    for (const key of ['../escape', 'a/../../b', '/abs', '', 'a//b', '.hidden', 'a/.partial', 'white space']) {
      await expect(storage.put(key, source([]), { maxBytes: 1 })).rejects.toThrow(StorageKeyError);
      await expect(storage.exists(key)).rejects.toThrow(StorageKeyError);
    }
  });
}
