import { MaxRedirectsError, RequestError, TimeoutError } from 'got';
import {
  FetchAbortedError, FetchError, FetchNetworkError, FetchRedirectError, FetchRefusedError, FetchTimeoutError,
  FetchUrlError,
} from './errors';
import { AddressRefusal } from './guarded-agents';
import type { Timeouts } from './safe-fetch';

/** The first error of `type` in the chain of `cause`s (at most 8 deep). */
export function findCause<T>(error: unknown, type: abstract new (...args: never[]) => T): T | undefined {
  let current: unknown = error;
  for (let depth = 0; current && depth < 8; depth++) {
    if (current instanceof type) return current;
    current = (current as { cause?: unknown }).cause;
  }
  return undefined;
}

const CONNECT_EVENTS = new Set(['lookup', 'connect', 'secureConnect', 'socket']);

/** Whatever went wrong under got, as one of our typed errors naming the URL. */
export function toFetchError(
  error: unknown,
  url: string,
  context: { timeouts: Timeouts; started: number; abortedForTotal: boolean },
): FetchError {
  const ours = findCause(error, FetchError);
  if (ours) return ours;
  const refusal = findCause(error, AddressRefusal);
  if (refusal) return new FetchRefusedError(url, refusal.host, refusal.address, refusal.reason);
  if (context.abortedForTotal) return new FetchTimeoutError(url, 'total', context.timeouts.totalMs ?? Date.now() - context.started);
  if (error instanceof TimeoutError) {
    if (CONNECT_EVENTS.has(error.event)) return new FetchTimeoutError(url, 'connect', context.timeouts.connectMs);
    return new FetchTimeoutError(url, 'response', context.timeouts.responseMs);
  }
  if (error instanceof MaxRedirectsError) return new FetchRedirectError(`${url}: ${error.message}`, url, { cause: error });
  if ((error as Error | undefined)?.name === 'AbortError') return new FetchAbortedError(`${url}: the transfer was aborted`, url);
  const code = error instanceof RequestError ? error.code : (error as { code?: string } | undefined)?.code;
  if (code === 'ERR_UNSUPPORTED_PROTOCOL') {
    return new FetchUrlError(`${url} redirected to an URL that is not http: or https: (${(error as Error).message})`, url);
  }
  return new FetchNetworkError(url, error, code);
}
