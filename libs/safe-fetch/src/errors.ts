/** Every failure of a safe fetch; `retryable` says whether the same request may succeed later. */
export abstract class FetchError extends Error {
  abstract readonly code: string;
  abstract readonly retryable: boolean;
  constructor(
    message: string,
    readonly url: string,
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}

/** Not a URL, or a scheme other than http: and https:. */
export class FetchUrlError extends FetchError {
  override name = 'FetchUrlError';
  readonly code = 'FETCH_BAD_URL';
  readonly retryable = false;
}

/** The host is, or resolves to, an address outside the public internet. */
export class FetchRefusedError extends FetchError {
  override name = 'FetchRefusedError';
  readonly code = 'FETCH_REFUSED_ADDRESS';
  readonly retryable = false;
  constructor(
    url: string,
    readonly host: string,
    readonly address: string,
    readonly reason: string,
  ) {
    super(`refused to connect to ${host}${host === address ? '' : ` (${address})`}: it is ${reason}`, url);
  }
}

export class FetchHttpError extends FetchError {
  override name = 'FetchHttpError';
  readonly code = 'FETCH_HTTP_STATUS';
  readonly retryable: boolean;
  constructor(
    url: string,
    readonly status: number,
    readonly location?: string,
  ) {
    super(
      status >= 300 && status < 400
        ? `${url} answered ${status} (a redirect${location ? ` to ${location}` : ''}), and redirects were not to be followed`
        : `${url} answered HTTP ${status}`,
      url,
    );
    this.retryable = status >= 500 || status === 408 || status === 429;
  }
}

export class FetchRedirectError extends FetchError {
  override name = 'FetchRedirectError';
  readonly code = 'FETCH_REDIRECT';
  readonly retryable = false;
}

export class FetchTooLargeError extends FetchError {
  override name = 'FetchTooLargeError';
  readonly code = 'FETCH_TOO_LARGE';
  readonly retryable = false;
  constructor(
    url: string,
    readonly limit: number,
    /** The announced Content-Length, when that is what exceeded the limit. */
    readonly declared?: number,
  ) {
    super(
      declared !== undefined
        ? `${url} announced ${declared} bytes, more than the limit of ${limit}`
        : `${url} sent more than the limit of ${limit} bytes`,
      url,
    );
  }
}

export type TimeoutPhase = 'connect' | 'response' | 'idle' | 'total';

export class FetchTimeoutError extends FetchError {
  override name = 'FetchTimeoutError';
  readonly code = 'FETCH_TIMEOUT';
  readonly retryable = true;
  constructor(
    url: string,
    readonly phase: TimeoutPhase,
    readonly ms: number,
  ) {
    const what = {
      connect: 'to connect',
      response: 'for the response headers',
      idle: 'for more data (the body stalled)',
      total: 'for the whole transfer',
    }[phase];
    super(`${url}: gave up waiting ${what} after ${ms} ms`, url);
  }
}

/** DNS failure, refused or reset connection, TLS failure, body cut short. */
export class FetchNetworkError extends FetchError {
  override name = 'FetchNetworkError';
  readonly code = 'FETCH_NETWORK';
  readonly retryable = true;
  constructor(
    url: string,
    override readonly cause: unknown,
    readonly systemCode: string | undefined,
  ) {
    super(`${url}: ${systemCode ? `${systemCode} ` : ''}${cause instanceof Error ? cause.message : String(cause)}`, url, { cause });
  }
}

/** The caller's signal aborted the transfer. */
export class FetchAbortedError extends FetchError {
  override name = 'FetchAbortedError';
  readonly code = 'FETCH_ABORTED';
  readonly retryable = true;
}
