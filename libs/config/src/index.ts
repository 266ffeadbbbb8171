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
  EMBEDDED_PG_PORT: z.coerce.number().int().min(1).max(65535).optional(),
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
  /** The domain of the per-connection reply addresses (revoke+<token>@<domain>); unset, confirmation mails carry none. */
  MAIL_REPLY_DOMAIN: z.string().regex(/^[a-z0-9.-]+\.[a-z0-9-]+$|^localhost$/i, 'a mail domain such as replies.example.com').optional(),
  /** Port of the built-in SMTP receiver for those replies; off when unset. */
  INBOUND_SMTP_PORT: z.coerce.number().int().min(0).max(65535).optional(),
  INBOUND_SMTP_HOST: z.string().min(1).default('127.0.0.1'),
  /** Shared secret of the inbound-mail webhook (POST /inbound/mail, Authorization: Bearer); off when unset. */
  INBOUND_MAIL_SECRET: z.string().min(16, 'at least 16 characters').optional(),
  /**
   * Lifetime of OAuth access tokens. The spec's hour is the default and the ceiling (spec 5.7 rule 3: an
   * access token lapses within an hour); shorter for operators who want it, and for tests of expiry.
   */
  ACCESS_TOKEN_TTL_SECONDS: z.coerce.number().int().min(5).max(3600).default(3600),
  /**
   * Megabytes of MCP request bodies the process holds at once (read, not yet answered); past it a
   * request is answered 503 with Retry-After. At least 80: one body may be 75 MB.
   */
  MCP_BODY_MEMORY_MB: z.coerce.number().int().min(80).default(200),
  /** When set, GET /metrics asks for `Authorization: Bearer <METRICS_TOKEN>`. */
  METRICS_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  /** Spec 8.1: requests per minute from one IP address over the whole service. Raised only for load tests. */
  PER_IP_LIMIT_PER_MINUTE: z.coerce.number().int().min(1).default(2000),
  /**
   * The proxies whose X-Forwarded-For is believed (express "trust proxy"): comma-separated addresses,
   * CIDR ranges or the names loopback, linklocal, uniquelocal. Any other sender's header is ignored.
   */
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
  /** Unset: the embedded cluster's last port (kept in DATA_DIR/postgres.port), or a free one. */
  embeddedPgPort: number | undefined;
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
  /** Lifetime of an OAuth access token in seconds (5 to 3600, default the spec's hour). */
  accessTokenTtlSeconds: number;
  /** Bearer token GET /metrics requires; open without one. */
  metricsToken: string | undefined;
  /** Bytes of MCP request bodies held at once before new ones are refused with 503 (MCP_BODY_MEMORY_MB). */
  mcpBodyMemoryBytes: number;
  /** Revocation by replying to the confirmation mail (spec 5.7 rule 4); absent without MAIL_REPLY_DOMAIN. */
  replies: { domain: string; smtp: { host: string; port: number } | undefined; webhookSecret: string | undefined } | undefined;
  /** OpenID Connect identity providers offered on the sign-in page (spec 5.2 rule 1); [] without OIDC_PROVIDERS. */
  identityProviders: IdentityProviderConfig[];
}

/** One OpenID Connect identity provider, from `OIDC_PROVIDERS` and the `OIDC_<ID>_*` variables. */
export interface IdentityProviderConfig {
  /** Lowercase id, as listed in OIDC_PROVIDERS; part of the start URL (`/auth/idp/<id>/start`). */
  id: string;
  /** Shown on the button: "Continue with <name>". */
  name: string;
  /** The issuer whose `/.well-known/openid-configuration` is discovered. */
  issuer: string;
  clientId: string;
  clientSecret: string;
  /** Space-separated scopes; `openid email profile` by default. */
  scopes: string;
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
  if (!e.MAIL_REPLY_DOMAIN && (e.INBOUND_SMTP_PORT !== undefined || e.INBOUND_MAIL_SECRET)) {
    throw new ConfigError('Invalid configuration:\n  MAIL_REPLY_DOMAIN: required when INBOUND_SMTP_PORT or INBOUND_MAIL_SECRET is set (replies go to revoke+…@MAIL_REPLY_DOMAIN)');
  }
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
    metricsToken: e.METRICS_TOKEN,
    mcpBodyMemoryBytes: e.MCP_BODY_MEMORY_MB * 1024 * 1024,
    accessTokenTtlSeconds: e.ACCESS_TOKEN_TTL_SECONDS,
    replies: e.MAIL_REPLY_DOMAIN
      ? {
        domain: e.MAIL_REPLY_DOMAIN.toLowerCase(),
        smtp: e.INBOUND_SMTP_PORT !== undefined ? { host: e.INBOUND_SMTP_HOST, port: e.INBOUND_SMTP_PORT } : undefined,
        webhookSecret: e.INBOUND_MAIL_SECRET,
      }
      : undefined,
    trustedProxies: e.TRUSTED_PROXIES.split(',').map((p) => p.trim()).join(', '),
    identityProviders: identityProviders(present),
  };
}

