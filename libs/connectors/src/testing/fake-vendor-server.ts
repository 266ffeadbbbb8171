import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** An answer served as it is, bytes and status (a hostile or broken page). */
export interface FakeRawAnswer { status: number; body: string }

/**
 * What the vendor fakes share: an HTTP server a test starts on 127.0.0.1 and stops, the log of the requests, the
 * request body read before it is answered, a rate limit (the next `count` requests answered 429, a retry sent before
 * the wait has passed counted in `earlyRetries`) and a queue of raw answers. Each fake keeps its vendor's endpoints,
 * auth, error shapes and revocation.
 */
export abstract class FakeVendorServer<Request extends { status: number }> {
  readonly requests: Request[] = [];
  /** Virtual time the test's sleep moves: a request sent before a 429's wait has passed (on `now`) is counted in `earlyRetries`. */
  virtualNowMs = 0;
  earlyRetries = 0;
  url = '';
  abstract readonly options: { now?: () => number };
  protected limited = 0;
  protected retryAfterSeconds = 1;
  protected readonly raw: FakeRawAnswer[] = [];
  private retryNotBefore = 0;
  private server: http.Server | undefined;

  async start(): Promise<string> {
    this.server = http.createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => this.answer(req, Buffer.concat(chunks).toString('utf8'), res));
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    return this.url;
  }

  async stop(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }

  /** The next `count` requests are answered 429 with `Retry-After: seconds`. */
  rateLimit(count: number, seconds: number): void {
    this.limited = count;
    this.retryAfterSeconds = seconds;
  }

  /** The next listing requests are answered with these bodies as they are (hostile or broken pages), one each. */
  serveRaw(...answers: FakeRawAnswer[]): void {
    this.raw.push(...answers);
  }

  /** The fake's time: the test's `now` when given, its virtual time otherwise. */
  protected now(): number {
    return this.options.now ? this.options.now() : this.virtualNowMs;
  }

  /** Answers one request, its body read (`text`, empty when none). */
  protected abstract answer(req: http.IncomingMessage, text: string, res: http.ServerResponse): void;

  /** Runs the test's `onRequest`; when it throws, the connection is cut and true is returned (the request is not answered). */
  protected cutBy(res: http.ServerResponse, onRequest: () => void): boolean {
    try {
      onRequest();
      return false;
    } catch {
      res.destroy();
      return true;
    }
  }

  /**
   * Counts an early retry (sent before the last 429's wait had passed); true when this request is to be answered 429,
   * the next not to come before `waitMs` from now.
   */
  protected rateLimitedNow(waitMs = this.retryAfterSeconds * 1000): boolean {
    if (this.now() < this.retryNotBefore) this.earlyRetries++;
    if (this.limited <= 0) return false;
    this.limited--;
    this.retryNotBefore = this.now() + waitMs;
    return true;
  }

  /** A JSON answer, its status logged. */
  protected sendJson(res: http.ServerResponse, log: Request, status: number, body: unknown, headers: Record<string, string> = {}): void {
    log.status = status;
    res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
    res.end(JSON.stringify(body));
  }

  /** Serves `raw` as it is (the next of a raw queue, `this.raw.shift()`), its status logged; false when there is none. */
  protected sendRaw(res: http.ServerResponse, log: Request, raw: FakeRawAnswer | undefined, headers: Record<string, string> = {}): boolean {
    if (!raw) return false;
    log.status = raw.status;
    res.writeHead(raw.status, { 'content-type': 'application/json', ...headers });
    res.end(raw.body);
    return true;
  }
}
