export { createWebApp, type WebAppDeps } from './app';
