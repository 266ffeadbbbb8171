import type { IncomingHttpHeaders } from 'node:http';
import net from 'node:net';
import type { Readable } from 'node:stream';
import got, { type Request as GotRequest, type Response as GotResponse } from 'got';
import { refusalReason, type AddressPolicy } from './address-policy';
import { BodyLimiter } from './body-limiter';
import { FetchHttpError, FetchRefusedError, FetchTooLargeError, FetchUrlError } from './errors';
import { createGuardedAgents } from './guarded-agents';
import { toFetchError } from './map-error';

export interface Timeouts {
  /** DNS lookup, TCP connect and TLS handshake, each. */
  connectMs: number;
  /** From sending the request to the response headers. */
  responseMs: number;
  /** Longest pause between two pieces of the body. */
  idleMs: number;
  /** The whole transfer, headers and body; none when undefined. */
  totalMs?: number | undefined;
}

export interface SafeFetchSettings extends Partial<AddressPolicy> {
  timeouts?: Partial<Timeouts>;
  /** Certificate authorities to trust instead of the system's (tests serving https on loopback). */
  ca?: string | string[];
  userAgent?: string;
}

export interface StreamOptions {
  /** The body is cut off with FetchTooLargeError past this many bytes. */
  maxBytes: number;
  /** Redirects are refused (FetchHttpError with the 3xx status) unless asked for. */
  followRedirects?: boolean;
  maxRedirects?: number;
  headers?: Record<string, string>;
  timeouts?: Partial<Timeouts>;
  signal?: AbortSignal;
  /** GET unless told; a POST sends `body` (an empty one when none is given). */
  method?: 'GET' | 'POST';
  body?: string | Buffer;
  /** Resolve with any status instead of refusing a non-2xx answer with FetchHttpError. */
  acceptAnyStatus?: boolean;
}

export interface SafeResponse<B = Readable> {
  /** The URL that answered, after redirects. */
  url: string;
  /** Every URL redirected to, in order. */
  redirects: string[];
  status: number;
  headers: IncomingHttpHeaders;
  contentType: string | undefined;
  contentLength: number | undefined;
  body: B;
}

export interface SafeFetch {
  /**
   * Connects, checks every address on the way, and resolves with the headers and the body as
   * a stream once a 2xx answer arrives (any answer with `acceptAnyStatus`). The body errors with a FetchError when it exceeds
   * `maxBytes`, stalls, or the connection fails; the caller must read or destroy it.
   */
  stream(url: string, options: StreamOptions): Promise<SafeResponse>;
  /** `stream`, read whole: for small documents only (the cap still applies). */
  bytes(url: string, options: StreamOptions): Promise<SafeResponse<Buffer>>;
}

const DEFAULT_TIMEOUTS: Timeouts = { connectMs: 10_000, responseMs: 30_000, idleMs: 60_000 };

export function parseFetchUrl(input: string): URL {
  let url: URL;
  try {
    url = new URL(input);
  } catch {
    throw new FetchUrlError(`${JSON.stringify(input.slice(0, 200))} is not an absolute URL`, input);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new FetchUrlError(`${url.protocol} URLs are not fetched (only http: and https:)`, input);
  }
  if (url.username || url.password) {
    throw new FetchUrlError('URLs with credentials in them are not fetched', url.origin);
  }
  return url;
}

function checkLiteralHost(url: URL, policy: AddressPolicy): void {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (!net.isIP(host)) return;
  const reason = refusalReason(host, policy);
  if (reason) throw new FetchRefusedError(url.toString(), host, host, reason);
}

function headerNumber(value: string | undefined): number | undefined {
  if (value === undefined || !/^\d+$/.test(value)) return undefined;
  return Number(value);
}

export function createSafeFetch(settings: SafeFetchSettings = {}): SafeFetch {
  const policy: AddressPolicy = { allowLoopback: settings.allowLoopback ?? false };
  const agents = createGuardedAgents(policy, { ca: settings.ca });
  const userAgent = settings.userAgent ?? 'Loupe/1.0 (+attachment fetcher)';

  async function stream(input: string, options: StreamOptions): Promise<SafeResponse> {
    const url = parseFetchUrl(input);
    checkLiteralHost(url, policy);
    const timeouts: Timeouts = { ...DEFAULT_TIMEOUTS, ...settings.timeouts, ...options.timeouts };
    const abort = new AbortController();
    const signals = [abort.signal, options.signal].filter((s): s is AbortSignal => s !== undefined);
    let currentUrl = url.toString();
    const redirects: string[] = [];
    const method = options.method ?? 'GET';
    const request: GotRequest = got.stream(url, {
      method,
      ...(method === 'POST' ? { body: options.body ?? '' } : {}),
      agent: agents,
      http2: false,
      decompress: false,
      retry: { limit: 0 },
      throwHttpErrors: false,
      followRedirect: options.followRedirects ?? false,
      maxRedirects: options.maxRedirects ?? 5,
      signal: AbortSignal.any(signals),
      timeout: {
        lookup: timeouts.connectMs,
        connect: timeouts.connectMs,
        secureConnect: timeouts.connectMs,
        response: timeouts.responseMs,
      },
      headers: { 'user-agent': userAgent, 'accept-encoding': 'identity', ...options.headers },
      hooks: {
        beforeRedirect: [
          (next) => {
            const target = parseFetchUrl(String(next.url));
            checkLiteralHost(target, policy);
            currentUrl = target.toString();
            redirects.push(currentUrl);
          },
        ],
      },
    });
    const started = Date.now();
    const totalTimer =
      timeouts.totalMs === undefined ? undefined : setTimeout(() => abort.abort(new Error('total')), timeouts.totalMs);
    totalTimer?.unref();
    const fail = (error: unknown) => {
      clearTimeout(totalTimer);
      request.destroy();
      return toFetchError(error, currentUrl, { timeouts, started, abortedForTotal: abort.signal.aborted });
    };
    let response: GotResponse;
    try {
      response = await new Promise<GotResponse>((resolve, reject) => {
        request.once('response', resolve);
        request.once('error', reject);
      });
    } catch (error) {
      throw fail(error);
    }
    const status = response.statusCode;
    if (!options.acceptAnyStatus && (status < 200 || status > 299)) {
      throw fail(new FetchHttpError(currentUrl, status, response.headers.location));
    }
    const contentLength = headerNumber(response.headers['content-length']);
    if (contentLength !== undefined && contentLength > options.maxBytes) {
      throw fail(new FetchTooLargeError(currentUrl, options.maxBytes, contentLength));
    }
    const body = new BodyLimiter({ url: currentUrl, maxBytes: options.maxBytes, idleMs: timeouts.idleMs });
    // The body may fail before its consumer attaches (the caller awaits something first). Node
    // keeps the error on the stream and hands it to any later reader or pipeline, so this only
    // stops an early error from being an uncaught exception.
    body.on('error', () => {});
    request.on('error', (error) => body.destroy(fail(error)));
    body.on('close', () => {
      clearTimeout(totalTimer);
      if (!request.destroyed) request.destroy();
    });
    request.pipe(body);
    return {
      url: currentUrl,
      redirects,
      status,
      headers: response.headers,
      contentType: response.headers['content-type'],
      contentLength,
      body,
    };
  }

  async function bytes(input: string, options: StreamOptions): Promise<SafeResponse<Buffer>> {
    const response = await stream(input, options);
    const chunks: Buffer[] = [];
    for await (const chunk of response.body) chunks.push(chunk as Buffer);
    return { ...response, body: Buffer.concat(chunks) };
  }

  return { stream, bytes };
}
