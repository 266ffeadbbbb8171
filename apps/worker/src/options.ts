import type { Timeouts } from '@loupe/safe-fetch';

/** How the worker paces itself; the defaults suit production, tests shorten them. */
export interface WorkerOptions {
  /** Records turned into sources, charged and marked processed per transaction. */
  chunkSize: number;
  /**
   * pg-boss waits this long after each job before fetching the next (less the job's duration),
   * so it bounds how fast a backlog drains, not only how soon new work is seen.
   */
  pollingIntervalSeconds: number;
  /** Spec 8: attachment size limit. */
  maxAttachmentBytes: number;
  maxRedirects: number;
  downloadTimeouts: Timeouts;
  /** Errors kept in a batch's `errors` (the API shows the first 20; `totalErrorCount` counts all). */
  maxStoredErrors: number;
  /** When another attempt holds a batch's last records, look again this much later (a delayed job). */
  lockedRecheckSeconds: number;
  /** A product whose signals were placed one by one is re-clustered as a whole this long after (opportunities.settle). */
  settleAfterSeconds: number;
  /** Retention: sources (or records) deleted per slice, and the time between sweeps. */
  retentionSlice: number;
  retentionIntervalSeconds: number;
}

export const DEFAULT_OPTIONS: WorkerOptions = {
  chunkSize: 200,
  pollingIntervalSeconds: 0.5,
  maxAttachmentBytes: 2 * 1024 ** 3,
  maxRedirects: 5,
  // The total stays under the download queue's 60-minute expiry, so a slow transfer fails as a
  // timeout before pg-boss gives up on the job.
  downloadTimeouts: { connectMs: 10_000, responseMs: 60_000, idleMs: 60_000, totalMs: 55 * 60_000 },
  maxStoredErrors: 100,
  lockedRecheckSeconds: 30,
  settleAfterSeconds: 20,
  retentionSlice: 200,
  retentionIntervalSeconds: 3600,
};
