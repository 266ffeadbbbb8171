export { createMcpApp, protectedResourceMetadata, MCP_PATH, MCP_SCOPES, type McpAppDeps } from './app';
