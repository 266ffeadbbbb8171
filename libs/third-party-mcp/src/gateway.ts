/**
 * # Third-party MCP gateway
 *
 * A workspace connects other MCP servers (see registry.ts); this offers their tools as if they
 * were ours, and forwards calls to them.
 *
 * **Namespacing.** A server's tools are offered as `<slug>__<tool>`, the slug coming from the
 * server's name (`Linear (prod)` → `linear_prod`, unique in the workspace). A slug never holds
 * `__`, so the first `__` splits a name back into server and tool. A tool whose namespaced name
 * would not match `^[A-Za-z0-9_-]{1,64}$` (what MCP clients accept) is left out. Descriptions
 * start with `[<server name>] ` so a person can tell where a tool comes from.
 *
 * **Time limit.** Every exchange with a server — connect, initialize, list or call — goes through
 * the SSRF-safe fetcher (addresses checked, no redirects, `maxResponseBytes`) and ends within
 * `timeoutMs` (15 s by default): an AbortSignal plus the SDK's request timeout, and a race so
 * that nothing waits longer. Listing skips a server that fails or is slow (and logs it); a call
 * rejects with a ThirdPartyError naming the server and saying what happened. Tool lists are
 * cached per server for `listCacheMs`; a call never uses the cache, only the server list.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport, StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, ErrorCode, McpError, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';
import {
  FetchError, FetchNetworkError, FetchRefusedError, FetchTimeoutError, FetchTooLargeError, findCause, safeFetchAsFetch, type SafeFetch,
} from '@loupe/safe-fetch';
import type pg from 'pg';
import { ThirdPartyError } from './errors';
import { decryptHeaderValue, headerKey } from './header-secret';
import { storedServers, type StoredServer } from './registry';

export interface ProxiedTool {
  /** `<slug>__<original name>` */
  name: string;
  server: { id: string; name: string; slug: string };
  originalName: string;
  title?: string;
  /** The server's description, prefixed with `[<server name>] `. */
  description: string;
  /** The JSON Schema the server gave. */
  inputSchema: Record<string, unknown>;
  annotations?: Record<string, unknown>;
}

export interface GatewayLog {
  warn(details: Record<string, unknown>, message: string): void;
}

export interface ThirdPartyGatewayDeps {
  pool: pg.Pool;
  safeFetch: SafeFetch;
  timeoutMs?: number;
  listCacheMs?: number;
  maxResponseBytes?: number;
  clock?: { now(): number };
  log?: GatewayLog;
}

export interface ThirdPartyGateway {
  /** The tools of every server of the workspace that answers; never throws for a server's failure. */
  listTools(workspaceId: string): Promise<ProxiedTool[]>;
  /** Calls `<slug>__<tool>` on its server and returns the server's result as it is. */
  callTool(workspaceId: string, name: string, args: Record<string, unknown> | undefined, signal?: AbortSignal): Promise<CallToolResult>;
}

export const NAMESPACE_SEPARATOR = '__';
const TOOL_NAME = /^[A-Za-z0-9_-]{1,64}$/;
const MAX_LIST_PAGES = 20;

type ServerRef = { id: string; name: string; slug: string };

/** Why the gateway's own controller aborted. */
class Deadline extends Error {}
class Cancelled extends Error {}

function seconds(ms: number): string {
  const s = ms / 1000;
  return Number.isInteger(s) ? String(s) : s.toFixed(1);
}

