import path from 'node:path';
import { z } from 'zod';
import { servesOthers } from './production-check';

/** The groups of the configuration reference (`npm run docs:config`), in the order it lists them. */
export const variableGroups = {
  server: 'Server',
  database: 'Database and storage',
  worker: 'Worker and jobs',
  mail: 'Mail',
  oauth: 'OAuth and tokens',
  limits: 'Limits',
  mcp: 'MCP',
  embeddings: 'Embeddings',
  identity: 'Identity providers',
  metrics: 'Metrics',
  cli: 'Command-line client',
  node: 'Node.js',
} as const;
export type VariableGroup = keyof typeof variableGroups;

/**
 * What the configuration reference and `.env.example` say about one variable. `description` says what it does;
 * `format` the values allowed where the schema alone says too little (patterns, URLs); `defaultText` the effective
 * default where it is computed rather than a constant; `requiredWhen` when it must be set (absent: never).
 */
export interface VariableDoc {
  description: string;
  group: VariableGroup;
  format?: string;
  defaultText?: string;
  requiredWhen?: string;
}

/** Attaches a variable's documentation to its schema (zod metadata, read back by the reference generator). */
const doc = <T extends z.ZodType>(schema: T, meta: VariableDoc): T => schema.meta({ ...meta });

const bool = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'])
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

