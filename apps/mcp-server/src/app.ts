import { Router, type Request, type Response } from 'express';
import type pg from 'pg';
import { createChargeBatcher, type ChargeBatcher } from '@loupe/credits';
import type { Db } from '@loupe/db';
import {
  BodyBudgetExceededError, BodyTooLargeError, createBodyBudget, createRateLimiter, deferredPerIpCheck, isDatabaseUnavailable, perIpRateLimitedBody, readBoundedBody,
  sendPerIpRateLimited, systemClock, takeCost, type Clock, type CostDecision, type Logger, type RateDecision, type RateLimiter,
} from '@loupe/http';
import { SCOPES } from '@loupe/oauth';
import { enqueue, type Boss, type QueueName } from '@loupe/jobs';
import type { ThirdPartyGateway } from '@loupe/third-party-mcp';
import { authenticate, credentialRateKey } from './authenticate';
import { answerModern, envelopeWithoutHeader, MODERN_PROTOCOL_VERSION, SERVED_PROTOCOL_VERSIONS, unsupportedProtocolVersion, type Answer } from './modern';
import { buildServer, connectionTools, registrations, serverImplementation } from './server';
import { answerPost, batchesAllowed, batchNotSupported, type Admission } from './post-transport';
import { challengeHeader, MCP_PATH, STEP_UP_VERSIONS, stepUp } from './challenges';
import { serveToolIcon, TOOL_ICONS_PATH } from './tool-icons';
import { createDocumentReader } from './tools/document-text';
import { timed, type ObservePhase, type ToolContext } from './tool-kit';

export interface McpAppDeps {
  baseUrl: () => string;
  /** Absent: only discovery and the transport refusals are served (the standalone discovery tests). */
  pool?: pg.Pool;
  db?: Db;
  clock?: Clock;
  log?: Logger;
  servicePrefix?: string;
  schedule?: ToolContext['schedule'];
  services?: Record<string, unknown>;
  /** Spec 8.1: MCP requests per access token and per API key; 1,000 an hour in PostgreSQL unless given. */
  credentialLimiter?: RateLimiter;
  /** The workspace's third-party MCP servers, offered to API keys with mcp:thirdparty. */
  thirdParty?: ThirdPartyGateway;
  /** Where the time of each request goes (the metrics' loupe_mcp_request_phase_seconds). */
  observePhase?: ObservePhase;
  /** Bytes of request bodies held at once (read, not yet answered); past it 503 with Retry-After. MCP_BODY_MEMORY_DEFAULT unless given. */
  bodyMemoryBytes?: number;
}

/** Spec 8.1: MCP requests per OAuth access token, and per API key. */
export const CREDENTIAL_LIMIT = { limit: 1000, windowMs: 3600_000 } as const;

export { MCP_PATH };
/** The scopes of the authorization server (one list, in libs/oauth). */
export const MCP_SCOPES = SCOPES;
/** Request bodies up to 75 MB (spec 8.3: room for base64 files), read as a bounded stream. */
export const MCP_MAX_BODY_BYTES = 75 * 1024 * 1024;
/**
 * Bodies in flight a process holds at once, by default (MCP_BODY_MEMORY_MB): a 65 MB add_source body
 * costs about 170 MB by the time it is parsed and decoded, so ~25 at once would exhaust the heap.
 */
export const MCP_BODY_MEMORY_DEFAULT = 200 * 1024 * 1024;
/** Seconds a client refused for want of body memory is told to wait. */
export const BODY_BUDGET_RETRY_AFTER_SECONDS = 5;

/** RFC 9728 protected-resource metadata for the MCP endpoint. */
export function protectedResourceMetadata(baseUrl: string) {
  return {
    resource: `${baseUrl}${MCP_PATH}`,
    authorization_servers: [baseUrl],
    scopes_supported: [...MCP_SCOPES],
    bearer_methods_supported: ['header'],
    resource_signing_alg_values_supported: ['RS256'],
  };
}

const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

const isModern = (req: Request) => req.get('mcp-protocol-version') === MODERN_PROTOCOL_VERSION;

/**
 * The JSON-RPC code of a request refused before it is read (405, 403, 406, 413, 415): -32000 as spec 4.1
 * says for the handshake era; 2026-07-28 calls -32000..-32019 legacy that new implementations SHOULD NOT
 * use, so its requests get the standard Invalid Request.
 */
const refusalCode = (req: Request) => (isModern(req) ? -32600 : -32000);

function rpcError(res: Response, status: number, code: number, message: string) {
  res.status(status).json({ jsonrpc: '2.0', error: { code, message }, id: null });
}

