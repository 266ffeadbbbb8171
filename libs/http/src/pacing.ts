import type { InFlight } from './in-flight';

/**
 * How background work that shares a small machine with people and AI clients (the worker inside
 * `npm start`) gives them their headroom. Before each slice of its work the worker awaits `beforeSlice`
 * with how long it worked since its previous slice began. While interactive requests are being answered
 * (one began or ended less than RECENT_MS ago), it first rests for as long as keeps its work to `busyShare`
 * of the time: at 0.5, a slice of 120 ms is followed by a rest of 120 ms. Then, as always, it lets the
 * requests in flight finish (at most `maxWaitMs`). With nobody waiting it runs flat out.
 *
 * Why a share of the time and not only a lower priority: the worker's statements already run at a lower
 * CPU priority, but PostgreSQL and the service are scheduled as separate groups on Linux (autogroup),
 * where a lower priority orders threads only within their own group; the rest is what frees the cores.
 */
export interface Pacing {
  beforeSlice(workedMs: number): Promise<void>;
}

/** Interactive requests this recent (began or ended) make the worker rest between slices. */
export const RECENT_MS = 1_000;
/** The longest rest after one slice, so that a slow slice does not stop the work for long. */
export const MAX_REST_MS = 1_000;

export interface PacingOptions {
  inFlight: InFlight;
  /** Share of the time the work may take while interactive requests are answered, (0, 1]; 1: no rest. */
  busyShare: number;
  maxWaitMs: number;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

export function createPacing(options: PacingOptions): Pacing {
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const restPerWorked = (1 - options.busyShare) / options.busyShare;
  return {
    async beforeSlice(workedMs) {
      const interactive = options.inFlight.interactiveCount > 0 || now() - options.inFlight.lastInteractiveAt < RECENT_MS;
      const rest = interactive ? Math.min(MAX_REST_MS, workedMs * restPerWorked) : 0;
      if (rest > 0) await sleep(rest);
      await options.inFlight.whenIdle(options.maxWaitMs);
    },
  };
}

/**
 * One loop's slices: awaited between slices, it passes `beforeSlice` how long this loop worked since its
 * previous slice began (the first time: since the loop started), so that loops running at once are each paced
 * by their own work.
 */
export function slicesOf(beforeSlice: ((workedMs: number) => Promise<void>) | undefined, now: () => number = () => performance.now()): () => Promise<void> {
  let began = now();
  return async () => {
    if (!beforeSlice) return;
    await beforeSlice(now() - began);
    began = now();
  };
}