/** Every environment variable the service reads, with the defaults of the embedded setup. */
export const envSchema = z.object({
  PORT: doc(z.coerce.number().int().min(0).max(65535).default(8080), {
    group: 'server',
    description: 'HTTP port every app listens on (`npm start` serves all of them on this one port); `0` picks a free port.',
  }),
  HOST: doc(z.string().min(1).default('127.0.0.1'), {
    group: 'server',
    format: 'an address or host name',
    description: 'Listening address. The default serves loopback only; `0.0.0.0` (or `::`) exposes the service.',
  }),
  PUBLIC_BASE_URL: doc(z.url().optional(), {
    group: 'server',
    format: 'an absolute URL (a trailing `/` is dropped)',
    defaultText: 'the listening address, `http://localhost:<PORT>`',
    requiredWhen: 'clients reach the service at another address than the listening one (a reverse proxy, TLS, a public host name)',
    description: 'The address clients use: printed at start, and written into the OAuth metadata, the MCP URL, mail links and the OpenAPI document.',
  }),
  DATABASE_URL: doc(z.string().min(1).optional(), {
    group: 'database',
    format: 'a `postgres://` connection string',
    defaultText: 'the embedded PostgreSQL in `DATA_DIR`',
    requiredWhen: 'you run your own PostgreSQL (production, several instances)',
    description: 'The PostgreSQL server to use instead of the embedded one. Migrations are applied at start.',
  }),
  DATA_DIR: doc(z.string().min(1).default('.data'), {
    group: 'database',
    format: 'a directory, relative to the working directory or absolute',
    description: 'Where the embedded PostgreSQL cluster and the locally stored attachment files live.',
  }),
  LOUPE_DEMO: doc(bool.optional(), {
    group: 'database',
    defaultText: 'on with the embedded PostgreSQL, off with `DATABASE_URL`',
    description: 'On the first start against an empty database, create the demo workspace with its sample evidence and print an API key with every permission. Off: the first start prints how to create the first workspace and its owner (`npm run admin -- workspace create`).',
  }),
  STORAGE_URL: doc(z.string().regex(/^s3:\/\/[a-z0-9][a-z0-9.-]{1,61}[a-z0-9](\/.*)?$/, 's3://<bucket>/<prefix>').optional(), {
    group: 'database',
    format: '`s3://<bucket>/<prefix>`',
    defaultText: 'the local disk, `DATA_DIR/attachments`',
    requiredWhen: 'several instances run on more than one machine: every one must read what any downloaded',
    description: 'Keep attachments in an S3-compatible bucket (AWS S3, MinIO, Cloudflare R2, Ceph…) under the prefix, through the AWS SDK. Credentials come from the AWS SDK\'s usual places: `AWS_ACCESS_KEY_ID` and `AWS_SECRET_ACCESS_KEY`, a profile, or the instance\'s role.',
  }),
  S3_ENDPOINT: doc(z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' }).optional(), {
    group: 'database',
    format: 'an `http://` or `https://` URL',
    defaultText: 'AWS S3 of `S3_REGION`',
    requiredWhen: 'the bucket of `STORAGE_URL` is on another S3-compatible server than AWS',
    description: 'Address of the S3-compatible server (e.g. `http://minio.internal:9000`).',
  }),
  S3_REGION: doc(z.string().min(1).default('us-east-1'), {
    group: 'database',
    description: 'Region of the bucket of `STORAGE_URL`.',
  }),
  S3_FORCE_PATH_STYLE: doc(bool.default(false), {
    group: 'database',
    description: 'Address objects as `<endpoint>/<bucket>/<key>` rather than `<bucket>.<endpoint>/<key>`: most S3-compatible servers (MinIO, Ceph) need it.',
  }),
  EMBEDDED_PG_PORT: doc(z.coerce.number().int().min(1).max(65535).optional(), {
    group: 'database',
    defaultText: 'the last port used (kept in `DATA_DIR/postgres.port`), else `54329`, else any free port',
    description: 'TCP port of the embedded PostgreSQL (loopback only), for other tools; the service itself connects through its Unix socket. Ignored with `DATABASE_URL`.',
  }),
  SERVICE_PREFIX: doc(
    z
      .string()
      .regex(/^[a-z][a-z0-9]*_$/, 'lowercase letters and digits ending in "_"')
      .default('loupe_'),
    {
      group: 'server',
      format: 'lowercase letters and digits ending in `_`',
      description: 'Prefix of the API keys and tokens the service issues (`loupe_sk_…`), so secret scanners can recognise them.',
    },
  ),
  LOG_LEVEL: doc(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'), {
    group: 'server',
    description: 'Level of the JSON logs (pino) written to standard output. No level logs a secret.',
  }),
  WORKER_ENABLED: doc(bool.default(true), {
    group: 'worker',
    description: 'Run the worker (batches, attachment downloads, source processing and the other jobs) inside this process; `false` when workers run as their own processes.',
  }),
  WORKER_DB_NICE: doc(z.coerce.number().int().min(0).max(19).default(10), {
    group: 'worker',
    description: 'With the embedded PostgreSQL and the worker inside the same process (`npm start`), the worker\'s database connections run at this CPU priority (`nice`, 0–19), so searches and pages keep their share of a small machine while records are processed. `0` turns it off. Ignored with `DATABASE_URL` (the server is elsewhere).',
  }),
  WORKER_BUSY_SHARE: doc(z.coerce.number().gt(0).max(1).default(0.5), {
    group: 'worker',
    format: 'a number above 0, at most 1',
    description: 'With the worker inside the same process (`npm start`): while searches, tool calls or pages are being answered (one began or ended in the last second), the worker works at most this share of the time, resting after each slice of work for as long as it takes to stay within that share, so those answers keep their headroom on a small machine. With nobody waiting it runs flat out. `1` turns the rest off. Ingestion API requests do not count: nobody watches them.',
  }),
  WORKER_CONCURRENCY: doc(z.coerce.number().int().min(1).max(64).default(4), {
    group: 'worker',
    description: 'Batch jobs one worker process handles at once, and as many attachment downloads besides.',
  }),
  DB_POOL_SIZE: doc(z.coerce.number().int().min(2).max(200).default(10), {
    group: 'database',
    description: 'PostgreSQL connections per process.',
  }),
  FETCH_ALLOW_LOOPBACK: doc(bool.default(false), {
    group: 'server',
    description: 'Let outbound fetches of user-supplied URLs (attachments, client metadata documents, third-party MCP servers) reach loopback addresses. Tests and local demos only.',
  }),
  CONNECTIONS_KEY: doc(z.string().min(1).optional(), {
    group: 'server',
    format: '`<id>:<32 bytes in base64>`, several separated by commas (the first wraps new keys)',
    defaultText: 'a key made once and kept in the database (`service_secrets`): for the embedded setup only',
    requiredWhen: 'connections to vendors hold real credentials (production): keep this key apart from the database',
    description: 'Key-encryption keys of the connections\' credentials (envelope encryption): each connection\'s credentials are sealed under a data key of their own, wrapped by the first key here. To rotate, put a new key first and restart: the worker re-wraps every data key with it at start (its log says how many); then drop the old key.',
  }),
  SHUTDOWN_DRAIN_MS: doc(z.coerce.number().int().min(0).max(300_000).optional(), {
    group: 'server',
    defaultText: '`5000` when the service serves others (`HOST` beyond loopback, or an `https` `PUBLIC_BASE_URL`), else `0`',
    description: 'On SIGINT or SIGTERM, how long `/readyz` answers 503 "draining" while requests are still served, before the server stops accepting: at least your load balancer\'s health-check interval times its failure threshold.',
  }),
  SHUTDOWN_TIMEOUT_MS: doc(z.coerce.number().int().min(0).default(15000), {
    group: 'server',
    description: 'On SIGINT or SIGTERM, how long the service waits for in-flight requests and jobs before it stops.',
  }),
  REQUEST_TIMEOUT_MS: doc(z.coerce.number().int().min(100).default(30000), {
    group: 'limits',
    description: 'A request (headers and body) must arrive whole within this time; slower senders are answered 408 and cut off.',
  }),
  JOB_HEARTBEAT_SECONDS: doc(z.coerce.number().int().min(10).max(3600).default(30), {
    group: 'worker',
    description: 'A job whose worker died is retried this long after its last heartbeat.',
  }),
  JOB_RETRY_BASE_SECONDS: doc(z.coerce.number().int().min(0).max(3600).default(2), {
    group: 'worker',
    description: 'Delay before the first retry of a failed job or download; it doubles on each retry.',
  }),
  SMTP_URL: doc(z.url({ protocol: /^smtps?$/, error: 'an smtp:// or smtps:// URL' }).optional(), {
    group: 'mail',
    format: 'an `smtp://` or `smtps://` URL, credentials included (`smtp://user:password@host:587`)',
    defaultText: 'the local outbox (`npm run admin -- mail list`)',
    requiredWhen: 'mail (sign-in codes, invitations, confirmations) must reach real inboxes',
    description: 'The SMTP server that delivers the mail the service sends.',
  }),
  MAIL_FROM: doc(z.string().min(1).default('Loupe <no-reply@loupe.localhost>'), {
    group: 'mail',
    format: 'a mail address, optionally with a name (`Acme <loupe@acme.example>`)',
    description: 'The From header of the mail the service sends.',
  }),
  MAIL_REPLY_DOMAIN: doc(
    z.string().regex(/^[a-z0-9.-]+\.[a-z0-9-]+$|^localhost$/i, 'a mail domain such as replies.example.com').optional(),
    {
      group: 'mail',
      format: 'a mail domain such as `replies.example.com`',
      requiredWhen: '`INBOUND_SMTP_PORT` or `INBOUND_MAIL_SECRET` is set',
      description: 'Domain of the per-connection reply addresses (`revoke+<token>@<domain>`): replying to a confirmation mail revokes that connection. Unset, confirmation mails carry no reply address.',
    },
  ),
  INBOUND_SMTP_PORT: doc(z.coerce.number().int().min(0).max(65535).optional(), {
    group: 'mail',
    defaultText: 'off',
    description: 'Port of the built-in SMTP receiver of replies to confirmation mails (see `MAIL_REPLY_DOMAIN`).',
  }),
  INBOUND_SMTP_HOST: doc(z.string().min(1).default('127.0.0.1'), {
    group: 'mail',
    format: 'an address or host name',
    description: 'Listening address of the built-in SMTP receiver (used only with `INBOUND_SMTP_PORT`).',
  }),
  INBOUND_MAIL_MAX_MB: doc(z.coerce.number().int().min(1).max(100).default(25), {
    group: 'mail',
    description: 'Largest message the built-in SMTP receiver takes, attachments included (a forwarded mail with its files); larger ones are refused with 552.',
  }),
  INBOUND_MAIL_SECRET: doc(z.string().min(16, 'at least 16 characters').optional(), {
    group: 'mail',
    defaultText: 'off',
    description: 'Shared secret of the inbound-mail webhook (`POST /inbound/mail`, `Authorization: Bearer <secret>`) for hosted inbound-mail services.',
  }),
  ACCESS_TOKEN_TTL_SECONDS: doc(z.coerce.number().int().min(5).max(3600).default(3600), {
    group: 'oauth',
    description: 'Lifetime of OAuth access tokens. An hour is the default and the ceiling; shorter makes clients refresh sooner.',
  }),
  MCP_BODY_MEMORY_MB: doc(z.coerce.number().int().min(80).default(200), {
    group: 'mcp',
    description: 'Megabytes of MCP request bodies one process holds at once (read, not yet answered); past it a request is answered 503 with `Retry-After`. At least 80: one body may be 75 MB.',
  }),
  METRICS_TOKEN: doc(z.string().min(16, 'at least 16 characters').optional(), {
    group: 'metrics',
    defaultText: 'none: `/metrics` is open to all',
    requiredWhen: '`HOST` is not a loopback address and `/metrics` must not be public',
    description: 'When set, `GET /metrics` asks for `Authorization: Bearer <METRICS_TOKEN>`.',
  }),
  PER_IP_LIMIT_PER_MINUTE: doc(z.coerce.number().int().min(1).default(2000), {
    group: 'limits',
    description: 'Requests per minute from one IP address over the whole service. Raised only for load tests.',
  }),
  EMBEDDINGS_URL: doc(z.url({ protocol: /^https?$/, error: 'an http:// or https:// URL' }).optional(), {
    group: 'embeddings',
    format: 'an `http://` or `https://` URL: a base URL (`http://localhost:11434/v1`) or the endpoint itself (`…/embeddings`)',
    defaultText: 'none: the built-in word vectors',
    description: 'An OpenAI-compatible embeddings endpoint (OpenAI, Ollama, vLLM, text-embeddings-inference, LM Studio) that makes the vectors of sources and signals instead of the built-in word vectors. A base URL gets `/embeddings` (after `/v1`) or `/v1/embeddings` appended. Changing it or the model re-embeds everything in the background. See docs/self-hosting/embeddings.md.',
  }),
  EMBEDDINGS_MODEL: doc(z.string().min(1).optional(), {
    group: 'embeddings',
    requiredWhen: '`EMBEDDINGS_URL` is set',
    description: 'The model the embeddings endpoint is asked for (`nomic-embed-text`, `text-embedding-3-small`…). Stored with every vector: a change re-embeds.',
  }),
  EMBEDDINGS_API_KEY: doc(z.string().min(1).optional(), {
    group: 'embeddings',
    defaultText: 'none: no Authorization header',
    description: 'Sent as `Authorization: Bearer <key>` to the embeddings endpoint; never logged.',
  }),
  EMBEDDINGS_BATCH_SIZE: doc(z.coerce.number().int().min(1).max(2048).default(64), {
    group: 'embeddings',
    description: 'Texts sent in one request to the embeddings endpoint.',
  }),
  EMBEDDINGS_REQUESTS_PER_MINUTE: doc(z.coerce.number().int().min(1).optional(), {
    group: 'embeddings',
    defaultText: 'no limit',
    description: 'Requests per minute sent to the embeddings endpoint at most, counted apart by the worker (embedding sources and signals) and by each MCP server (embedding search queries). A 429 is also waited out, as its `Retry-After` asks.',
  }),
  EMBEDDINGS_TIMEOUT_MS: doc(z.coerce.number().int().min(100).default(30000), {
    group: 'embeddings',
    description: 'Time limit of one request to the embeddings endpoint; a request that takes longer is retried with backoff (up to 5 times). A search\'s query waits at most 5 seconds, once, then answers by words.',
  }),
  TRUSTED_PROXIES: doc(
    z
      .string()
      .regex(/^\s*(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d{1,3})?)(\s*,\s*(loopback|linklocal|uniquelocal|[0-9a-fA-F:.]+(\/\d{1,3})?))*\s*$/,
        'comma-separated IP addresses, CIDR ranges, or loopback / linklocal / uniquelocal')
      .default('loopback'),
    {
      group: 'server',
      format: 'comma-separated IP addresses, CIDR ranges, or `loopback`, `linklocal`, `uniquelocal`',
      requiredWhen: 'a reverse proxy on another host forwards the requests',
      description: 'The proxies whose `X-Forwarded-For` names the client (express "trust proxy"), for per-IP limits and logs. Any other sender\'s header is ignored.',
    },
  ),
});

