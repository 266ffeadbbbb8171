/** A third-party server could not be added, listed or removed as asked; the message says why. */
export class ThirdPartyServerError extends Error {
  override name = 'ThirdPartyServerError';
  constructor(
    message: string,
    /** The input at fault (name, url, authHeader, workspaceId), when one is. */
    readonly field?: string,
  ) {
    super(message);
  }
}

export type ThirdPartyFailure =
  | 'unknown_tool'
  | 'timeout'
  | 'refused'
  | 'unreachable'
  | 'too_large'
  | 'http_status'
  | 'not_mcp'
  | 'tool_error'
  | 'cancelled'
  | 'failed';

/** A call to a third-party MCP server failed; the message names the server and what happened. */
export class ThirdPartyError extends Error {
  override name = 'ThirdPartyError';
  constructor(
    message: string,
    readonly reason: ThirdPartyFailure,
    readonly server?: { id: string; name: string; slug: string },
    options?: ErrorOptions,
  ) {
    super(message, options);
  }
}
