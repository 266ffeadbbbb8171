// `@loupe/oauth/grants`: what an app that reads and revokes grants needs, without loading
// oidc-provider (the web console lists and disconnects applications but runs no authorization server).
export { findConnection, listConnections, revokeGrant, revokeUserGrants, type Connection } from './grants';
export { SCOPE_DESCRIPTIONS, type Scope } from './scopes';
export { sharedSecret, randomSecret } from './secrets';
