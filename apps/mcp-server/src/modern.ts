import { McpError, SUPPORTED_PROTOCOL_VERSIONS, type CallToolResult, type Implementation } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from './tool-kit';
import { getPrompt, listPrompts } from './prompts';
import { INSTRUCTIONS, SERVER_CAPABILITIES, SERVER_ICONS, SERVER_INFO, type ConnectionTools } from './server';

/**
 * MCP revision 2026-07-28 ("modern": no initialize, no sessions, every request carries its protocol
 * version and client capabilities in `_meta`), served beside the five handshake-based versions of
 * spec 9.1 (issue 25). The SDK we build on (1.32) stops at 2025-11-25, so this module answers the new
 * revision's requests itself, with the same tools, prompts, credentials, limits and charges; every rule
 * below is the revision's text (docs/specification/2026-07-28: basic/index, basic/versioning,
 * basic/transports/streamable-http, server/discover, server/tools, server/utilities/caching).
 */
export const MODERN_PROTOCOL_VERSION = '2026-07-28';

/** Every MCP-Protocol-Version this endpoint serves, newest first; anything else is 400. */
export const SERVED_PROTOCOL_VERSIONS: readonly string[] = [MODERN_PROTOCOL_VERSION, ...SUPPORTED_PROTOCOL_VERSIONS];

/** The codes 2026-07-28 defines (renumbered from the draft's -32001, -32003, -32004). */
export const MODERN_ERROR = { headerMismatch: -32020, missingRequiredClientCapability: -32021, unsupportedProtocolVersion: -32022 } as const;

export const META = {
  protocolVersion: 'io.modelcontextprotocol/protocolVersion',
  clientCapabilities: 'io.modelcontextprotocol/clientCapabilities',
  serverInfo: 'io.modelcontextprotocol/serverInfo',
} as const;

/**
 * Caching hints (ttlMs, cacheScope) the revision requires on server/discover, tools/list and
 * prompts/list. tools/list varies with the credential (the signal writers need mcp:write, some keys see
 * third-party tools): private. Discovery and the prompts are the same for every caller: public.
 */
export const CACHE_HINTS = {
  discover: { ttlMs: 3_600_000, cacheScope: 'public' },
  toolsList: { ttlMs: 300_000, cacheScope: 'private' },
  promptsList: { ttlMs: 3_600_000, cacheScope: 'public' },
} as const;

/** The methods of 2026-07-28 this server answers (no resources, no completion; ping and logging/setLevel are gone). */
export const MODERN_METHODS = ['server/discover', 'tools/list', 'tools/call', 'prompts/list', 'prompts/get'] as const;

/** Methods whose `Mcp-Name` header mirrors a body field. */
const NAME_SOURCE: Record<string, 'name' | 'uri'> = { 'tools/call': 'name', 'prompts/get': 'name', 'resources/read': 'uri' };

/** What to send: a status, an optional JSON body and headers. */
export interface Answer {
  status: number;
  body?: unknown;
  headers?: Record<string, string>;
}

type Id = string | number;

const INITIALIZE_MESSAGE =
  `Method not found: initialize is not part of MCP ${MODERN_PROTOCOL_VERSION} (every request carries its version in _meta). ` +
  `This server also speaks ${SUPPORTED_PROTOCOL_VERSIONS.join(', ')} with initialize: send one of those as MCP-Protocol-Version, or none`;

const errorAnswer = (status: number, id: Id | undefined, code: number, message: string, data?: unknown): Answer => ({
  status,
  body: { jsonrpc: '2.0', ...(id === undefined ? {} : { id }), error: { code, message, ...(data === undefined ? {} : { data }) } },
});