/** What went wrong, as a ThirdPartyError a person can read. */
function describe(server: ServerRef, error: unknown, why: unknown, timeoutMs: number, maxBytes: number): ThirdPartyError {
  const ref = { id: server.id, name: server.name, slug: server.slug };
  const make = (message: string, reason: ThirdPartyError['reason']) => new ThirdPartyError(message, reason, ref, { cause: error });
  if (error instanceof ThirdPartyError) return error;
  if (why instanceof Deadline || findCause(error, FetchTimeoutError) || (error instanceof McpError && error.code === ErrorCode.RequestTimeout)) {
    return make(`${server.name} did not answer within ${seconds(timeoutMs)} s`, 'timeout');
  }
  if (why instanceof Cancelled) return make(`the call to ${server.name} was cancelled`, 'cancelled');
  const refused = findCause(error, FetchRefusedError);
  if (refused) return make(`${server.name} was refused: ${refused.message} (only public addresses are reached)`, 'refused');
  if (findCause(error, FetchTooLargeError)) {
    return make(`${server.name} sent an answer larger than ${Math.round(maxBytes / 1024 / 1024)} MB`, 'too_large');
  }
  const network = findCause(error, FetchNetworkError);
  if (network) return make(`${server.name} could not be reached (${network.systemCode ?? network.message})`, 'unreachable');
  const fetchError = findCause(error, FetchError);
  if (fetchError) return make(`${server.name} could not be reached: ${fetchError.message}`, 'unreachable');
  const http = findCause(error, StreamableHTTPError);
  if (http) {
    if (http.code === -1) {
      const type = /Unexpected content type: (.*)$/.exec(http.message)?.[1] ?? 'unknown';
      return make(`${server.name} did not answer as an MCP server (it sent ${type})`, 'not_mcp');
    }
    if (http.code === 401 || http.code === 403) {
      return make(`${server.name} refused the credentials (HTTP ${http.code}); check the server's auth header`, 'http_status');
    }
    return make(`${server.name} answered HTTP ${http.code}`, 'http_status');
  }
  if (error instanceof McpError) {
    const detail = error.message.replace(/^MCP error -?\d+: /, '');
    return make(`${server.name} returned an error: ${detail}`, 'tool_error');
  }
  if (error instanceof SyntaxError || (error as Error | undefined)?.name === 'ZodError' || (error as Error | undefined)?.name === '$ZodError') {
    return make(`${server.name} did not answer as an MCP server (its answer is not valid MCP JSON-RPC)`, 'not_mcp');
  }
  return make(`${server.name} failed: ${error instanceof Error ? error.message : String(error)}`, 'failed');
}