/**
 * DNS-rebinding protection: Host must be our public host, and Origin (when a browser sends one) our
 * own origin. When the public URL is on loopback (the embedded default), any loopback name and port
 * counts as ours.
 */
function hostAllowed(req: Request, base: URL): string | undefined {
  const local = LOOPBACK.has(base.hostname);
  const host = req.get('host') ?? '';
  const hostName = host.replace(/:\d+$/, '');
  if (host !== base.host && !(local && LOOPBACK.has(hostName))) return `Host ${JSON.stringify(host)} is not this server's host (${base.host})`;
  const origin = req.get('origin');
  if (origin !== undefined) {
    let o: URL | undefined;
    try {
      o = new URL(origin);
    } catch {
      o = undefined;
    }
    if (!o || (o.origin !== base.origin && !(local && LOOPBACK.has(o.hostname)))) return `Origin ${JSON.stringify(origin)} may not call this server`;
  }
  return undefined;
}

/**
 * The MCP endpoint (spec 4.1, 5.1, 7.2): stateless Streamable HTTP with JSON responses. Order: 405,
 * DNS-rebinding check, credentials, Accept (406), Content-Type (415), protocol version (400), a body
 * read to at most 75 MB (413), JSON (400 -32700), then a server bound to the caller (the SDK's for the
 * handshake era, through answerPost; our own dispatcher for 2026-07-28).
 */
