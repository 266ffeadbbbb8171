import type { IncomingHttpHeaders } from 'node:http';
import type { SafeFetch } from './safe-fetch';

export interface AsFetchOptions {
  /** The whole body is read, and refused with FetchTooLargeError past this many bytes. */
  maxBytes: number;
  /** Each request, headers and body, gives up after this long (FetchTimeoutError). */
  timeoutMs: number;
}

/** Statuses whose Response may not carry a body. */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);

function abortReason(signal: AbortSignal): unknown {
  return signal.reason ?? new DOMException('This operation was aborted', 'AbortError');
}

async function bodyOf(body: unknown): Promise<string | Buffer | undefined> {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  if (Buffer.isBuffer(body)) return body;
  if (body instanceof ArrayBuffer) return Buffer.from(body);
  if (ArrayBuffer.isView(body)) return Buffer.from(body.buffer, body.byteOffset, body.byteLength);
  if (body instanceof Blob) return Buffer.from(await body.arrayBuffer());
  throw new TypeError('safe fetch sends only string, byte, Blob or URLSearchParams bodies (not streams or forms)');
}

function responseHeaders(headers: IncomingHttpHeaders): Headers {
  const out = new Headers();
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined) continue;
    for (const v of Array.isArray(value) ? value : [value]) out.append(name, v);
  }
  return out;
}

/**
 * A WHATWG `fetch` that goes through `safe`: every address checked, no redirects, the body read
 * whole up to `maxBytes`, the request limited to `timeoutMs`. For libraries that take a `fetch`
 * option (the MCP SDK's StreamableHTTPClientTransport). Only GET and POST are sent; safe-fetch's
 * errors (refused address, timeout, too large) are the rejections, and an aborted `signal`
 * rejects with its reason as `fetch` does. Any status resolves, as with `fetch`.
 */
export function safeFetchAsFetch(safe: SafeFetch, options: AsFetchOptions): typeof fetch {
  return async function safeFetch(input: string | URL | Request, init: RequestInit = {}): Promise<Response> {
    const request = input instanceof Request ? input : undefined;
    const url = request ? request.url : input instanceof URL ? input.toString() : String(input);
    const method = (init.method ?? request?.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw new TypeError(`safe fetch sends only GET and POST, not ${method}`);
    const headers = new Headers(request?.headers);
    new Headers(init.headers).forEach((value, name) => headers.set(name, value));
    const signal = init.signal ?? request?.signal ?? undefined;
    if (signal?.aborted) throw abortReason(signal);
    let body = await bodyOf(init.body);
    if (body === undefined && request?.body) body = Buffer.from(await request.arrayBuffer());
    if (method === 'GET' && body !== undefined) throw new TypeError('a GET request cannot have a body');
    const record: Record<string, string> = {};
    headers.forEach((value, name) => (record[name] = value));
    try {
      const response = await safe.bytes(url, {
        method,
        ...(body !== undefined ? { body } : {}),
        headers: record,
        maxBytes: options.maxBytes,
        acceptAnyStatus: true,
        timeouts: { responseMs: options.timeoutMs, idleMs: options.timeoutMs, totalMs: options.timeoutMs },
        ...(signal ? { signal } : {}),
      });
      const payload = NULL_BODY.has(response.status) ? null : new Uint8Array(response.body);
      return new Response(payload, { status: response.status, headers: responseHeaders(response.headers) });
    } catch (error) {
      if (signal?.aborted) throw abortReason(signal);
      throw error;
    }
  };
}