export function createThirdPartyGateway(deps: ThirdPartyGatewayDeps): ThirdPartyGateway {
  const { pool, safeFetch, log } = deps;
  const timeoutMs = deps.timeoutMs ?? 15_000;
  const listCacheMs = deps.listCacheMs ?? 60_000;
  const maxResponseBytes = deps.maxResponseBytes ?? 10 * 1024 * 1024;
  const clock = deps.clock ?? { now: () => Date.now() };
  const fetch = safeFetchAsFetch(safeFetch, { maxBytes: maxResponseBytes, timeoutMs });
  const cache = new Map<string, { at: number; tools: ProxiedTool[] }>();
  let key: Promise<Buffer> | undefined;

  async function headersFor(server: StoredServer): Promise<Record<string, string>> {
    if (!server.authHeaderName || !server.authHeaderValue) return {};
    key ??= headerKey(pool).catch((error: unknown) => {
      key = undefined;
      throw error;
    });
    return { [server.authHeaderName]: decryptHeaderValue(await key, server.authHeaderValue) };
  }

  /** Connects to `server`, runs `work`, closes; all within timeoutMs, as a ThirdPartyError on failure. */
  async function session<T>(
    server: StoredServer, signal: AbortSignal | undefined, work: (client: Client, options: { signal: AbortSignal; timeout: number }) => Promise<T>,
  ): Promise<T> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new Deadline()), timeoutMs);
    const onCancel = () => controller.abort(new Cancelled());
    if (signal?.aborted) onCancel();
    else signal?.addEventListener('abort', onCancel, { once: true });
    const stopped = new Promise<never>((_, reject) => {
      const fail = () => reject(controller.signal.reason);
      if (controller.signal.aborted) fail();
      else controller.signal.addEventListener('abort', fail, { once: true });
    });
    const client = new Client({ name: 'loupe-gateway', version: '1.0.0' });
    client.onerror = () => {}; // failures reach us through the request they belong to
    const run = async (): Promise<T> => {
      const headers = await headersFor(server);
      controller.signal.throwIfAborted(); // the race has settled; do not connect after it
      const transport = new StreamableHTTPClientTransport(new URL(server.url), { fetch, requestInit: { headers } });
      const options = { signal: controller.signal, timeout: timeoutMs };
      await client.connect(transport, options);
      return work(client, options);
    };
    try {
      return await Promise.race([run(), stopped]);
    } catch (error) {
      throw describe(server, error, controller.signal.aborted ? controller.signal.reason : undefined, timeoutMs, maxResponseBytes);
    } finally {
      clearTimeout(timer);
      signal?.removeEventListener('abort', onCancel);
      // Ends the transport's own fetches too (it aborts them on close).
      void client.close().catch(() => {});
    }
  }

  function proxied(server: StoredServer, tool: Tool): ProxiedTool | undefined {
    const name = `${server.slug}${NAMESPACE_SEPARATOR}${tool.name}`;
    if (!TOOL_NAME.test(name)) return undefined;
    return {
      name,
      server: { id: server.id, name: server.name, slug: server.slug },
      originalName: tool.name,
      ...(tool.title !== undefined ? { title: tool.title } : {}),
      description: `[${server.name}] ${tool.description ?? ''}`.trimEnd(),
      inputSchema: tool.inputSchema as Record<string, unknown>,
      ...(tool.annotations !== undefined ? { annotations: tool.annotations as Record<string, unknown> } : {}),
    };
  }

  async function toolsOf(server: StoredServer): Promise<ProxiedTool[]> {
    const cached = cache.get(server.id);
    if (cached && clock.now() - cached.at < listCacheMs) return cached.tools;
    const tools = await session(server, undefined, async (client, options) => {
      const all: Tool[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_LIST_PAGES; page++) {
        const result = await client.listTools(cursor === undefined ? {} : { cursor }, options);
        all.push(...result.tools);
        cursor = result.nextCursor;
        if (!cursor) break;
      }
      return all;
    });
    const offered: ProxiedTool[] = [];
    for (const tool of tools) {
      const p = proxied(server, tool);
      if (p) offered.push(p);
      else log?.warn({ server: server.id, tool: tool.name }, 'third-party tool left out: its namespaced name is not a valid tool name');
    }
    cache.set(server.id, { at: clock.now(), tools: offered });
    return offered;
  }

  async function listTools(workspaceId: string): Promise<ProxiedTool[]> {
    const servers = await storedServers(pool, workspaceId);
    const lists = await Promise.all(
      servers.map((server) =>
        toolsOf(server).catch((error: unknown) => {
          log?.warn({ server: server.id, workspaceId, err: error }, `third-party server skipped: ${(error as Error).message}`);
          return [];
        }),
      ),
    );
    return lists.flat();
  }

  async function callTool(
    workspaceId: string, name: string, args: Record<string, unknown> | undefined, signal?: AbortSignal,
  ): Promise<CallToolResult> {
    const split = name.indexOf(NAMESPACE_SEPARATOR);
    const slug = split > 0 ? name.slice(0, split) : '';
    const originalName = split > 0 ? name.slice(split + NAMESPACE_SEPARATOR.length) : '';
    const [server] = slug && originalName ? await storedServers(pool, workspaceId, slug) : [];
    if (!server) throw new ThirdPartyError(`Unknown third-party tool ${JSON.stringify(name)}: no connected server offers it`, 'unknown_tool');
    return session(server, signal, (client, options) =>
      client.request({ method: 'tools/call', params: { name: originalName, arguments: args ?? {} } }, CallToolResultSchema, options),
    );
  }

  return { listTools, callTool };
}