const PROVIDER_ID = /^[a-z][a-z0-9-]{0,31}$/;
const isLoopbackHost = (host: string) => host === 'localhost' || host === '127.0.0.1' || host === '[::1]';

/**
 * The identity providers of `OIDC_PROVIDERS=google,okta`: for each id, `OIDC_<ID>_ISSUER`, `OIDC_<ID>_CLIENT_ID`,
 * `OIDC_<ID>_CLIENT_SECRET`, optional `OIDC_<ID>_NAME` (default: the id capitalised) and `OIDC_<ID>_SCOPES`
 * (default `openid email profile`). `<ID>` is the id upper-cased with `-` as `_`. Read apart from envSchema
 * because the variable names depend on the list. Every problem is reported with the variable it is about.
 */
export function identityProviders(env: NodeJS.ProcessEnv = process.env): IdentityProviderConfig[] {
  const value = (name: string) => {
    const v = env[name]?.trim();
    return v ? v : undefined;
  };
  const list = value('OIDC_PROVIDERS');
  if (!list) return [];
  const problems: string[] = [];
  const providers: IdentityProviderConfig[] = [];
  const seen = new Set<string>();
  for (const raw of list.split(',').map((p) => p.trim().toLowerCase()).filter(Boolean)) {
    if (!PROVIDER_ID.test(raw)) {
      problems.push(`OIDC_PROVIDERS: "${raw}" is not a provider id (a lowercase letter, then letters, digits or "-", up to 32)`);
      continue;
    }
    if (seen.has(raw)) {
      problems.push(`OIDC_PROVIDERS: "${raw}" is listed twice`);
      continue;
    }
    seen.add(raw);
    const prefix = `OIDC_${raw.toUpperCase().replace(/-/g, '_')}_`;
    const required = (suffix: string) => {
      const v = value(prefix + suffix);
      if (!v) problems.push(`${prefix}${suffix}: required because OIDC_PROVIDERS lists "${raw}"`);
      return v ?? '';
    };
    const issuer = required('ISSUER');
    const clientId = required('CLIENT_ID');
    const clientSecret = required('CLIENT_SECRET');
    if (issuer) {
      let url: URL | undefined;
      try {
        url = new URL(issuer);
      } catch {
        problems.push(`${prefix}ISSUER: not a URL`);
      }
      if (url && !(url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)))) {
        problems.push(`${prefix}ISSUER: an https:// URL (http:// only for localhost)`);
      } else if (url && (url.search || url.hash)) {
        problems.push(`${prefix}ISSUER: the issuer URL has no query or fragment`);
      }
    }
    const scopes = (value(prefix + 'SCOPES') ?? 'openid email profile').split(/[\s,]+/).filter(Boolean);
    if (!scopes.includes('openid')) problems.push(`${prefix}SCOPES: must include "openid"`);
    providers.push({
      id: raw,
      name: value(prefix + 'NAME') ?? `${raw.charAt(0).toUpperCase()}${raw.slice(1)}`,
      issuer,
      clientId,
      clientSecret,
      scopes: scopes.join(' '),
    });
  }
  if (problems.length) throw new ConfigError(`Invalid configuration:\n${problems.map((p) => `  ${p}`).join('\n')}`);
  return providers;
}

/** The address clients use; the listening address when no public one is configured. */
export function baseUrl(config: Config, listeningPort = config.port): string {
  if (config.publicBaseUrl) return config.publicBaseUrl;
  const host = config.host === '0.0.0.0' || config.host === '::' ? 'localhost' : config.host;
  return `http://${host === '127.0.0.1' ? 'localhost' : host}:${listeningPort}`;
}
