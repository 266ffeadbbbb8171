import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import {
  isInitializeRequest, isJSONRPCErrorResponse, isJSONRPCNotification, isJSONRPCRequest, isJSONRPCResultResponse, JSONRPCMessageSchema,
  type JSONRPCErrorResponse, type JSONRPCMessage, type RequestId,
} from '@modelcontextprotocol/sdk/types.js';
import type { Answer } from './modern';

/** The SDK's limit on a batch (its requestBody.js MAX_BATCH_SIZE). */
export const SDK_MAX_BATCH_SIZE = 100;

/**
 * The most messages one JSON-RPC batch may hold here (issue 41 finding 4). Each message counts as a
 * request against the limits, so the bound is not about the limits: it is how long one POST may hold
 * its socket and its body's reservation (20 tool calls, 4 at a time, as Microsoft Graph's JSON batches).
 */
export const MCP_MAX_BATCH_MESSAGES = 20;

/** How many requests of one batch run at once; the others wait for a slot (a batch is as demanding as 4 clients, not 20). */
export const MCP_BATCH_IN_FLIGHT = 4;

/** The last protocol version with JSON-RPC batches: MCP 2025-06-18 removed them ("Remove support for JSON-RPC batching"). */
export const LAST_BATCHING_VERSION = '2025-03-26';

/**
 * Whether a POST under `version` may carry a batch: 2025-03-26 and the versions before it. No
 * MCP-Protocol-Version header counts as 2025-03-26 (the transport spec: a server without the header
 * SHOULD assume 2025-03-26). Versions are dates, compared as strings; only served ones reach here.
 */
export function batchesAllowed(version: string | undefined): boolean {
  return version === undefined || version <= LAST_BATCHING_VERSION;
}

/** 400 -32600 for a batch under a version without batches, in the SDK transport's shape for an invalid request (`id: null`); nothing is run. */
export function batchNotSupported(version: string): Answer {
  return refusal(400, -32600,
    `Invalid Request: batches are not supported in protocol version ${version} (JSON-RPC batching was removed from MCP in 2025-06-18). ` +
    `Nothing was run: send each message in its own POST, or use protocol version ${LAST_BATCHING_VERSION} or earlier to batch.`);
}

/** How many messages of a batch may run, counted in their order; the rest are answered with `error`. */
export interface Admission {
  admitted: number;
  /** The JSON-RPC error of each request past `admitted` (the rate-limit error of the caller's kind). */
  error?: JSONRPCErrorResponse['error'];
}

export interface PostOptions {
  /** Most messages in a batch (400 -32600 past it). MCP_MAX_BATCH_MESSAGES unless given. */
  maxBatch?: number;
  /** Requests of a batch running at once. MCP_BATCH_IN_FLIGHT unless given. */
  inFlight?: number;
  /** Counts a valid batch's messages against the limits, before anything runs (every message counts, notifications too). */
  admit?: (messages: number) => Promise<Admission>;
  /** Aborted when the client is gone: messages not yet handed to the server are never run. */
  signal?: AbortSignal;
}

const isCancellation = (m: JSONRPCMessage): m is JSONRPCMessage & { method: 'notifications/cancelled'; params?: { requestId?: RequestId } } =>
  isJSONRPCNotification(m) && m.method === 'notifications/cancelled';

/**
 * One POST of the handshake-era revisions (2024-11-05 … 2025-11-25), answered by `server` as the SDK's
 * StreamableHTTPServerTransport answers it in stateless JSON mode (`sessionIdGenerator: undefined,
 * enableJsonResponse: true`), from the checks after the body is read on: each message a JSON-RPC
 * message (400 -32700), one initialize alone (400 -32600), 202 without a body when nothing asks for an
 * answer, else the answers as JSON (one object, or an array for a batch). The SDK's transport turns the
 * Node request into a web Request and its Response back (@hono/node-server) on every call; this hands
 * the parsed body to the server directly. Accept, Content-Type, the body's size and JSON, the protocol
 * version and whether it allows a batch are checked before (app.ts), in the SDK's order.
 *
 * Where a batch differs from the SDK's transport (issue 41 finding 4):
 * - at most `maxBatch` messages (400 -32600), and request ids unique within it (400 -32600);
 * - `admit` counts every message against the limits; requests past what it admits are answered with
 *   its error and not run, and notifications past it are dropped;
 * - at most `inFlight` requests run at once;
 * - a `notifications/cancelled` for a request of the same batch cancels it before it runs: it is not
 *   run, not charged and not answered (the receiver SHOULD NOT answer a cancelled request); the POST is
 *   answered with the other answers, or 202 when none is left. The SDK's transport waits for an answer
 *   its server never sends, holding the connection for ever. Cancellations never reach the server: in
 *   a stateless POST they can name no other request of it.
 */
