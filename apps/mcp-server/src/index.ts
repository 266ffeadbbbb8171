export { createMcpApp, protectedResourceMetadata, CREDENTIAL_LIMIT, MCP_PATH, MCP_SCOPES, type McpAppDeps } from './app';
