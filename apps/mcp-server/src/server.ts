import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { errorResult, okResult, ToolError, type ToolContext, type ToolDefinition } from './tool-kit';
import { TOOLS } from './tools';
import { registerPrompts } from './prompts';

export const SERVER_INFO = { name: 'loupe', title: 'Loupe customer evidence', version: '0.1.0' } as const;

const INSTRUCTIONS =
  'Loupe holds the customer evidence of one workspace: sources (calls, meetings, emails, support conversations, documents), ' +
  'signals extracted from them, opportunities clustered from signals, and shaping notes. Start with get_products; ' +
  'find_skills lists methodology guides worth reading before analysing evidence or writing a shaping note.';

/**
 * One tool call, one path (ARCHITECTURE.md): the connection's permission, then the tool, with tool
 * problems turned into `isError` results. Credits and limits will sit here too.
 */
export async function callTool(tool: ToolDefinition, args: Record<string, unknown>, ctx: ToolContext): Promise<CallToolResult> {
  if (tool.access === 'write' && !ctx.principal.scopes.has('mcp:write')) {
    return errorResult(
      `Tool is not available on this connection: ${tool.name} needs the mcp:write permission, which this ${ctx.principal.kind === 'oauth' ? 'connection was not granted; reconnect and approve signal writing' : 'API key lacks; use a key with mcp:write'}.`,
    );
  }
  if (!tool.noStoredData) {
    const { rows } = await ctx.pool.query<{ local: boolean }>('SELECT local_data_storage AS local FROM workspaces WHERE id = $1', [ctx.principal.workspaceId]);
    if (rows[0]?.local) {
      return errorResult(`Tool is not available for this workspace: it stores its data locally, so ${tool.name} has nothing to work on here. get_products, find_skills and read_skills still work.`);
    }
  }
  try {
    return okResult(await tool.handler(args as never, ctx));
  } catch (error) {
    if (error instanceof ToolError) return errorResult(error.message);
    if (error instanceof Error && 'toolMessage' in error && typeof error.toolMessage === 'string') return errorResult(error.toolMessage);
    ctx.log.error({ err: error, tool: tool.name }, 'tool failed');
    return errorResult(`${tool.name} failed unexpectedly on our side; nothing was changed. Try again in a moment.`);
  }
}

/** A fresh server per request (stateless transport): the tools and prompts, bound to this caller. */
export function buildServer(ctx: ToolContext): McpServer {
  const server = new McpServer(SERVER_INFO, { capabilities: { tools: {}, prompts: {} }, instructions: INSTRUCTIONS });
  for (const tool of TOOLS) {
    server.registerTool(
      tool.name,
      { title: tool.title, description: tool.description, inputSchema: tool.inputSchema, outputSchema: tool.outputSchema, annotations: { title: tool.title, ...tool.annotations } },
      (args: Record<string, unknown>) => callTool(tool, args, ctx),
    );
  }
  registerPrompts(server);
  return server;
}
