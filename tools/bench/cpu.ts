import { readFileSync, readdirSync } from 'node:fs';
import os from 'node:os';

/**
 * CPU time used by the processes of a run, read from /proc (Linux): the service process, the
 * embedded PostgreSQL (its postmaster and every backend) and this load generator. Where /proc or
 * the PostgreSQL process is not visible (another OS, DATABASE_URL), that part is undefined.
 */
export interface CpuSample {
  serviceMs: number | undefined;
  postgresMs: number | undefined;
  benchMs: number;
}

const TICKS_PER_SECOND = 100; // USER_HZ on Linux

function statOf(pid: number): { ppid: number; cpuMs: number; reapedChildrenMs: number } | undefined {
  try {
    // fields after the ") " that ends the command name: state ppid … utime(12) stime(13) cutime(14) cstime(15)
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    const ms = (i: number) => (Number(fields[i]) * 1000) / TICKS_PER_SECOND;
    return { ppid: Number(fields[1]), cpuMs: ms(11) + ms(12), reapedChildrenMs: ms(13) + ms(14) };
  } catch {
    return undefined;
  }
}

function treeCpuMs(rootPid: number): number | undefined {
  const own = statOf(rootPid);
  if (!own || os.platform() !== 'linux') return undefined;
  // Backends that ended (a pool closing idle connections) count in the postmaster's reaped-children time.
  let total = own.cpuMs + own.reapedChildrenMs;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === rootPid) continue;
    const s = statOf(pid);
    if (s?.ppid === rootPid) total += s.cpuMs;
  }
  return total;
}

function postmasterPid(postgresDataDir: string | undefined): number | undefined {
  if (!postgresDataDir) return undefined;
  try {
    return Number(readFileSync(`${postgresDataDir}/postmaster.pid`, 'utf8').split('\n')[0]);
  } catch {
    return undefined;
  }
}

function sampleCpu(servicePid: number | undefined, postgresDataDir: string | undefined): CpuSample {
  const usage = process.cpuUsage();
  const pgPid = postmasterPid(postgresDataDir);
  return {
    serviceMs: servicePid === undefined ? undefined : statOf(servicePid)?.cpuMs,
    postgresMs: pgPid === undefined ? undefined : treeCpuMs(pgPid),
    benchMs: (usage.user + usage.system) / 1000,
  };
}

export type CpuPerThousand = CpuSample;

/** Adds up the CPU each process spends during the runs it measures. */
export function cpuMeter(target: { pid: number | undefined; postgresDataDir: string | undefined }) {
  const total: CpuSample = { serviceMs: 0, postgresMs: 0, benchMs: 0 };
  const add = (sum: number | undefined, after: number | undefined, before: number | undefined) =>
    sum === undefined || after === undefined || before === undefined ? undefined : sum + after - before;
  return {
    async measure<T>(run: () => Promise<T>): Promise<T> {
      const before = sampleCpu(target.pid, target.postgresDataDir);
      const result = await run();
      const after = sampleCpu(target.pid, target.postgresDataDir);
      total.serviceMs = add(total.serviceMs, after.serviceMs, before.serviceMs);
      total.postgresMs = add(total.postgresMs, after.postgresMs, before.postgresMs);
      total.benchMs += after.benchMs - before.benchMs;
      return result;
    },
    /** The CPU measured so far, per 1,000 of `records`, in ms with one decimal. */
    perThousand(records: number): CpuPerThousand {
      const per = (ms: number | undefined) => (ms === undefined || records === 0 ? undefined : Math.round((ms / records) * 10_000) / 10);
      return { serviceMs: per(total.serviceMs), postgresMs: per(total.postgresMs), benchMs: per(total.benchMs) ?? 0 };
    },
  };
}
