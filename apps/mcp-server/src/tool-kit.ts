import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type pg from 'pg';
import type { z } from 'zod';
import type { ChargeBatcher, WorkspaceStanding } from '@loupe/credits';
import type { Db } from '@loupe/db';
import type { Clock, Logger } from '@loupe/http';
import type { Principal } from './principal';
import { compact } from './render';

/** Everything a tool handler may use: the caller and the service's parts. */
export interface ToolContext {
  principal: Principal;
  pool: pg.Pool;
  db: Db;
  clock: Clock;
  log: Logger;
  /**
   * Schedules background work (e.g. recomputing opportunities); absent in tests that do not need it.
   * Inside a tool call the job commits with the call's writes (`client`).
   */
  schedule?: (queue: string, payload: Record<string, unknown>, options?: { singletonKey?: string; client?: pg.PoolClient }) => Promise<void>;
  /** Runs `fn` with the service's pool once the call's writes and charge have committed (to wait for the worker, say). */
  afterCommit?: (fn: (pool: pg.Pool) => Promise<void>) => void;
  /** Extra services a tool needs (add_source's fetcher, …). */
  services: Record<string, unknown>;
  /** Where the time of a request goes (metrics); absent in tests that do not look. */
  observePhase?: ObservePhase;
  /** Charges of read-only tool calls, batched per workspace; absent, they are charged in the call's own transaction. */
  charges?: ChargeBatcher;
  /**
   * The workspace's standing as this request's credential statement read it (app.ts): a tool call
   * uses it instead of reading it again. Absent (tests, scripts), callTool reads it.
   */
  standing?: WorkspaceStanding;
}

/**
 * The phases of an MCP request: `auth` (the credential, its workspace's standing and the rate limits,
 * one statement; `limits` is no longer observed apart), `build` (server and transport), `handle` (the SDK
 * answering, tool calls included); within a tools/call: `standing` (only when not read with the
 * credential), `tool`, `charge`, `commit`.
 */
export type McpPhase = 'auth' | 'build' | 'handle' | 'standing' | 'tool' | 'charge' | 'commit';
export type ObservePhase = (phase: McpPhase, seconds: number) => void;

/** Runs `fn`, telling `observe` how long it took. */
export async function timed<T>(observe: ObservePhase | undefined, phase: McpPhase, fn: () => Promise<T>): Promise<T> {
  if (!observe) return fn();
  const started = performance.now();
  try {
    return await fn();
  } finally {
    observe(phase, (performance.now() - started) / 1000);
  }
}

/**
 * A problem with one tool call the model can fix (spec 7.4): it becomes an `isError` result whose text
 * starts with the spec's wording and then says what to do next.
 */
export class ToolError extends Error {
  override name = 'ToolError';
}

export type Access = 'read' | 'write';

export interface ToolDefinition<In extends z.ZodRawShape = z.ZodRawShape, Out extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  description: string;
  /** The arguments: a strict object (an unknown argument is refused, naming the ones that exist). */
  inputSchema: In;
  /**
   * The shape of `structuredContent` (nulls left out). Checked by the tests on every call; not published
   * in tools/list, whose size every client pays on every conversation (issue 24 item 3).
   */
  outputSchema: Out;
  annotations: ToolAnnotations;
  /** Left out of tools/list (a removed tool that still answers when called). */
  hidden?: boolean;
  /** The markdown a text-only client shows the model; compact JSON of the result when absent. */
  render?(value: z.infer<z.ZodObject<Out>>): string;
  /** `write` tools need mcp:write (only the signal-writing ones, spec 5.3 rule 3). */
  access: Access;
  /** Skills tools are free and keep working when MCP access is paused (spec 8.2). */
  free?: boolean;
  /** The handler returns a finished CallToolResult, passed on as it is (third-party tools); `isError` ones are free. */
  passthrough?: boolean;
  handler(args: z.infer<z.ZodObject<In>>, ctx: ToolContext): Promise<z.infer<z.ZodObject<Out>>>;
}

export function defineTool<In extends z.ZodRawShape, Out extends z.ZodRawShape>(tool: ToolDefinition<In, Out>): ToolDefinition<In, Out> {
  return tool;
}

/**
 * A successful result: the markdown for clients that show the text, and the same result without nulls
 * as `structuredContent` for those that read that (Claude Code shows the model only this) and for programs.
 */
export function okResult(tool: Pick<ToolDefinition, 'render'>, value: Record<string, unknown>): CallToolResult {
  const structured = compact(value);
  return { content: [{ type: 'text', text: tool.render ? tool.render(value as never) : JSON.stringify(structured) }], structuredContent: structured };
}

export function errorResult(message: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: message }] };
}

/** The product a product-scoped tool works on: the argument, else the key's default, else the spec's error. */
export function requireProductId(given: string | undefined, principal: Principal): string {
  const id = given ?? principal.defaultProductId ?? undefined;
  if (!id) throw new ToolError('product_id is required: call get_products to list the products of this workspace, then pass product_id.');
  return id;
}

/** Page sizes of search-shaped tools (spec 8.3): characters of items per page, with and without guidance text. */
export const PAGE_CHARS = { withGuidance: 30_000, withoutGuidance: 80_000 } as const;

/**
 * Keeps items from the front until about `maxChars` of JSON (always at least one, so paging advances).
 * The caller turns the count kept into `returned` and `next_offset`.
 */
export function fitToPage<T>(items: readonly T[], maxChars: number): { kept: T[]; cut: boolean } {
  const kept: T[] = [];
  let chars = 0;
  for (const item of items) {
    const size = JSON.stringify(item).length;
    if (kept.length > 0 && chars + size > maxChars) return { kept, cut: true };
    kept.push(item);
    chars += size;
  }
  return { kept, cut: false };
}

/** The paging fields of a search-shaped result: `next_offset` only when more remains. */
export function pageFields(offset: number, returned: number, total: number) {
  const next = offset + returned;
  return { returned, offset, total, ...(next < total ? { next_offset: next } : {}) };
}