/**
 * The variables read apart from `envSchema`: the identity providers (their names depend on `OIDC_PROVIDERS`, so
 * they are parsed by `identityProviders`), the command-line client's, and Node's own. `<ID>` marks a pattern.
 */
export const otherVariables: ReadonlyArray<VariableDoc & { name: string }> = [
  {
    name: 'OIDC_PROVIDERS',
    group: 'identity',
    format: 'comma-separated ids: a lowercase letter, then letters, digits or `-`, up to 32 each',
    defaultText: 'no providers: sign-in by mailed code only',
    description: 'OpenID Connect identity providers offered on the sign-in page ("Continue with …"), e.g. `google,okta`.',
  },
  {
    name: 'OIDC_<ID>_ISSUER',
    group: 'identity',
    format: 'an `https://` URL (`http://` only for localhost), without query or fragment',
    requiredWhen: '`OIDC_PROVIDERS` lists the id',
    description: 'The provider\'s issuer; its `/.well-known/openid-configuration` is discovered. `<ID>` is the id upper-cased, `-` written `_` (`okta-dev` → `OIDC_OKTA_DEV_ISSUER`).',
  },
  {
    name: 'OIDC_<ID>_CLIENT_ID',
    group: 'identity',
    requiredWhen: '`OIDC_PROVIDERS` lists the id',
    description: 'Client id of the confidential web client registered at the provider.',
  },
  {
    name: 'OIDC_<ID>_CLIENT_SECRET',
    group: 'identity',
    requiredWhen: '`OIDC_PROVIDERS` lists the id',
    description: 'Client secret of that client.',
  },
  {
    name: 'OIDC_<ID>_NAME',
    group: 'identity',
    defaultText: 'the id capitalised (`Google`)',
    description: 'Name shown on the sign-in button.',
  },
  {
    name: 'OIDC_<ID>_SCOPES',
    group: 'identity',
    format: 'scopes separated by spaces or commas; must include `openid`',
    defaultText: '`openid email profile`',
    description: 'Scopes requested from the provider.',
  },
  {
    name: 'LOUPE_URL',
    group: 'cli',
    format: 'a URL',
    defaultText: '`http://localhost:8080`',
    description: 'Base URL the `npm run loupe` client talks to; `--url` overrides it.',
  },
  {
    name: 'LOUPE_API_KEY',
    group: 'cli',
    requiredWhen: 'you run `npm run loupe` without `--key`',
    description: 'API key of the `npm run loupe` client; never printed.',
  },
  {
    name: 'NODE_EXTRA_CA_CERTS',
    group: 'node',
    format: 'a path to a PEM file',
    requiredWhen: 'outbound `https` fetches must trust a private certificate authority',
    description: 'Read by Node.js itself: certificate authorities trusted in addition to the system\'s. TLS verification is never turned off.',
  },
];

