import { Worker } from 'node:worker_threads';
import { createSlots } from '@loupe/http';
import { changedMiddle, diffMiddle, middleSize, type LineComparison } from './line-diff';

/**
 * What comparing two versions of a note may cost (issue 41, finding 2). A note holds up to 1 MB, and
 * Myers' diff costs about the square of the lines changed: two unrelated versions of 12,000 lines held
 * the event loop for 21 s. So: at most `maxChangedLines` lines removed plus added (beyond, the page says
 * the versions are too different to compare line by line), within `timeoutMs` of asking (waiting for a
 * slot included; the worker is stopped at the deadline), in a worker thread of its own with a heap
 * limit, at most `concurrent` at once per process. A small change between small texts (`inline`: a
 * changed middle of a few hundred lines at most, a few milliseconds) is compared in place.
 */
export interface TextDiffLimits {
  maxChangedLines: number;
  timeoutMs: number;
  concurrent: number;
  /** The worker's old-generation heap (resourceLimits.maxOldGenerationSizeMb). */
  heapMb: number;
  inline: { maxChars: number; maxChangedLines: number };
}

export const TEXT_DIFF_LIMITS: TextDiffLimits = {
  maxChangedLines: 2_000,
  timeoutMs: 1_000,
  concurrent: 2,
  heapMb: 128,
  inline: { maxChars: 64 * 1024, maxChangedLines: 300 },
};

export type TextDiff = (before: string, after: string) => Promise<LineComparison>;

const WORKER = new URL('./line-diff-worker.ts', import.meta.url);

export function createTextDiff(limits: TextDiffLimits = TEXT_DIFF_LIMITS): TextDiff {
  const pool = createSlots(limits.concurrent);
  const lineLimits = (timeoutMs: number) => ({ maxChangedLines: limits.maxChangedLines, timeoutMs });

  async function inWorker(before: string, after: string): Promise<LineComparison> {
    // One deadline for waiting and comparing: a page answers within timeoutMs, however busy.
    const arrived = performance.now();
    if (!(await pool.take(limits.timeoutMs))) return { tooDifferent: 'busy' };
    const waited = performance.now() - arrived;
    const timeoutMs = Math.max(1, limits.timeoutMs - waited);
    try {
      return await new Promise<LineComparison>((resolve, reject) => {
        const worker = new Worker(WORKER, {
          workerData: { before, after, limits: lineLimits(timeoutMs) },
          // Plain node (it strips the types): the parent's loaders (tsx, vitest) are not needed there.
          execArgv: [],
          resourceLimits: { maxOldGenerationSizeMb: limits.heapMb, maxYoungGenerationSizeMb: 32, stackSizeMb: 4 },
        });
        let settled = false;
        const settle = (fn: () => void) => {
          if (settled) return;
          settled = true;
          clearTimeout(timer);
          fn();
          void worker.terminate();
        };
        // Out of time mostly spent waiting for a slot: the service was busy, not the versions too different.
        const timer = setTimeout(() => settle(() => resolve({ tooDifferent: waited > limits.timeoutMs / 4 ? 'busy' : 'time' })), timeoutMs);
        worker.once('message', (answer: LineComparison) => settle(() => resolve(answer)));
        // Out of memory: a comparison that needs more than heapMb has too much to compare.
        worker.once('error', (error: Error & { code?: string }) => settle(() => (error.code === 'ERR_WORKER_OUT_OF_MEMORY' ? resolve({ tooDifferent: 'changed_lines' }) : reject(error))));
        worker.once('exit', (code) => settle(() => reject(new Error(`the comparison of two versions stopped (exit code ${code}) before answering`))));
      });
    } finally {
      pool.give();
    }
  }

  return async function textDiff(before, after) {
    if (before.length + after.length <= limits.inline.maxChars) {
      const middle = changedMiddle(before, after);
      const { removed, added } = middleSize(middle);
      if (removed + added <= Math.min(limits.inline.maxChangedLines, limits.maxChangedLines)) return diffMiddle(middle, lineLimits(limits.timeoutMs));
    }
    return inWorker(before, after);
  };
}

let processDiff: TextDiff | undefined;
/** The process's comparison (TEXT_DIFF_LIMITS), for callers not given one. */
export const diffText: TextDiff = (before, after) => (processDiff ??= createTextDiff())(before, after);
