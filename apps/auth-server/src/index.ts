export { createAuthApp, type AuthAppDeps } from './app';
export { inboundReplyHandler, type InboundDeps } from './inbound-mail';
export { OAUTH_TOKEN_PATH } from './rate-limits';
