// Compares two versions of a note in a worker thread (text-diff.ts starts it with a heap limit and
// stops it at its deadline), so that a comparison never holds the event loop that answers requests.
// Run by plain node, which strips the types: line-diff.ts is imported by its file name for that reason.
// In: workerData { before, after, limits }. Out: one message, the LineComparison.
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import type * as LineDiff from './line-diff';

// On Linux a priority set with pid 0 is this thread's alone: the comparison yields the CPU to the event
// loop of the service (and to PostgreSQL) on a busy machine. Elsewhere it may apply to the process, so only here.
if (process.platform === 'linux') {
  try {
    setPriority(0, 19);
  } catch {
    // not permitted: compare at normal priority
  }
}

const { compareLines } = (await import(new URL('./line-diff.ts', import.meta.url).href)) as typeof LineDiff;
const { before, after, limits } = workerData as { before: string; after: string; limits: LineDiff.LineDiffLimits };
parentPort!.postMessage(compareLines(before, after, limits));
