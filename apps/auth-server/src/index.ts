export { createAuthApp, type AuthAppDeps } from './app';
