import path from 'node:path';
import { z } from 'zod';

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Every environment variable the service reads, with the defaults of the embedded setup. */
export const envSchema = z.object({
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  HOST: z.string().min(1).default('127.0.0.1'),
  PUBLIC_BASE_URL: z.url().optional(),
  DATABASE_URL: z.string().min(1).optional(),
  DATA_DIR: z.string().min(1).default('.data'),
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).default(54329),
  SERVICE_PREFIX: z
    .string()
    .regex(/^[a-z][a-z0-9]*_$/, 'lowercase letters and digits ending in "_"')
    .default('loupe_'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WORKER_ENABLED: bool.default(true),
  WORKER_CONCURRENCY: z.coerce.number().int().min(1).max(64).default(4),
  DB_POOL_SIZE: z.coerce.number().int().min(2).max(200).default(10),
  FETCH_ALLOW_LOOPBACK: bool.default(false),
  SHUTDOWN_TIMEOUT_MS: z.coerce.number().int().min(0).default(15000),
  REQUEST_TIMEOUT_MS: z.coerce.number().int().min(100).default(30000),
  JOB_HEARTBEAT_SECONDS: z.coerce.number().int().min(10).max(3600).default(30),
  JOB_RETRY_BASE_SECONDS: z.coerce.number().int().min(0).max(3600).default(2),
  SMTP_URL: z.url({ protocol: /^smtps?$/, error: 'an smtp:// or smtps:// URL' }).optional(),
  MAIL_FROM: z.string().min(1).default('Loupe <no-reply@loupe.localhost>'),
  /**
   * The proxies whose X-Forwarded-For is believed (express "trust proxy"): comma-separated addresses,
   * CIDR ranges or the names loopback, linklocal, uniquelocal. Any other sender's header is ignored.
   */
  /** Spec 8.1: requests per minute from one IP address over the whole service. Raised only for load tests. */
  PER_IP_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(2000),
  TRUSTED_PROXIES: z
    .string()
    .regex(/^\s*(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d{1,3})?)(\s*,\s*(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d{1,3})?))*\s*$/,
      'comma-separated IP addresses, CIDR ranges, or loopback / linklocal / uniquelocal')
    .default('loopback'),
});

export type Env = z.infer<typeof envSchema>;

export interface Config {
  port: number;
  host: string;
  publicBaseUrl: string | undefined;
  databaseUrl: string | undefined;
  dataDir: string;
  embeddedPgPort: number;
  servicePrefix: string;
  logLevel: Env['LOG_LEVEL'];
  workerEnabled: boolean;
  workerConcurrency: number;
  dbPoolSize: number;
  fetchAllowLoopback: boolean;
  shutdownTimeoutMs: number;
  /** A request (headers and body) must arrive within this time; slow or endless senders are cut off. */
  requestTimeoutMs: number;
  /** pg-boss job policy: see JobPolicy in libs/jobs. */
  jobs: { heartbeatSeconds: number; retryBaseSeconds: number };
  /** Where mail is sent; without it mail is stored in the local outbox (`npm run admin -- mail list`). */
  smtpUrl: string | undefined;
  /** The From header of the mail the service sends. */
  mailFrom: string;
  /** Proxies whose X-Forwarded-For gives the client IP (per-IP limits); express "trust proxy" syntax. */
  trustedProxies: string;
  perIpLimitPerMinute: number;
}

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Parses the environment once; a bad value stops the process with the variable named. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, cwd = process.cwd()): Config {
  const present = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const parsed = envSchema.safeParse(present);
  if (!parsed.success) {
    const lines = parsed.error.issues.map((i) => `  ${i.path.join('.')}: ${i.message}`);
    throw new ConfigError(`Invalid configuration:\n${lines.join('\n')}`);
  }
  const e = parsed.data;
  return {
    port: e.PORT,
    host: e.HOST,
    publicBaseUrl: e.PUBLIC_BASE_URL?.replace(/\/$/, ''),
    databaseUrl: e.DATABASE_URL,
    dataDir: path.resolve(cwd, e.DATA_DIR),
    embeddedPgPort: e.EMBEDDED_PG_PORT,
    servicePrefix: e.SERVICE_PREFIX,
    logLevel: e.LOG_LEVEL,
    workerEnabled: e.WORKER_ENABLED,
    workerConcurrency: e.WORKER_CONCURRENCY,
    dbPoolSize: e.DB_POOL_SIZE,
    fetchAllowLoopback: e.FETCH_ALLOW_LOOPBACK,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    requestTimeoutMs: e.REQUEST_TIMEOUT_MS,
    jobs: { heartbeatSeconds: e.JOB_HEARTBEAT_SECONDS, retryBaseSeconds: e.JOB_RETRY_BASE_SECONDS },
    smtpUrl: e.SMTP_URL,
    mailFrom: e.MAIL_FROM,
    perIpLimitPerMinute: e.PER_IP_LIMIT_PER_MINUTE,
    trustedProxies: e.TRUSTED_PROXIES.split(',').map((p) => p.trim()).join(', '),
  };
}

/** The address clients use; the listening address when no public one is configured. */
export function baseUrl(config: Config, listeningPort = config.port): string {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host === '127.0.0.1' ? 'localhost' : host}:${listeningPort}`;
}
