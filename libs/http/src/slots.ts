/**
 * A counting semaphore whose waiters give up after `waitMs`: at most `size` holders at once (worker
 * threads parsing documents, comparing notes), and a caller that cannot get a slot in time hears so.
 */
export interface Slots {
  /** Resolves true with a slot taken, or false when none came free within `waitMs`. */
  take(waitMs: number): Promise<boolean>;
  /** Gives a taken slot back (to the longest waiter, if any). */
  give(): void;
}

export function createSlots(size: number): Slots {
  let free = size;
  const waiting: Array<() => void> = [];
  return {
    async take(waitMs) {
      if (free > 0) {
        free--;
        return true;
      }
      return new Promise<boolean>((resolve) => {
        const wake = () => {
          clearTimeout(timer);
          resolve(true);
        };
        const timer = setTimeout(() => {
          waiting.splice(waiting.indexOf(wake), 1);
          resolve(false);
        }, waitMs);
        waiting.push(wake);
      });
    },
    give() {
      const next = waiting.shift();
      if (next) next();
      else free++;
    },
  };
}
