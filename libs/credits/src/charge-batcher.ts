import type pg from 'pg';
import { chargeWhileCoveredNow, type ChargeItem } from './ledger';

interface Waiting {
  item: ChargeItem;
  resolve(charged: boolean): void;
  reject(error: unknown): void;
}

/** How many charges one transaction carries at most. */
const MAX_BATCH = 500;

export interface ChargeBatcher {
  /** Charges `item` to the workspace unless it is paused; resolves to whether it was charged. */
  charge(workspaceId: string, item: ChargeItem): Promise<boolean>;
}

/**
 * Group commit for charges that stand alone (tool calls that write nothing else): while one
 * workspace's charge transaction is out, that workspace's next charges wait and go together in the
 * next one. Every charge takes the workspace's credit lock, so one at a time would serialise a
 * busy workspace on a lock held through each commit's flush; batched, they share it. Each is still
 * decided as if alone, in arrival order: once the balance runs out, the rest are refused.
 */
export function createChargeBatcher(pool: pg.Pool): ChargeBatcher {
  const queues = new Map<string, Waiting[]>();

  async function drain(workspaceId: string, queue: Waiting[]) {
    while (queue.length > 0) {
      const batch = queue.splice(0, MAX_BATCH);
      try {
        const charged = await chargeWhileCoveredNow(pool, workspaceId, batch.map((w) => w.item));
        for (const w of batch) w.resolve(charged.has(w.item.reference));
      } catch (error) {
        for (const w of batch) w.reject(error);
      }
    }
    queues.delete(workspaceId);
  }

  return {
    charge(workspaceId, item) {
      return new Promise((resolve, reject) => {
        const queue = queues.get(workspaceId);
        if (queue) return void queue.push({ item, resolve, reject });
        const fresh: Waiting[] = [{ item, resolve, reject }];
        queues.set(workspaceId, fresh);
        void drain(workspaceId, fresh);
      });
    },
  };
}