export type Env = z.infer<typeof envSchema>;

/** One variable as the configuration reference lists it: every cell already written out. */
export interface DocumentedVariable {
  name: string;
  group: VariableGroup;
  /** The default, in backticks when it is a literal value; undefined when there is none. */
  default: string | undefined;
  /** The values allowed. */
  values: string;
  /** When the variable must be set; undefined when never. */
  requiredWhen: string | undefined;
  description: string;
}

const valuesOf = (name: string, property: Record<string, unknown>, format: string | undefined): string => {
  if (format) return format;
  if (Array.isArray(property.enum)) return `one of ${property.enum.map((v) => `\`${String(v)}\``).join(', ')}`;
  if (property.type === 'integer' || property.type === 'number') {
    const min = typeof property.minimum === 'number' ? property.minimum : undefined;
    const max = typeof property.maximum === 'number' && property.maximum < Number.MAX_SAFE_INTEGER ? property.maximum : undefined;
    const kind = property.type === 'integer' ? 'an integer' : 'a number';
    if (min !== undefined && max !== undefined) return `${kind}, ${min} to ${max}`;
    if (min !== undefined) return `${kind}, at least ${min}`;
    if (max !== undefined) return `${kind}, at most ${max}`;
    return kind;
  }
  if (typeof property.minLength === 'number' && property.minLength > 1) return `text of at least ${property.minLength} characters`;
  if (property.pattern || property.format) throw new Error(`${name}: give its format in words (doc({ format }))`);
  return 'text';
};

/**
 * Every variable of the configuration reference, in group order: those of `envSchema` (default and allowed values read
 * from the schema itself, words from its metadata), then `otherVariables`. Throws when a variable has no documentation.
 */
export function documentedVariables(): DocumentedVariable[] {
  const json = z.toJSONSchema(envSchema, { io: 'input', unrepresentable: 'any' }) as { properties: Record<string, Record<string, unknown>> };
  const fromSchema = Object.entries(envSchema.shape).map(([name, field]): DocumentedVariable => {
    const meta = z.globalRegistry.get(field) as Partial<VariableDoc> | undefined;
    if (!meta?.description || !meta.group) throw new Error(`${name}: no description or group in envSchema (doc(schema, { group, description }))`);
    const parsed = field.safeParse(undefined);
    const literal = parsed.success && parsed.data !== undefined ? `\`${String(parsed.data)}\`` : undefined;
    return {
      name,
      group: meta.group,
      default: literal ?? meta.defaultText,
      values: valuesOf(name, json.properties[name] ?? {}, meta.format),
      requiredWhen: meta.requiredWhen,
      description: meta.description,
    };
  });
  const others = otherVariables.map((v): DocumentedVariable => ({
    name: v.name,
    group: v.group,
    default: v.defaultText,
    values: v.format ?? 'text',
    requiredWhen: v.requiredWhen,
    description: v.description,
  }));
  const order = Object.keys(variableGroups);
  return [...fromSchema, ...others].sort((a, b) => order.indexOf(a.group) - order.indexOf(b.group));
}

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
  /** CPU priority of the in-process worker's connections to the embedded PostgreSQL (WORKER_DB_NICE; 0: unchanged). */
  workerDbNice: number;
  /** Share of the time the in-process worker may work while interactive requests are answered (WORKER_BUSY_SHARE; 1: no rest). */
  workerBusyShare: number;
  dbPoolSize: number;
  fetchAllowLoopback: boolean;
  /** Where attachments live: the local disk (DATA_DIR/attachments) or an S3-compatible bucket (STORAGE_URL). */
  storage: { url: string | undefined; endpoint: string | undefined; region: string; forcePathStyle: boolean };
  /** Seed the demo workspace on a first start (LOUPE_DEMO; by default only on the embedded database). */
  demo: boolean;
  /** CONNECTIONS_KEY as given (libs/connectors parses it); undefined: the development key kept in the database. */
  connectionsKey: string | undefined;
  shutdownTimeoutMs: number;
  /** How long readiness is off before the server stops accepting on shutdown (SHUTDOWN_DRAIN_MS). */
  shutdownDrainMs: number;
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
  replies: { domain: string; smtp: { host: string; port: number; maxBytes: number } | undefined; webhookSecret: string | undefined } | undefined;
  /** OpenID Connect identity providers offered on the sign-in page (spec 5.2 rule 1); [] without OIDC_PROVIDERS. */
  identityProviders: IdentityProviderConfig[];
  /** An OpenAI-compatible embeddings endpoint (EMBEDDINGS_URL); undefined: the built-in word vectors. */
  embeddings: EmbeddingsConfig | undefined;
}

