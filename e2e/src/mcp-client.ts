/**
 * Plain-HTTP calls to `npm start` for tests that count outcomes under faults: MCP JSON-RPC requests
 * and OAuth token requests that never throw and never wait forever. Every answer comes back as an
 * `Answer`, and `outcome` names it in a word, for tallies.
 */
export interface Answer {
  status: number;
  text: string;
  body: Record<string, any> | undefined;
  /** Set when there was no HTTP answer at all. */
  failure?: 'connection error' | 'no answer';
}

/** How long a request may take before it counts as hung. */
export const ANSWER_TIMEOUT_MS = 30_000;

export async function send(url: string, init: RequestInit, timeoutMs = ANSWER_TIMEOUT_MS): Promise<Answer> {
  try {
    const res = await fetch(url, { ...init, signal: AbortSignal.timeout(timeoutMs) });
    const text = await res.text();
    let body: Record<string, any> | undefined;
    try {
      body = JSON.parse(text) as Record<string, any>;
    } catch {
      body = undefined;
    }
    return { status: res.status, text, body };
  } catch (error) {
    const name = (error as Error).name;
    return { status: 0, text: String(error), body: undefined, failure: name === 'TimeoutError' || name === 'AbortError' ? 'no answer' : 'connection error' };
  }
}

export interface ToolAnswer extends Answer {
  result: { isError?: boolean; content?: Array<{ text: string }>; structuredContent?: any } | undefined;
  /** A 200 with a result that is not `isError`. */
  ok: boolean;
  /** The tool's message, for `isError` results. */
  message: string;
}

/** One MCP request (stateless Streamable HTTP: no initialize needed). */
export function mcpRpc(base: string, headers: Record<string, string>, method: string, params: Record<string, unknown> = {}) {
  return send(`${base}/api/mcp`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream', ...headers },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method, params }),
  });
}

export async function mcpTool(base: string, headers: Record<string, string>, name: string, args: Record<string, unknown>): Promise<ToolAnswer> {
  const answer = await mcpRpc(base, headers, 'tools/call', { name, arguments: args });
  const result = answer.status === 200 ? (answer.body?.result as ToolAnswer['result']) : undefined;
  return { ...answer, result, ok: result !== undefined && !result.isError, message: result?.content?.[0]?.text ?? '' };
}

/** A form-encoded token request (refresh or code exchange) from `ip` (X-Forwarded-For; loopback is a trusted proxy). */
export function tokenRequest(base: string, form: Record<string, string>, ip: string) {
  return send(`${base}/oauth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-forwarded-for': ip },
    body: new URLSearchParams(form),
  });
}

/** An answer in a few words: `tool ok`, `tool error: <start of message>`, `200 rpc error -32603`, `503 invalid_grant`, `connection error`. */
export function outcome(a: Answer | ToolAnswer): string {
  if (a.failure) return a.failure;
  const result = 'result' in a ? a.result : undefined;
  if (result) return result.isError ? `tool error: ${(result.content?.[0]?.text ?? '').slice(0, 40)}` : 'tool ok';
  const body = a.body;
  const code = body?.error?.code ?? (typeof body?.error === 'string' ? body.error.slice(0, 30) : undefined) ?? body?.msg?.slice(0, 30);
  return `${a.status}${code === undefined ? '' : ` ${code}`}`;
}

/** Counts of each value, for printing. */
export function tally(values: Iterable<string>): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const v of values) counts[v] = (counts[v] ?? 0) + 1;
  return counts;
}

/** Runs `fn` over `items` with at most `width` at a time; results in order. */
export async function inParallel<T, R>(items: readonly T[], width: number, fn: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const out: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(Array.from({ length: Math.min(width, items.length) }, async () => {
    while (next < items.length) {
      const i = next++;
      out[i] = await fn(items[i]!, i);
    }
  }));
  return out;
}
