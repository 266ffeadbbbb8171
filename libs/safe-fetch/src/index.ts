export { createSafeFetch, parseFetchUrl, type SafeFetch, type SafeFetchSettings, type SafeResponse, type StreamOptions, type Timeouts } from './safe-fetch';
export { refusalReason, type AddressPolicy } from './address-policy';
export {
  FetchError, FetchAbortedError, FetchHttpError, FetchNetworkError, FetchRedirectError, FetchRefusedError,
  FetchTimeoutError, FetchTooLargeError, FetchUrlError, type TimeoutPhase,
} from './errors';
export { safeFetchAsFetch, type AsFetchOptions } from './as-fetch';
export { findCause } from './map-error';