export function createMcpApp(deps: McpAppDeps): Router {
  const router = Router();
  let credentialLimiter = deps.credentialLimiter;
  let charges: ChargeBatcher | undefined;
  // One document reader per app: its worker slots bound how many untrusted files are parsed at once.
  const services = { documentText: createDocumentReader(), ...(deps.services ?? {}) };
  const bodies = createBodyBudget(deps.bodyMemoryBytes ?? MCP_BODY_MEMORY_DEFAULT);
  const metadata = (_req: unknown, res: Response) => {
    res.setHeader('cache-control', 'public, max-age=3600');
    // Browser-based clients (the MCP Inspector) read it cross-origin.
    res.setHeader('access-control-allow-origin', '*');
    res.json(protectedResourceMetadata(deps.baseUrl()));
  };
  router.get('/.well-known/oauth-protected-resource', metadata);
  router.get(`/.well-known/oauth-protected-resource${MCP_PATH}`, metadata);
  router.get(`${TOOL_ICONS_PATH}/:file`, serveToolIcon);
  router.all(MCP_PATH, async (req, res, next) => {
    const log = () => deps.log ?? (req as Request & { log?: Logger }).log;
    try {
      // The shell leaves this path's per-IP count to us, to count it with the credential's in one statement.
      const ipCheck = deferredPerIpCheck(res);
      const ipAllowsAlone = async () => {
        const decision = ipCheck && (await ipCheck.limiter.take(ipCheck.key));
        if (decision && !decision.allowed) sendPerIpRateLimited(res, decision);
        return !decision || decision.allowed;
      };
      if (req.method !== 'POST') {
        if (!(await ipAllowsAlone())) return;
        res.status(405).setHeader('allow', 'POST');
        return rpcError(res, 405, refusalCode(req), 'Method not allowed: this server is stateless and answers POST only');
      }
      const base = new URL(deps.baseUrl());
      const refused = hostAllowed(req, base);
      if (refused) return (await ipAllowsAlone()) ? rpcError(res, 403, refusalCode(req), `Forbidden: ${refused}`) : undefined;
      if (!deps.pool) {
        if (!(await ipAllowsAlone())) return;
        if (!req.get('authorization') && !req.get('x-api-key')) return challenge(res, deps.baseUrl());
        return rpcError(res, 503, -32603, 'The MCP endpoint is not configured on this process');
      }
      const clock = deps.clock ?? systemClock;
      credentialLimiter ??= createRateLimiter(deps.pool, { ...CREDENTIAL_LIMIT, clock });
      const rateKey = credentialRateKey(req);
      const checks = [...(ipCheck ? [ipCheck] : []), ...(rateKey ? [{ limiter: credentialLimiter, key: rateKey }] : [])];
      // The credential, its workspace's standing and the limits: one statement (shared by overlapping requests).
      const { auth, decisions, standing } = await timed(deps.observePhase, 'auth', () => authenticate(req, {
        pool: deps.pool!, servicePrefix: deps.servicePrefix ?? 'loupe_', now: () => new Date(clock.now()),
      }, checks));
      const ipDecision = ipCheck ? decisions[0] : undefined;
      if (ipDecision && !ipDecision.allowed) return sendPerIpRateLimited(res, ipDecision);
      if (!auth.ok) {
        if (auth.challenge) return challenge(res, deps.baseUrl());
        return void res.status(auth.status).json(auth.body);
      }
      const decision = decisions[ipCheck ? 1 : 0]!;
      if (!decision.allowed) return rateLimited(res, auth.principal.kind, decision);
      const accept = req.get('accept') ?? '';
      if (!accept.includes('application/json') || !accept.includes('text/event-stream')) {
        return rpcError(res, 406, refusalCode(req), 'Not Acceptable: the Accept header must list both application/json and text/event-stream');
      }
      if (!/^application\/json\s*(;|$)/i.test(req.get('content-type') ?? '')) {
        return rpcError(res, 415, refusalCode(req), 'Unsupported Media Type: Content-Type must be application/json');
      }
      const version = req.get('mcp-protocol-version');
      let body: unknown;
      try {
        const raw = await readBoundedBody(req, MCP_MAX_BODY_BYTES, bodies);
        // The body's bytes stay reserved until the answer is sent: its parsed form lives that long.
        res.once('close', () => bodies.release(raw.length));
        body = JSON.parse(raw.toString('utf8'));
      } catch (error) {
        if (error instanceof BodyBudgetExceededError) {
          res.setHeader('connection', 'close');
          res.setHeader('retry-after', String(BODY_BUDGET_RETRY_AFTER_SECONDS));
          log()?.warn({ held: bodies.held(), limit: bodies.limit }, 'MCP request refused: request bodies in flight at their memory limit');
          return rpcError(res, 503, isModern(req) ? -32603 : -32000, `Service busy: this server is reading as many large requests as it can hold in memory; nothing was done. Retry in ${BODY_BUDGET_RETRY_AFTER_SECONDS} seconds.`);
        }
        if (error instanceof BodyTooLargeError) {
          res.setHeader('connection', 'close');
          return rpcError(res, 413, refusalCode(req), `Payload Too Large: request bodies are limited to 75 MB`);
        }
        if (error instanceof SyntaxError) return rpcError(res, 400, -32700, `Parse error: the body is not valid JSON (${error.message})`);
        throw error;
      }
      // 2026-07-28 and the five of spec 9.1; anything else is 400 with the revision's -32022 listing them,
      // answered with the request's id (so the body is read first).
      if (version !== undefined && !SERVED_PROTOCOL_VERSIONS.includes(version)) return send(res, unsupportedProtocolVersion(version, requestId(body)));
      // 2025-06-18 removed JSON-RPC batches: refused whole, nothing run, counted as the one request it is.
      if (Array.isArray(body) && !batchesAllowed(version)) return send(res, batchNotSupported(version!));
      const ctx: ToolContext = {
        principal: auth.principal,
        pool: deps.pool,
        db: deps.db!,
        clock,
        log: deps.log ?? (req as Request & { log: Logger }).log,
        schedule: deps.schedule ?? scheduleThrough(deps.services?.boss as Boss | undefined),
        services,
        observePhase: deps.observePhase,
        charges: (charges ??= createChargeBatcher(deps.pool)),
        standing,
      };
      if (version === MODERN_PROTOCOL_VERSION) {
        // MCP 2026-07-28: answered by our own dispatcher (the SDK 1.32 stops at 2025-11-25), same tools and path.
        const answer = await timed(deps.observePhase, 'handle', () => answerModern((name) => req.get(name), body, {
          tools: () => connectionTools(ctx, deps.thirdParty, deps.baseUrl()),
          implementation: serverImplementation(deps.baseUrl()),
          stepUp: (tool) => stepUp(deps.baseUrl(), auth.principal, tool),
        }));
        return send(res, answer);
      }
      const mismatch = envelopeWithoutHeader(body, version);
      if (mismatch) return send(res, mismatch);
      if (version !== undefined && STEP_UP_VERSIONS.includes(version)) {
        const refused = stepUp(deps.baseUrl(), auth.principal, calledTool(body));
        if (refused) return send(res, refused);
      }
      const server = await timed(deps.observePhase, 'build', () => buildServer(ctx, deps.thirdParty, deps.baseUrl()));
      // A batch (2025-03-26 and before) counts each message as a request under the same limits (issue 41 finding 4).
      const admit = async (messages: number): Promise<Admission> => {
        const more = await takeCost(deps.pool!, checks, messages - 1); // the POST itself was counted above
        const ip = ipCheck ? more[0] : undefined;
        const credential = more[ipCheck ? 1 : 0]!;
        const binding = ip && ip.admitted < credential.admitted ? ip : credential;
        return { admitted: 1 + binding.admitted, error: refusedMessage(binding === ip ? 'ip' : auth.principal.kind, binding) };
      };
      // A client gone before its answer: the batch's messages not yet running never run.
      const gone = new AbortController();
      res.once('close', () => res.writableFinished || gone.abort());
      send(res, await timed(deps.observePhase, 'handle', () => answerPost(server, body, { admit, signal: gone.signal })));
    } catch (error) {
      if (res.headersSent) return next(error);
      if (isDatabaseUnavailable(error)) {
        log()?.warn({ err: error }, 'MCP request refused: database unavailable');
        res.setHeader('retry-after', '1');
        return rpcError(res, 503, -32603, 'Service unavailable: the database cannot be reached right now; nothing was done. Retry in a moment.');
      }
      log()?.error({ err: error }, 'MCP request failed');
      rpcError(res, 500, -32603, 'Internal error: the request failed on our side; try again');
    }
  });
  return router;
}

