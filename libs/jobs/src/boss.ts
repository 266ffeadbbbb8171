import { PgBoss } from 'pg-boss';
import { QUEUES } from './queues';

export type Boss = PgBoss;

export interface BossOptions {
  connectionString: string;
  /** Maintenance and scheduling run in instances that work jobs; producers can skip them. */
  supervise?: boolean;
  max?: number;
}

export function createBoss(options: BossOptions): PgBoss {
  const boss = new PgBoss({
    connectionString: options.connectionString,
    max: options.max ?? 4,
    supervise: options.supervise ?? true,
    schedule: false,
    migrate: true,
  });
  return boss;
}

/** Creates every queue with its retry policy; safe to call from any number of instances. */
export async function ensureQueues(boss: PgBoss): Promise<void> {
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
    retryDelay: 2,
    retryBackoff: true,
    retryDelayMax: 300,
    expireInSeconds: 15 * 60,
    // A worker that dies (SIGKILL, lost host) stops sending heartbeats; its job is retried
    // after this long instead of after expireInSeconds.
    heartbeatSeconds: 30,
    deadLetter: QUEUES.deadLetter,
  });
  await create(QUEUES.downloadAttachment, {
    retryLimit: 4,
    retryDelay: 5,
    retryBackoff: true,
    retryDelayMax: 600,
    expireInSeconds: 60 * 60,
    heartbeatSeconds: 30,
    deadLetter: QUEUES.deadLetter,
  });
}
