import { ConfigError, loadConfig, productionWarnings } from '@loupe/config';
import { createLogger } from '@loupe/http';
import { demoBanner, firstOwnerHelp, hasWorkspace, seedDemo } from './seed';
import { startService } from './service';

// `npm start`: the whole service in one process, on the embedded PostgreSQL unless DATABASE_URL is set.
let config;
try {
  config = loadConfig();
} catch (error) {
  if (error instanceof ConfigError) {
    console.error(error.message);
    process.exit(2);
  }
  throw error;
}
const log = createLogger(config.logLevel);
const started = Date.now();
let service;
try {
  service = await startService({ config, log });
} catch (error) {
  log.fatal({ err: error }, 'could not start');
  process.exit(1);
}
for (const warning of productionWarnings(config)) log.warn({ setting: warning.setting }, warning.message);
// The demo workspace and its all-powerful key: on the embedded default, or when asked (LOUPE_DEMO).
const seed = config.demo ? await seedDemo(service.database, config.servicePrefix, service.boss) : undefined;
if (seed) process.stdout.write(`${demoBanner(service.url, seed)}\n`);
else if (!config.demo && !(await hasWorkspace(service.database.pool))) process.stdout.write(`${firstOwnerHelp(service.url)}\n`);
const database = service.database.embedded ? `embedded PostgreSQL, data in ${config.dataDir}` : 'PostgreSQL of DATABASE_URL';
process.stdout.write(`Loupe is ready at ${service.url} (${database}; started in ${Date.now() - started} ms)\n`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    if (stopping) return;
    stopping = true;
    log.info({ signal }, 'shutting down: no new requests, finishing in-flight work');
    service
      .close()
      .then(() => {
        log.info('stopped');
        process.exit(0);
      })
      .catch((error: unknown) => {
        log.error({ err: error }, 'unclean shutdown');
        process.exit(1);
      });
  });
}
