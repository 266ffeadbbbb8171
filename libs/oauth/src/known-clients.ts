/** A popular MCP client we pre-register; served at /oauth/clients/{slug} and usable as client_id. */
export interface KnownClient {
  slug: string;
  clientName: string;
  clientUri?: string;
  redirectUris: string[];
}

// Loopback redirects: oidc-provider ignores the port of an http loopback redirect for native clients, but
// compares host (localhost ≠ 127.0.0.1), path and trailing slash exactly, so each is listed as the client sends it.
export const KNOWN_CLIENTS: readonly KnownClient[] = [
  // Claude (claude.ai web, Claude Desktop, mobile: the connector flow runs server-side at claude.ai).
  // Both URIs and the name "Claude": Anthropic help center, "Building custom connectors via remote MCP servers",
  // https://support.claude.com/en/articles/11503834-building-custom-connectors-via-remote-mcp-servers
  // ("callback URL is https://claude.ai/api/mcp/auth_callback ... may change to https://claude.com/api/mcp/auth_callback").
  // High confidence.
  {
    slug: 'claude',
    clientName: 'Claude',
    clientUri: 'https://claude.ai',
    redirectUris: ['https://claude.ai/api/mcp/auth_callback', 'https://claude.com/api/mcp/auth_callback'],
  },
  // Claude Code (CLI): http://localhost:<random port>/callback, port pinnable with --callback-port / oauth.callbackPort.
  // github:anthropics/claude-code CHANGELOG.md @5cfc0a1 (2026-08-22): 2.1.229 "using 127.0.0.1 instead of localhost in
  // the redirect URI"; 2.1.231 fixed a mismatch for pre-registered clients. Issue anthropics/claude-code#66511 quotes
  // the localhost form. Its own metadata document (https://claude.ai/oauth/claude-code-client-metadata, as quoted on
  // 2026-08-20 in a public Nextcloud MCP connector's docs) publishes exactly these two, without a port. Medium-high.
  // Re-checked 2026-11-24 (issue 25): the document still lists them portless with no application_type and the CLI
  // sends an ephemeral port (anthropics/claude-code#37767, #64705); documents like it are made native in provider.ts.
  {
    slug: 'claude-code',
    clientName: 'Claude Code',
    redirectUris: ['http://localhost/callback', 'http://127.0.0.1/callback'],
  },
  // ChatGPT. connector_platform_oauth_redirect: seen sent by ChatGPT in gitlab.com/gitlab-org/gitlab/-/issues/579061;
  // apps-manage/oauth (app review): quoted from developers.openai.com/apps-sdk/build/auth in several public repos. Medium.
  // Newer ChatGPT apps use a per-app https://chatgpt.com/connector/oauth/{id} with a CIMD client_id
  // (cloudflare/workers-oauth-provider __tests__/oauth-cimd.test.ts @742e222, 2026-08-19; getsentry/sentry-mcp#1271):
  // not listable here, those come through CIMD.
  // Re-checked 2026-11-25 (issue 25): ChatGPT registers dynamically with its per-connector
  // https://chatgpt.com/connector/oauth/<id> callback (danielealbano/android-remote-control-mcp#166, 2026-08-17;
  // makeplane/plane-mcp-server#165, 2026-06-29): an https redirect, which our dynamic registration accepts as it is.
  {
    slug: 'chatgpt',
    clientName: 'ChatGPT',
    clientUri: 'https://chatgpt.com',
    redirectUris: ['https://chatgpt.com/connector_platform_oauth_redirect', 'https://platform.openai.com/apps-manage/oauth'],
  },
  // Cursor sends all three in one registration and uses the cursor:// one first at /authorize (desktop);
  // www.cursor.com is the web/agents callback. Sources: erp-mafia/accounted PR #2225 (DCR body), makeplane/plane-mcp-server#159,
  // TanStack/tanstack.com#652, bytebase/bytebase#20510, docs.zuora.com "Redirect URIs by MCP client". Issue threads: medium-high.
  // cursor:// is a private-use scheme, not https/loopback: allowed only because this list is ours (dynamic registration refuses it).
  // The older cursor://anysphere.cursor-retrieval/oauth/user-<server name>/callback depends on the user's server name: not listed.
  // Re-checked 2026-11-25 (issue 25): the same three URIs in one registration body (erp-mafia/accounted#2225, 2026-09-03;
  // soflyy/agent-connector-for-wp#111, 2026-09-11), so dynamic registration alone fails for Cursor on the cursor:// entry
  // (private-use schemes are refused there): Cursor users choose this pre-registered client.
  {
    slug: 'cursor',
    clientName: 'Cursor',
    clientUri: 'https://cursor.com',
    redirectUris: [
      'cursor://anysphere.cursor-mcp/oauth/callback',
      'https://www.cursor.com/agents/mcp/oauth/callback',
      'http://localhost:8787/callback',
    ],
  },
  // VS Code: microsoft/vscode src/vs/workbench/api/common/extHostAuthentication.ts (URL-handler flow sends
  // https://vscode.dev/redirect), src/vs/workbench/api/node/extHostAuthentication.ts @0e44714 (loopback flow sends
  // http://127.0.0.1:33418/, random port if taken), src/vs/base/common/oauth.ts @05f882b (DCR registers these plus
  // insiders.vscode.dev; client_name is the app name, client_uri https://code.visualstudio.com). High confidence.
  // Re-checked 2026-11-24 (issue 25): DCR also registers http://127.0.0.1/ and a random port is sent when 33418 is
  // taken (microsoft/vscode#278512): both match this native entry; VS Code 1.106+ prefers a CIMD client_id.
  {
    slug: 'vscode',
    clientName: 'Visual Studio Code',
    clientUri: 'https://code.visualstudio.com',
    redirectUris: ['https://vscode.dev/redirect', 'https://insiders.vscode.dev/redirect', 'http://127.0.0.1:33418/'],
  },
  // MCP Inspector: github:modelcontextprotocol/inspector branch v1/main @cc416f0 (2026-08-20) client/src/lib/auth.ts
  // (window.location.origin + /oauth/callback and /oauth/callback/debug, origin localhost:6274 by default) and main @86d5f58
  // (2026-08-19) clients/cli/README.md (TUI/CLI: http://127.0.0.1:6276/oauth/callback). High confidence.
  {
    slug: 'mcp-inspector',
    clientName: 'MCP Inspector',
    clientUri: 'https://github.com/modelcontextprotocol/inspector',
    redirectUris: [
      'http://localhost:6274/oauth/callback',
      'http://localhost:6274/oauth/callback/debug',
      'http://127.0.0.1:6276/oauth/callback',
    ],
  },
];