/** The 429 body of spec 7.3 for the caller's kind of credential, and the sentence it says. */
function rateLimitedBody(kind: 'oauth' | 'api_key', decision: RateDecision): { body: Record<string, unknown>; message: string } {
  const hour = `at most ${decision.limit} MCP requests an hour`;
  if (kind === 'oauth') {
    const message = `Too many requests with this access token (${hour}). Retry in ${decision.retryAfterSeconds} seconds.`;
    return { message, body: { error: 'rate_limit_exceeded', error_description: message, retry_after: decision.retryAfterSeconds } };
  }
  const message = `Rate limit exceeded for this API key (${hour}). Retry in ${decision.retryAfterSeconds} seconds.`;
  return { message, body: { error: message, retryAfter: decision.retryAfterSeconds, remaining: decision.remaining } };
}

/** 429 in the shape of spec 7.3 for the caller's kind of credential, always with Retry-After. */
function rateLimited(res: Response, kind: 'oauth' | 'api_key', decision: RateDecision) {
  res.status(429).setHeader('retry-after', String(decision.retryAfterSeconds));
  res.json(rateLimitedBody(kind, decision).body);
}

/**
 * The JSON-RPC error of a batch's request past a limit: -32000 (implementation-defined server error;
 * batches exist only in the handshake era, whose refusals use it), the 429 body's sentence, and that
 * body (spec 7.3, of the credential's kind or of the per-IP limit) as `data`, so a client reads the
 * same fields (retryAfter, retry_after, retryAfterSeconds) it reads on a 429.
 */
function refusedMessage(kind: 'oauth' | 'api_key' | 'ip', decision: CostDecision): NonNullable<Admission['error']> {
  const perIp = kind === 'ip' ? perIpRateLimitedBody(decision) : undefined;
  const { body, message } = perIp ? { body: perIp, message: perIp.msg } : rateLimitedBody(kind as 'oauth' | 'api_key', decision);
  return { code: -32000, message: `Rate limit exceeded: this message of the batch was not run. ${message}`, data: body };
}

/** The id of a JSON-RPC request body, when it has a usable one. */
function requestId(body: unknown): string | number | undefined {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/** The tool a tools/call body names, when it is one of ours. */
function calledTool(body: unknown) {
  const { method, params } = (body ?? {}) as { method?: unknown; params?: { name?: unknown } };
  return method === 'tools/call' && typeof params?.name === 'string' ? registrations().get(params.name)?.tool : undefined;
}

/** An answer of the 2026-07-28 dispatcher or of answerPost, as JSON (written as is: no ETag hashed over a body no one caches). */
function send(res: Response, answer: Answer) {
  for (const [name, value] of Object.entries(answer.headers ?? {})) res.setHeader(name, value);
  res.status(answer.status);
  if (answer.body === undefined) return void res.end();
  res.setHeader('content-type', 'application/json');
  res.end(JSON.stringify(answer.body));
}

/** 401 without credentials (spec 5.1 rule 4), with the scope hint (challenges.ts). */
function challenge(res: Response, baseUrl: string) {
  res.status(401).setHeader('www-authenticate', challengeHeader(baseUrl));
  res.json({ error: 'Unauthorized', error_description: 'Send an OAuth access token (Authorization: Bearer) or an API key (x-api-key)' });
}

/** Background work through pg-boss, when the app was given a queue. */
function scheduleThrough(boss: Boss | undefined): ToolContext['schedule'] {
  if (!boss) return undefined;
  return async (queue, payload, options) => {
    await enqueue(boss, queue as QueueName, payload as never, options);
  };
}
