/**
 * Readiness that turns off first on shutdown: `/readyz` answers 503 "draining" from `begin`, which then
 * waits for a load balancer's health checks to see it and stop sending new requests, before the server
 * stops accepting and finishes what is in flight.
 */
export interface Drain {
  readonly draining: boolean;
  /** Turns readiness off, then resolves after `ms` (at once for 0). */
  begin(ms: number): Promise<void>;
}

export function createDrain(): Drain {
  let draining = false;
  return {
    get draining() {
      return draining;
    },
    begin(ms) {
      draining = true;
      return ms > 0 ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
    },
  };
}
