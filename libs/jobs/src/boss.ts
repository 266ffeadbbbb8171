import { PgBoss } from 'pg-boss';
import { QUEUES } from './queues';

export type Boss = PgBoss;

export interface BossOptions {
  connectionString: string;
  /** Maintenance and scheduling run in instances that work jobs; producers can skip them. */
  supervise?: boolean;
  max?: number;
}

/** How jobs are retried and how soon a job of a dead worker is noticed. */
export interface JobPolicy {
  /** A worker that dies (SIGKILL, lost host) stops its heartbeat; its job is retried this long after. */
  heartbeatSeconds: number;
  /** First retry delay; it doubles on each retry. */
  retryBaseSeconds: number;
}

export const DEFAULT_JOB_POLICY: JobPolicy = { heartbeatSeconds: 30, retryBaseSeconds: 2 };

export function createBoss(options: BossOptions): PgBoss {
  const boss = new PgBoss({
    connectionString: options.connectionString,
    max: options.max ?? 4,
    supervise: options.supervise ?? true,
    // The supervisor also notices stopped heartbeats; pg-boss's default of 60 s would add up to a minute.
    superviseIntervalSeconds: 5,
    schedule: false,
    migrate: true,
  });
  return boss;
}

/** Creates every queue with its retry policy; safe to call from any number of instances. */
export async function ensureQueues(boss: PgBoss, policy: JobPolicy = DEFAULT_JOB_POLICY): Promise<void> {
  const existing = new Set((await boss.getQueues()).map((q) => q.name));
  const create = async (name: string, options: Parameters<PgBoss['createQueue']>[1]) => {
    if (existing.has(name)) return;
    try {
      await boss.createQueue(name, options);
    } catch (error) {
      // Another instance created it between our read and our insert.
      if (!(await boss.getQueue(name))) throw error;
    }
  };
  await create(QUEUES.deadLetter, { retentionSeconds: 14 * 24 * 3600 });
  await create(QUEUES.processBatch, {
    retryLimit: 8,
    retryDelay: policy.retryBaseSeconds,
    retryBackoff: true,
    retryDelayMax: 300,
    expireInSeconds: 15 * 60,
    heartbeatSeconds: policy.heartbeatSeconds,
    deadLetter: QUEUES.deadLetter,
  });
  // One queued job per singleton key, retried with backoff, dead letters kept.
  const shortQueue = (retryLimit: number, expireInSeconds: number) => ({
    policy: 'short', retryLimit, retryDelay: policy.retryBaseSeconds, retryBackoff: true, expireInSeconds,
    heartbeatSeconds: policy.heartbeatSeconds, deadLetter: QUEUES.deadLetter,
  }) as const;
  // short + a singleton key per product: a burst of signal changes leaves one queued recompute per
  // product. Not stately: its fetch skips keys that cached stats call active, so the next recompute
  // of a product waited up to two minutes after the last one (pg-boss's stats every 60 s, cached 60 s).
  // One update of a product at a time is the job's own advisory lock. (Queues created stately by an
  // earlier version stay so, with that wait: pg-boss cannot change a policy.) A backfill of 100,000
  // signals takes minutes: well inside 30.
  await create(QUEUES.recomputeOpportunities, shortQueue(5, 30 * 60));
  // the same key: one settle waits per product, sent with a delay after a burst of changes
  await create(QUEUES.settleOpportunities, shortQueue(3, 15 * 60));
  // the workspace as key: one waits (and picks up everything stored meanwhile), whatever runs
  await create(QUEUES.embedSources, shortQueue(5, 30 * 60));
  // one sweep waits (an hour ahead), and one slice per workspace: a slice is one short transaction
  await create(QUEUES.retention, shortQueue(5, 15 * 60));
  // the workspace as key: one waits while one runs, so a burst of company and people imports re-resolves once more at most
  await create(QUEUES.resolveCompanies, shortQueue(5, 30 * 60));
  // a connection's schedule and its "sync now" each wait once; a sync resumes from the stored cursor, so a
  // retry (a worker that died mid-page) repeats at most the page in hand, and its records are duplicates
  await create(QUEUES.syncConnection, shortQueue(5, 60 * 60));
  // a slice of a deleted connection's records per job, the next queued by the job: one waits per connection
  await create(QUEUES.purgeConnection, shortQueue(5, 15 * 60));
  // an import resumes from its saved cursor (rows consumed, committed with each slice), so a retry repeats at most
  // the slice in hand, whose records come back as duplicates; one waits per import
  await create(QUEUES.importFile, shortQueue(5, 2 * 60 * 60));
  // An erasure resumes from its stored phase and cursor, so a retry repeats at most one slice.
  await create(QUEUES.erasePerson, {
    retryLimit: 10,
    retryDelay: policy.retryBaseSeconds,
    retryBackoff: true,
    retryDelayMax: 300,
    expireInSeconds: 60 * 60,
    heartbeatSeconds: policy.heartbeatSeconds,
    deadLetter: QUEUES.deadLetter,
  });
  await create(QUEUES.downloadAttachment, {
    retryLimit: 4,
    retryDelay: policy.retryBaseSeconds,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 60 * 60,
    heartbeatSeconds: policy.heartbeatSeconds,
    deadLetter: QUEUES.deadLetter,
  });
}
