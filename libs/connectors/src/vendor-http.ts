import { FetchError, type SafeFetch } from '@loupe/safe-fetch';

/** The vendor refused the credentials (401 or 403): the connection is failing until they change. */
export class VendorAuthError extends Error {
  override name = 'VendorAuthError';
  constructor(readonly status: number, vendorMessage: string) {
    super(vendorMessage);
  }
}

/** Any other failure of a vendor request: network, 5xx, a page that is not JSON, too many 429s in a row. */
export class VendorRequestError extends Error {
  override name = 'VendorRequestError';
  /** The vendor's HTTP status, when it answered (a connector may read one as "nothing there", as Gong's 404 of an empty window). */
  constructor(message: string, readonly status?: number) {
    super(message);
  }
}

export interface VendorHttpDeps {
  fetch: SafeFetch;
  /** Waits out a Retry-After; rejects when `signal` aborts. Injected so tests move time instead of sleeping. */
  sleep: (ms: number, signal?: AbortSignal) => Promise<void>;
  signal?: AbortSignal;
}

export interface VendorHttpOptions {
  /** Request headers the vendor authenticates with; never logged, never part of an error. */
  authHeaders: Record<string, string>;
  /** A 429 is waited out this many times in a row before the sync gives up (and tries again at its next run). */
  maxRateLimitWaits?: number;
  /** Wait when a 429 says nothing of when to come back. */
  defaultRetryAfterMs?: number;
  /** A Retry-After longer than this ends the sync instead (the next run starts after it). */
  maxRetryAfterMs?: number;
  maxBytes?: number;
}

export interface VendorGet {
  /** GET of `url`; with `json`, a POST of it as the JSON body (Gong's filters are POST bodies), under the same rate-limit handling. */
  (url: string, json?: unknown): Promise<unknown>;
  /** Each 429's wait, in order, for the sync's log and the tests. */
  readonly waits: number[];
}

/** Seconds, or an HTTP date, as RFC 9110 allows; undefined when absent or unreadable. */
export function retryAfterMs(value: string | string[] | undefined, now: number): number | undefined {
  const v = Array.isArray(value) ? value[0] : value;
  if (!v) return undefined;
  if (/^\d+$/.test(v.trim())) return Number(v.trim()) * 1000;
  const at = Date.parse(v);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/**
 * `X-RateLimit-Reset` as a Unix timestamp in seconds (Intercom documents it so): how long until then; undefined when
 * absent, unreadable, or too small to be a timestamp (a vendor that sends seconds-to-wait says so in Retry-After).
 */
export function rateLimitResetMs(value: string | string[] | undefined, now: number): number | undefined {
  const v = (Array.isArray(value) ? value[0] : value)?.trim();
  if (!v || !/^\d{9,11}$/.test(v)) return undefined;
  return Math.max(0, Number(v) * 1000 - now);
}

/** What the vendor said about a refusal, cut short; the request's credentials are never part of it. */
function vendorMessage(status: number, body: Buffer): string {
  let said = '';
  try {
    const parsed = JSON.parse(body.toString('utf8')) as Record<string, unknown>;
    const error = parsed.error;
    const description = parsed.description ?? parsed.message ?? parsed.error_description;
    if (typeof error === 'string') said = error;
    else if (error && typeof error === 'object') said = [(error as Record<string, unknown>).title, (error as Record<string, unknown>).message].filter((s) => typeof s === 'string').join(': ');
    if (typeof description === 'string') said = said ? `${said}: ${description}` : description;
    // Gong's ErrorResponse: `{ requestId, errors: [string] }`.
    if (!said && Array.isArray(parsed.errors)) said = parsed.errors.filter((e) => typeof e === 'string').join('; ');
    // Intercom's error list: `{ type: 'error.list', errors: [{ code, message }] }`.
    const first = Array.isArray(parsed.errors) ? (parsed.errors[0] as Record<string, unknown> | null | undefined) : undefined;
    if (!said && first && typeof first === 'object') said = [first.code, first.message].filter((s) => typeof s === 'string').join(': ');
  } catch {
    said = body.toString('utf8').replace(/\s+/g, ' ').trim();
  }
  // Kept as last_error: without what PostgreSQL cannot store (NUL, halves of surrogate pairs), whatever the vendor sent.
  return `${status}${said ? ` ${said}` : ''}`.replace(/\u0000|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '').slice(0, 500);
}

/**
 * GET (or POST of a JSON body) of a vendor's JSON through the SSRF-safe fetcher: a 429 is waited out for as long as Retry-After says
 * (never retried hot), a 401 or 403 becomes VendorAuthError with the vendor's message, anything else not 2xx
 * a VendorRequestError.
 */
export function vendorGet(deps: VendorHttpDeps, options: VendorHttpOptions): VendorGet {
  const maxWaits = options.maxRateLimitWaits ?? 20;
  const defaultWait = options.defaultRetryAfterMs ?? 60_000;
  const maxWait = options.maxRetryAfterMs ?? 15 * 60_000;
  const waits: number[] = [];
  const get = async (url: string, json?: unknown): Promise<unknown> => {
    const post = json === undefined ? {} : { method: 'POST' as const, body: JSON.stringify(json) };
    for (let attempt = 0; ; attempt++) {
      let response;
      try {
        response = await deps.fetch.bytes(url, {
          maxBytes: options.maxBytes ?? 64 * 1024 * 1024,
          acceptAnyStatus: true,
          headers: { accept: 'application/json', ...(json === undefined ? {} : { 'content-type': 'application/json' }), ...options.authHeaders },
          ...post,
          ...(deps.signal ? { signal: deps.signal } : {}),
        });
      } catch (error) {
        // A stopping worker aborts the sync: that is no failure of the vendor's.
        if (deps.signal?.aborted) throw deps.signal.reason;
        if (error instanceof FetchError) throw new VendorRequestError(error.message);
        throw error;
      }
      const { status } = response;
      if (status === 429) {
        const wait = retryAfterMs(response.headers['retry-after'], Date.now()) ?? rateLimitResetMs(response.headers['x-ratelimit-reset'], Date.now()) ?? defaultWait;
        if (attempt >= maxWaits) throw new VendorRequestError(`rate limited ${maxWaits} times in a row; the next sync starts over from the saved cursor`);
        if (wait > maxWait) throw new VendorRequestError(`rate limited for ${Math.round(wait / 1000)} s (Retry-After); the next sync starts over from the saved cursor`);
        waits.push(wait);
        await deps.sleep(wait, deps.signal);
        continue;
      }
      if (status === 401 || status === 403) throw new VendorAuthError(status, vendorMessage(status, response.body));
      if (status < 200 || status > 299) throw new VendorRequestError(`${new URL(url).pathname}: ${vendorMessage(status, response.body)}`, status);
      try {
        return JSON.parse(response.body.toString('utf8'));
      } catch {
        throw new VendorRequestError(`${new URL(url).pathname}: the answer is not JSON`);
      }
    }
  };
  return Object.assign(get, { waits });
}
