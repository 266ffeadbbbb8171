import type { RequestHandler } from 'express';

/**
 * The requests a process is answering, so background work sharing its event loop (the worker inside
 * `npm start`) can let them go first: `whenIdle` resolves once none is in flight, or after `maxWaitMs`
 * at the latest, so the background work never starves. Health checks and metrics do not count. Which of
 * them a person or an AI client waits on, and when the last one began or ended, tell the pacing
 * (./pacing) when to rest.
 */
export interface InFlight {
  middleware: RequestHandler;
  readonly count: number;
  whenIdle(maxWaitMs: number): Promise<void>;
  /** Of those, the ones a person or an AI client waits on (not `background`). */
  readonly interactiveCount: number;
  /** When the last interactive request began or ended (ms since the epoch; 0: none yet). */
  readonly lastInteractiveAt: number;
}

const NOT_COUNTED = new Set(['/healthz', '/readyz', '/metrics']);

export interface InFlightOptions {
  /** Requests that machines send and nobody watches (the ingestion API): counted, but not interactive. */
  background?: (path: string) => boolean;
  now?: () => number;
}

export function createInFlight(options: InFlightOptions = {}): InFlight {
  const now = options.now ?? Date.now;
  let count = 0;
  let interactiveCount = 0;
  let lastInteractiveAt = 0;
  let waiters: Array<() => void> = [];
  const release = () => {
    count--;
    if (count === 0 && waiters.length) {
      const ready = waiters;
      waiters = [];
      for (const w of ready) w();
    }
  };
  return {
    middleware(req, res, next) {
      if (NOT_COUNTED.has(req.path)) return next();
      count++;
      const interactive = !options.background?.(req.path);
      if (interactive) {
        interactiveCount++;
        lastInteractiveAt = now();
      }
      let done = false;
      const finish = () => {
        if (done) return;
        done = true;
        if (interactive) {
          interactiveCount--;
          lastInteractiveAt = now();
        }
        release();
      };
      res.once('finish', finish);
      res.once('close', finish);
      next();
    },
    get count() {
      return count;
    },
    get interactiveCount() {
      return interactiveCount;
    },
    get lastInteractiveAt() {
      return lastInteractiveAt;
    },
    whenIdle(maxWaitMs) {
      if (count === 0) return Promise.resolve();
      return new Promise((resolve) => {
        const timer = setTimeout(() => {
          waiters = waiters.filter((w) => w !== wake);
          resolve();
        }, maxWaitMs);
        const wake = () => {
          clearTimeout(timer);
          resolve();
        };
        waiters.push(wake);
      });
    },
  };
}
