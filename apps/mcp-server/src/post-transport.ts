import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { isInitializeRequest, isJSONRPCErrorResponse, isJSONRPCRequest, isJSONRPCResultResponse, JSONRPCMessageSchema, type JSONRPCMessage, type RequestId } from '@modelcontextprotocol/sdk/types.js';
import type { Answer } from './modern';

/** The SDK's limit on a batch (its requestBody.js MAX_BATCH_SIZE). */
const MAX_BATCH_SIZE = 100;

/**
 * One POST of the handshake-era revisions (2024-11-05 … 2025-11-25), answered by `server` as the SDK's
 * StreamableHTTPServerTransport answers it in stateless JSON mode (`sessionIdGenerator: undefined,
 * enableJsonResponse: true`), from the checks after the body is read on: a batch of at most 100, each
 * message a JSON-RPC message (400 -32700), one initialize alone (400 -32600), 202 without a body when
 * nothing asks for an answer, else the answers as JSON (one object, or an array for a batch). The SDK's
 * transport turns the Node request into a web Request and its Response back (@hono/node-server) on
 * every call; this hands the parsed body to the server directly. Accept, Content-Type, the body's size
 * and JSON, and the protocol version are checked before (app.ts), in the SDK's order.
 */
export async function answerPost(server: Server, body: unknown): Promise<Answer> {
  if (Array.isArray(body) && body.length > MAX_BATCH_SIZE) return refusal(400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
  let messages: JSONRPCMessage[];
  try {
    messages = (Array.isArray(body) ? body : [body]).map((m) => JSONRPCMessageSchema.parse(m));
  } catch {
    return refusal(400, -32700, 'Parse error: Invalid JSON-RPC message');
  }
  if (messages.some(isInitializeRequest) && messages.length > 1) return refusal(400, -32600, 'Invalid Request: Only one initialization request is allowed');
  const transport = new OnePostTransport(messages.filter(isJSONRPCRequest).map((m) => m.id));
  // The server is built for this POST and dropped with it, not closed: closing aborts the handlers'
  // AbortControllers (not yet released when the answer arrives) and builds a "Connection closed" error
  // with its stack for no one, a twentieth of the process's time in bench:mcp.
  await server.connect(transport);
  for (const message of messages) transport.onmessage?.(message);
  const answers = await transport.answers;
  if (answers.length === 0) return { status: 202 };
  return { status: 200, body: Array.isArray(body) ? answers : answers[0] };
}

function refusal(status: number, code: number, message: string): Answer {
  return { status, body: { jsonrpc: '2.0', error: { code, message }, id: null } };
}

/** Carries one POST's messages to the server and collects its answers to the requests among them, in their order. */
class OnePostTransport implements Transport {
  onmessage?: Transport['onmessage'];
  onclose?: () => void;
  onerror?: (error: Error) => void;
  readonly answers: Promise<JSONRPCMessage[]>;
  private readonly answered = new Map<RequestId, JSONRPCMessage>();
  private resolve!: (answers: JSONRPCMessage[]) => void;

  constructor(private readonly requests: RequestId[]) {
    this.answers = new Promise((resolve) => (this.resolve = resolve));
    if (requests.length === 0) this.resolve([]);
  }

  async start() {}

  /** Answers are kept; what the server sends besides them (progress, logging) has no stream to go to in JSON mode, as in the SDK's transport. */
  async send(message: JSONRPCMessage) {
    if (!isJSONRPCResultResponse(message) && !isJSONRPCErrorResponse(message)) return;
    if (message.id === undefined) return; // an error about no request in particular: nothing waits for it
    this.answered.set(message.id, message);
    if (this.requests.every((id) => this.answered.has(id))) this.resolve(this.requests.map((id) => this.answered.get(id)!));
  }

  async close() {
    this.onclose?.();
  }
}