/** 400 UnsupportedProtocolVersionError (-32022) listing what is served: for any MCP-Protocol-Version we do not serve. */
export function unsupportedProtocolVersion(requested: string, id?: Id): Answer {
  return errorAnswer(
    400, id, MODERN_ERROR.unsupportedProtocolVersion,
    `Unsupported protocol version: MCP-Protocol-Version ${JSON.stringify(requested)} is not served (supported: ${SERVED_PROTOCOL_VERSIONS.join(', ')})`,
    { supported: [...SERVED_PROTOCOL_VERSIONS], requested },
  );
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** The protocol version a body claims in its `_meta` (2026-07-28 requests carry it), if any. */
export function claimedProtocolVersion(body: unknown): string | undefined {
  if (!isObject(body) || !isObject(body.params) || !isObject(body.params._meta)) return undefined;
  const v = body.params._meta[META.protocolVersion];
  return typeof v === 'string' ? v : undefined;
}

/**
 * A body that claims a version in `_meta` while MCP-Protocol-Version is absent or another version: the
 * header must match the body (400 HeaderMismatch). Undefined when the request is not of that kind.
 */
export function envelopeWithoutHeader(body: unknown, header: string | undefined): Answer | undefined {
  const claimed = claimedProtocolVersion(body);
  if (claimed === undefined || claimed === header) return undefined;
  const id = isObject(body) && (typeof body.id === 'string' || typeof body.id === 'number') ? body.id : undefined;
  return errorAnswer(400, id, MODERN_ERROR.headerMismatch, header === undefined
    ? `Header mismatch: the request's _meta names protocol version ${JSON.stringify(claimed)} but the MCP-Protocol-Version header is missing`
    : `Header mismatch: MCP-Protocol-Version header value ${JSON.stringify(header)} does not match the _meta protocol version ${JSON.stringify(claimed)}`);
}

/** An `Mcp-Name` value as sent: plain ASCII, or the `=?base64?…?=` sentinel form (decoded); undefined when malformed. */
export function decodeHeaderValue(value: string): string | undefined {
  const sentinel = /^=\?base64\?(.*)\?=$/.exec(value);
  if (!sentinel) return value;
  const b64 = sentinel[1]!;
  if (!/^[A-Za-z0-9+/]*={0,2}$/.test(b64) || b64.length % 4 !== 0) return undefined;
  return Buffer.from(b64, 'base64').toString('utf8');
}

export interface ModernContext {
  /** The caller's tools (built only for the tool methods). */
  tools: () => Promise<ConnectionTools>;
  implementation: Implementation;
  /** The 403 insufficient_scope step-up when an OAuth caller lacks the scope `tool` needs (challenges.ts), else undefined. */
  stepUp: (tool: ToolDefinition) => Answer | undefined;
}

/**
 * One 2026-07-28 request, already authenticated, rate-limited, and checked for Accept, Content-Type and
 * a served MCP-Protocol-Version. In the order of the revision's validation: JSON-RPC shape (400 -32600),
 * the `_meta` envelope (400 -32020 when it disagrees with the header, 400 -32602 when a required field
 * is missing), the standard headers Mcp-Method and Mcp-Name (400 -32020), the method (404 -32601), then
 * the method's own params (in-band -32602) and the result with `resultType` and the server's identity.
 */
export async function answerModern(header: (name: string) => string | undefined, body: unknown, ctx: ModernContext): Promise<Answer> {
  const version = header('mcp-protocol-version')!;
  if (Array.isArray(body)) return errorAnswer(400, undefined, -32600, 'Invalid Request: a POST carries one JSON-RPC message; batches are not part of MCP 2026-07-28');
  if (!isObject(body) || body.jsonrpc !== '2.0') return errorAnswer(400, undefined, -32600, 'Invalid Request: the body must be a JSON-RPC 2.0 request ("jsonrpc": "2.0")');
  if (typeof body.method !== 'string') {
    return errorAnswer(400, undefined, -32600, 'method' in body ? 'Invalid Request: method must be a string' : 'Invalid Request: clients send requests, never JSON-RPC responses');
  }
  const method = body.method;
  if (!('id' in body)) return { status: 202 }; // a notification: nothing in 2026-07-28 needs one; accepted and ignored
  if (typeof body.id !== 'string' && typeof body.id !== 'number') return errorAnswer(400, undefined, -32600, 'Invalid Request: id must be a string or an integer, never null');
  const id = body.id;
  // A handshake-era client that sent this version: name the versions it can use (basic/versioning).
  if (method === 'initialize') return errorAnswer(404, id, -32601, INITIALIZE_MESSAGE);
  if (body.params !== undefined && !isObject(body.params)) return errorAnswer(400, id, -32602, 'Invalid params: params must be an object');
  const params = (body.params ?? {}) as Record<string, unknown>;
  const meta = params._meta;
  const claimed = isObject(meta) ? meta[META.protocolVersion] : undefined;
  if (claimed === undefined) {
    return errorAnswer(400, id, -32602, `Invalid params: _meta["${META.protocolVersion}"] is required on every 2026-07-28 request`);
  }
  if (claimed !== version) {
    return errorAnswer(400, id, MODERN_ERROR.headerMismatch, `Header mismatch: MCP-Protocol-Version header value ${JSON.stringify(version)} does not match the _meta protocol version ${JSON.stringify(claimed)}`);
  }
  if (!isObject((meta as Record<string, unknown>)[META.clientCapabilities])) {
    return errorAnswer(400, id, -32602, `Invalid params: _meta["${META.clientCapabilities}"] (an object, {} when none) is required on every 2026-07-28 request`);
  }
  const methodHeader = header('mcp-method');
  if (methodHeader === undefined) return errorAnswer(400, id, MODERN_ERROR.headerMismatch, 'Header mismatch: the Mcp-Method header is required');
  if (methodHeader !== method) {
    return errorAnswer(400, id, MODERN_ERROR.headerMismatch, `Header mismatch: Mcp-Method header value ${JSON.stringify(methodHeader)} does not match body value ${JSON.stringify(method)}`);
  }
  const nameField = NAME_SOURCE[method];
  if (nameField) {
    const raw = header('mcp-name');
    if (raw === undefined) return errorAnswer(400, id, MODERN_ERROR.headerMismatch, `Header mismatch: the Mcp-Name header is required for ${method}`);
    const decoded = decodeHeaderValue(raw);
    if (decoded === undefined) return errorAnswer(400, id, MODERN_ERROR.headerMismatch, 'Header mismatch: the Mcp-Name header is not valid =?base64?…?= encoding');
    if (decoded !== params[nameField]) {
      return errorAnswer(400, id, MODERN_ERROR.headerMismatch, `Header mismatch: Mcp-Name header value ${JSON.stringify(decoded)} does not match body value ${JSON.stringify(params[nameField] ?? null)}`);
    }
  }
  const result = (value: Record<string, unknown>): Answer => ({
    status: 200,
    body: {
      jsonrpc: '2.0', id,
      result: { ...value, resultType: 'complete', _meta: { ...(isObject(value._meta) ? value._meta : {}), [META.serverInfo]: { name: SERVER_INFO.name, version: SERVER_INFO.version } } },
    },
  });
  switch (method) {
    case 'server/discover':
      return {
        status: 200,
        body: {
          jsonrpc: '2.0', id,
          result: {
            resultType: 'complete', supportedVersions: [...SERVED_PROTOCOL_VERSIONS], capabilities: SERVER_CAPABILITIES, instructions: INSTRUCTIONS,
            _meta: { [META.serverInfo]: ctx.implementation }, ...CACHE_HINTS.discover,
          },
        },
      };
    case 'tools/list':
      return result({ tools: (await ctx.tools()).list(), ...CACHE_HINTS.toolsList });
    case 'prompts/list':
      return result({ prompts: listPrompts(SERVER_ICONS), ...CACHE_HINTS.promptsList });
    case 'prompts/get':
      if (params.arguments !== undefined && !isObject(params.arguments)) return errorAnswer(200, id, -32602, 'Invalid params: arguments must be an object');
      try {
        return result({ ...getPrompt(params.name, params.arguments as Record<string, unknown> | undefined) });
      } catch (error) {
        if (error instanceof McpError) return errorAnswer(200, id, error.code, error.message);
        throw error;
      }
    case 'tools/call': {
      if (params.arguments !== undefined && !isObject(params.arguments)) return errorAnswer(200, id, -32602, 'Invalid params: arguments must be an object');
      const name = params.name as string; // Mcp-Name matched it, so it is a string
      const tools = await ctx.tools();
      const tool = tools.find(name);
      // 2026-07-28 server/tools: an unknown tool is a protocol error (-32602), not a tool result.
      if (!tool) return errorAnswer(200, id, -32602, tools.unknown(name));
      const stepUp = ctx.stepUp(tool);
      if (stepUp) return stepUp;
      const value: CallToolResult = (await tools.call(name, params.arguments as Record<string, unknown> | undefined))!;
      return result(value as Record<string, unknown>);
    }
    default:
      return errorAnswer(404, id, -32601, `Method not found: ${method} (this server answers ${MODERN_METHODS.join(', ')} in MCP ${MODERN_PROTOCOL_VERSION})`);
  }
}
