import type { Config } from '@loupe/config';
import type { Clock, Logger } from '@loupe/http';
import type { Boss } from '@loupe/jobs';
import type { SafeFetch } from '@loupe/safe-fetch';
import type { Storage } from '@loupe/storage';
import type pg from 'pg';
import type { WorkerOptions } from './options';

/** What every job handler works with. */
export interface WorkerContext {
  pool: pg.Pool;
  boss: Boss;
  clock: Clock;
  log: Logger;
  config: Config;
  storage: Storage;
  fetch: SafeFetch;
  options: WorkerOptions;
  /** Aborted when a stop runs past its grace period: handlers give up and their jobs are retried. */
  shutdown: AbortSignal;
  /** Waited on before each slice of work, given how long the loop worked since its last one (see WorkerDeps; loops use `slicesOf`). */
  yieldToRequests?: ((workedMs: number) => Promise<void>) | undefined;
}

/** The attempt pg-boss is running: attempt `retryCount + 1` of `retryLimit + 1`. */
export interface Attempt {
  retryCount: number;
  retryLimit: number;
  signal: AbortSignal;
}

export function isLastAttempt(attempt: Attempt): boolean {
  return attempt.retryCount >= attempt.retryLimit;
}

export function errorMessage(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).slice(0, 2000);
}
