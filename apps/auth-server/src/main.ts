import { baseUrl, loadConfig } from '@loupe/config';
import { appShell, createLogger, listen } from '@loupe/http';
import { createAuthApp } from './app';

const config = loadConfig();
const log = createLogger(config.logLevel, { app: 'auth-server' });
let url = baseUrl(config);
const app = appShell(log, (a) => a.use(createAuthApp({ baseUrl: () => url })));
const server = await listen(app, config.port, config.host, { requestTimeoutMs: config.requestTimeoutMs });
url = baseUrl(config, server.port);
log.info({ url }, 'auth-server listening');
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => void server.close(config.shutdownTimeoutMs).then(() => process.exit(0)));
}
