import { mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalStorage } from './index';
import { source, storageContract } from './storage-contract';

describe('local storage', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-storage-'));
  });
  afterAll(() => rm(dir, { recursive: true, force: true }));

  storageContract({
    storage: () => createLocalStorage(dir),
    leftovers: () => readdir(path.join(dir, 'attachments', '.partial')).catch(() => []),
  });

  it('keeps its files under <dataDir>/attachments', () => {
    expect(createLocalStorage(dir).root).toBe(path.join(dir, 'attachments'));
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
});
