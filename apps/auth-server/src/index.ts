export { createAuthApp, type AuthAppDeps } from './app';
export { inboundReplyHandler, type InboundDeps } from './inbound-mail';
