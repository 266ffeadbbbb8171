import { chmod, mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { afterAll, describe, expect, it } from 'vitest';
import { startEmbeddedPostgres } from './embedded';
import { freePort } from './free-port';

const dirs: string[] = [];
afterAll(() => Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true }))));

async function clusterIn(parent: string) {
  await chmod(parent, 0o755); // the cluster may run as the postgres user
  return startEmbeddedPostgres({ dataDir: path.join(parent, 'cluster'), port: await freePort(), ephemeral: true });
}

async function serverAddress(url: string): Promise<string | null> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<{ addr: string | null }>('SELECT inet_server_addr()::text AS addr')).rows[0]!.addr;
  } finally {
    await client.end();
  }
}

describe('the embedded PostgreSQL', () => {
  it('is reached through a Unix socket in its directory, and still on 127.0.0.1 for other tools', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'loupe-socket-'));
    dirs.push(dir);
    const server = await clusterIn(dir);
    try {
      expect(new URL(server.adminUrl).searchParams.get('host')).toBe(path.join(dir, 'cluster'));
      expect(await serverAddress(server.adminUrl)).toBeNull(); // no inet address: a Unix socket
      const tcp = new URL(server.adminUrl);
      tcp.search = '';
      expect(await serverAddress(tcp.toString())).toBe('127.0.0.1/32');
    } finally {
      await server.stop();
    }
  }, 60_000);

  it('keeps to TCP when the socket path would not fit a socket address', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), `loupe-${'long-'.repeat(20)}`));
    dirs.push(dir);
    const server = await clusterIn(dir);
    try {
      expect(new URL(server.adminUrl).searchParams.has('host')).toBe(false);
      expect(await serverAddress(server.adminUrl)).toBe('127.0.0.1/32');
    } finally {
      await server.stop();
    }
  }, 60_000);
});