/** The embedding provider, as libs/semantics' RemoteEmbeddingsOptions takes it. */
export interface EmbeddingsConfig {
  url: string;
  model: string;
  apiKey: string | undefined;
  batchSize: number;
  requestsPerMinute: number | undefined;
  timeoutMs: number;
  retries: number;
  backoffMs: number;
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
  if (e.EMBEDDINGS_URL && !e.EMBEDDINGS_MODEL) {
    throw new ConfigError('Invalid configuration:\n  EMBEDDINGS_MODEL: required when EMBEDDINGS_URL is set (the model the endpoint is asked for)');
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
    workerDbNice: e.WORKER_DB_NICE,
    workerBusyShare: e.WORKER_BUSY_SHARE,
    dbPoolSize: e.DB_POOL_SIZE,
    fetchAllowLoopback: e.FETCH_ALLOW_LOOPBACK,
    demo: e.LOUPE_DEMO ?? !e.DATABASE_URL,
    storage: { url: e.STORAGE_URL, endpoint: e.S3_ENDPOINT, region: e.S3_REGION, forcePathStyle: e.S3_FORCE_PATH_STYLE },
    connectionsKey: e.CONNECTIONS_KEY,
    shutdownTimeoutMs: e.SHUTDOWN_TIMEOUT_MS,
    shutdownDrainMs: e.SHUTDOWN_DRAIN_MS ?? (servesOthers({ host: e.HOST, publicBaseUrl: e.PUBLIC_BASE_URL }) ? 5_000 : 0),
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
        smtp: e.INBOUND_SMTP_PORT !== undefined ? { host: e.INBOUND_SMTP_HOST, port: e.INBOUND_SMTP_PORT, maxBytes: e.INBOUND_MAIL_MAX_MB * 1024 * 1024 } : undefined,
        webhookSecret: e.INBOUND_MAIL_SECRET,
      }
      : undefined,
    trustedProxies: e.TRUSTED_PROXIES.split(',').map((p) => p.trim()).join(', '),
    identityProviders: identityProviders(present),
    embeddings: e.EMBEDDINGS_URL && e.EMBEDDINGS_MODEL
      ? {
        url: e.EMBEDDINGS_URL, model: e.EMBEDDINGS_MODEL, apiKey: e.EMBEDDINGS_API_KEY, batchSize: e.EMBEDDINGS_BATCH_SIZE,
        requestsPerMinute: e.EMBEDDINGS_REQUESTS_PER_MINUTE, timeoutMs: e.EMBEDDINGS_TIMEOUT_MS, retries: 5, backoffMs: 500,
      }
      : undefined,
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

export { productionWarnings, servesOthers, type ProductionWarning } from './production-check';