export async function answerPost(server: Server, body: unknown, options: PostOptions = {}): Promise<Answer> {
  const maxBatch = options.maxBatch ?? MCP_MAX_BATCH_MESSAGES;
  if (Array.isArray(body) && body.length > maxBatch) {
    return refusal(400, -32600, `Invalid Request: Batch must not exceed ${maxBatch} messages (this one has ${body.length}); nothing was run. Send the messages in smaller batches or one per POST.`);
  }
  let messages: JSONRPCMessage[];
  try {
    messages = (Array.isArray(body) ? body : [body]).map((m) => JSONRPCMessageSchema.parse(m));
  } catch {
    return refusal(400, -32700, 'Parse error: Invalid JSON-RPC message');
  }
  if (messages.some(isInitializeRequest) && messages.length > 1) return refusal(400, -32600, 'Invalid Request: Only one initialization request is allowed');
  const requests = messages.filter(isJSONRPCRequest);
  const ids = new Set<RequestId>();
  for (const { id } of requests) {
    if (ids.has(id)) return refusal(400, -32600, `Invalid Request: the id ${JSON.stringify(id)} is used by more than one request of this batch; nothing was run`);
    ids.add(id);
  }
  const admission: Admission = options.admit && messages.length > 1 ? await options.admit(messages.length) : { admitted: messages.length };
  const admitted = messages.slice(0, admission.admitted);
  const cancelled = new Set(admitted.filter(isCancellation).map((m) => m.params?.requestId).filter((id): id is RequestId => id !== undefined && ids.has(id)));
  const transport = new OnePostTransport();
  // The server is built for this POST and dropped with it, not closed: closing aborts the handlers'
  // AbortControllers (not yet released when the answer arrives) and builds a "Connection closed" error
  // with its stack for no one, a twentieth of the process's time in bench:mcp.
  await server.connect(transport);
  const answers = new Map<RequestId, JSONRPCMessage>();
  for (const [i, message] of messages.entries()) {
    if (i >= admission.admitted && isJSONRPCRequest(message) && !cancelled.has(message.id)) {
      answers.set(message.id, { jsonrpc: '2.0', id: message.id, error: admission.error ?? { code: -32000, message: 'Request refused: past the limits' } });
    }
  }
  const slots = new Slots(options.inFlight ?? MCP_BATCH_IN_FLIGHT, options.signal);
  const running: Promise<void>[] = [];
  for (const message of admitted) {
    if (isCancellation(message)) continue;
    if (isJSONRPCRequest(message)) {
      if (cancelled.has(message.id)) continue;
      if (!(await slots.take())) break; // the client is gone: run nothing more
      running.push(transport.answerTo(message.id).then((answer) => {
        answers.set(message.id, answer);
        slots.give();
      }));
    } else if (options.signal?.aborted) break;
    transport.onmessage?.(message);
  }
  await Promise.race([Promise.all(running), slots.gone]);
  const ordered = requests.flatMap((r) => answers.get(r.id) ?? []);
  if (ordered.length === 0) return { status: 202 };
  return { status: 200, body: Array.isArray(body) ? ordered : ordered[0] };
}

function refusal(status: number, code: number, message: string): Answer {
  return { status, body: { jsonrpc: '2.0', error: { code, message }, id: null } };
}

/** Up to `n` requests at once; when `signal` aborts, waiting takes are refused and `gone` resolves. */
class Slots {
  private readonly waiting: ((ok: boolean) => void)[] = [];
  readonly gone: Promise<void>;

  constructor(private free: number, private readonly signal?: AbortSignal) {
    this.gone = new Promise((resolve) => {
      if (!signal) return;
      const abort = () => {
        for (const w of this.waiting.splice(0)) w(false);
        resolve();
      };
      if (signal.aborted) abort();
      else signal.addEventListener('abort', abort, { once: true });
    });
  }

  take(): Promise<boolean> {
    if (this.signal?.aborted) return Promise.resolve(false);
    if (this.free > 0) {
      this.free--;
      return Promise.resolve(true);
    }
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  give() {
    const next = this.waiting.shift();
    if (next) next(true);
    else this.free++;
  }
}

/** Carries one POST's messages to the server and hands each request's answer to whoever waits for it. */
class OnePostTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  private readonly waiting = new Map<RequestId, (answer: JSONRPCMessage) => void>();

  async start() {}

  /** The answer to the request `id`, once the server sends it (ask before handing the request over). */
  answerTo(id: RequestId): Promise<JSONRPCMessage> {
    return new Promise((resolve) => this.waiting.set(id, resolve));
  }

  /** Answers are kept; what the server sends besides them (progress, logging) has no stream to go to in JSON mode, as in the SDK's transport. */
  async send(message: JSONRPCMessage) {
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return;
    if (message.id === undefined) return; // an error about no request in particular: nothing waits for it
    const waiter = this.waiting.get(message.id);
    this.waiting.delete(message.id);
    waiter?.(message);
  }

  async close() {
    this.onclose?.();
  }
}
