import { baseUrl, loadConfig } from '@loupe/config';
import { createLogger, errorHandler, listen, notFoundHandler, requestContext } from '@loupe/http';
import express from 'express';
import { createAuthApp } from './app';

const config = loadConfig();
const log = createLogger(config.logLevel, { app: 'auth-server' });
const app = express();
app.use(requestContext(log));
let url = baseUrl(config);
app.use(createAuthApp({ baseUrl: () => url }));
app.use(notFoundHandler);
app.use(errorHandler);
const server = await listen(app, config.port, config.host);
url = baseUrl(config, server.port);
log.info({ url }, 'auth-server listening');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close(config.shutdownTimeoutMs).then(() => process.exit(0)));
}
