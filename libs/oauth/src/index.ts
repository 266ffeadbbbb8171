export { createOAuthProvider, authorizationServerMetadata, knownClientMetadata, markNoGrantableScope, mcpResourceUrl, knownClientId, OAUTH_TTL, TOKEN_ENDPOINT_UNAVAILABLE, CLIENT_METADATA_FETCH, type OAuthProviderDeps } from './provider';
export { REFRESH_GRACE_MS, REFRESH_TOKEN_READ, refreshTokenRead, readAheadRefreshToken, type RefreshTokenRead } from './adapter';
export { answerPlainRefresh, type PlainRefreshDeps } from './refresh';
export { checkRegistration, clientIdProblem, MAX_CLIENT_ID_LENGTH, redirectUriProblem, isOurResource, type OAuthErrorBody } from './client-rules';
export {
  bindGrantToWorkspace, findConnection, grantStanding, hasThirdPartyServers, listConnections, revokeToken, revokeGrant, revokeUserGrants, refreshTokenGrant,
  type Connection, type WorkspaceGrant, type GrantStanding,
} from './grants';
export { createAccessTokenVerifier, accessTokenCheck, type AccessTokenRow, type AccessTokenCheck, type VerifiedAccessToken } from './access-tokens';
export { SCOPES, DEFAULT_SCOPES, SCOPE_DESCRIPTIONS, grantableScopes, type Scope } from './scopes';
export { KNOWN_CLIENTS, type KnownClient } from './known-clients';
export { sharedSecret, randomSecret } from './secrets';
export { sha256 } from './hash';
export { createReplyAddress, isReplyAddress, revokeByReply, type InboundReply, type ReplyOutcome } from './revoke-by-reply';
