export { APPS, DEFAULT_APP, ROUTES, routeOf, type HttpApp, type Route } from './routes';
export { nginxConfig, SAMPLE_PORTS } from './nginx';
export { startPathProxy } from './path-proxy';
export { startApp, type RunningApp } from './apps';
