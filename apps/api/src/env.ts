import { z } from 'zod';

const bool = z.enum(['true', 'false', '1', '0']).transform((v) => v === 'true' || v === '1');
const optionalUrl = z.url().optional();
/** An http(s) URL with nothing after its origin (a trailing `/` is fine). */
const httpOrigin = z
  .url({ protocol: /^https?$/ })
  .refine((v) => /^[^/]+\/\/[^/?#]+\/?$/.test(v), 'must be an http(s) origin such as https://apps.example.com');

/** Every environment variable the server reads; README "Configuration" documents each one. */
export const EnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'production', 'test']).default('development'),
  HOST: z.string().default('127.0.0.1'),
  PORT: z.coerce.number().int().min(0).max(65535).default(8080),
  /** unset (or empty): `http://localhost:<PORT>` */
  PUBLIC_URL: z.preprocess((v) => (v === '' ? undefined : v), z.url().optional()),
  /** origin the built apps' links are made on (`/svc/apps/<key>/`); PUBLIC_URL's when unset */
  APP_ORIGIN: z.preprocess((v) => (v === '' ? undefined : v), httpOrigin.optional()),
  DATA_DIR: z.string().default('./data'),
  /** below this much free space on DATA_DIR's file system, /health reports the disk `full` (status degraded) */
  DATA_DIR_MIN_FREE_MB: z.coerce.number().min(0).default(64),
  DATABASE_URL: z.string().optional(),
  DATABASE_POOL_SIZE: z.coerce.number().int().min(1).max(200).default(10),
  DATABASE_CONNECT_TIMEOUT_SECONDS: z.coerce.number().positive().max(600).default(10),
  /** this API replica's name on the cluster bus; hostname, pid and a random part by default */
  REPLICA_ID: z
    .string()
    .trim()
    .min(1)
    .max(100)
    .regex(/^[\w.:@-]+$/)
    .optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WEB_DIST_DIR: z.string().optional(),
  WEB_APP_URL: z.string().default('/'),
  ALLOWED_ORIGINS: z.string().default(''),
  ADMIN_USERS: z.string().default(''),
  AUTH_PROVIDER: z.enum(['oauth2', 'sso', 'dev']).default('dev'),
  JWT_PRIVATE_KEY: z.string().optional(),
  /** the keyring secrets are encrypted with (default <DATA_DIR>/keys/secrets.key, generated on first start) */
  SECRETS_KEY_FILE: z.string().optional(),
  SVC_ISSUER: z.string().min(1).default('svc'),
  SVC_AUDIENCE: z.string().min(1).default('svc'),
  SESSION_TTL_SECONDS: z.coerce
    .number()
    .int()
    .min(60)
    .default(7 * 24 * 3600),
  OAUTH_AUTHORIZE_URL: optionalUrl,
  OAUTH_TOKEN_URL: optionalUrl,
  OAUTH_USERINFO_URL: optionalUrl,
  OAUTH_CLIENT_ID: z.string().optional(),
  OAUTH_CLIENT_SECRET: z.string().optional(),
  OAUTH_SCOPES: z.string().default('openid profile email'),
  OAUTH_PKCE: bool.default(true),
  SSO_AUTHORIZE_URL: optionalUrl,
  SSO_TOKEN_URL: optionalUrl,
  SSO_USERINFO_URL: optionalUrl,
  SSO_CLIENT_KEY: z.string().optional(),
  SSO_CLIENT_SECRET: z.string().optional(),
  SSO_SCOPES: z.string().default('user_info'),
  STORAGE_MAX_UPLOAD_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(2 * 1024 ** 3),
  /** bytes of one command's whole output kept (decision 0073); past it the head and the tail */
  COMMAND_OUTPUT_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1024)
    .max(1024 ** 3)
    .default(10 * 1024 ** 2),
  STORAGE_BACKEND: z.enum(['local', 's3']).default('local'),
  S3_ENDPOINT: optionalUrl,
  S3_REGION: z.string().min(1).default('us-east-1'),
  S3_BUCKET: z.string().optional(),
  S3_ACCESS_KEY_ID: z.string().optional(),
  S3_SECRET_ACCESS_KEY: z.string().optional(),
  S3_FORCE_PATH_STYLE: bool.default(false),
  S3_PREFIX: z.string().default(''),
  TEMPLATE_REPO_URL: z.string().optional(),
  TEMPLATE_LOCAL_PATH: z.string().optional(),
  KB_EMBEDDINGS_URL: optionalUrl,
  KB_EMBEDDINGS_MODEL: z.string().default('text-embedding-3-small'),
  KB_EMBEDDINGS_API_KEY: z.string().optional(),
  WORKER_HEARTBEAT_SECONDS: z.coerce.number().int().min(1).default(10),
  WORKER_OFFLINE_AFTER_SECONDS: z.coerce.number().int().min(2).default(30),
  WORKER_LEASE_SECONDS: z.coerce.number().int().min(0).default(60),
  /** the server takes a lost worker's runs back this long after its lease, which the worker fences itself by (decision 0062) */
  WORKER_LEASE_MARGIN_SECONDS: z.coerce.number().int().min(0).default(10),
  /** how often each replica looks for forge work missed (PRs, statuses; decision 0047) */
  FORGE_SWEEP_SECONDS: z.coerce.number().min(0.05).max(3600).default(30),
  TRUST_PROXY: z.string().default('loopback'),
  HTTP_HEADERS_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
  HTTP_BODY_TIMEOUT_MS: z.coerce.number().int().min(1).default(30_000),
  HTTP_KEEP_ALIVE_TIMEOUT_MS: z.coerce.number().int().min(1).default(5_000),
  /** at SIGTERM: how long requests, downloads and sockets in flight may take to finish before they are cut */
  SHUTDOWN_GRACE_SECONDS: z.coerce.number().min(0).max(3600).default(30),
  /** at SIGTERM: how long readiness fails (503) while the process still accepts, before it stops accepting */
  SHUTDOWN_DELAY_SECONDS: z.coerce.number().min(0).max(600).default(0),
  /** a request body bringing less than this per second over a window of the grace period is cut (408); 0: off */
  HTTP_BODY_MIN_BYTES_PER_SECOND: z.coerce.number().int().min(0).default(500),
  HTTP_BODY_MIN_RATE_GRACE_MS: z.coerce.number().int().min(1).default(10_000),
  /** markdown larger than this is shown as escaped text instead of being rendered */
  MARKDOWN_RENDER_MAX_BYTES: z.coerce
    .number()
    .int()
    .min(1)
    .default(2 * 1024 ** 2),
  /** worker threads that render markdown, and renders that may wait for one (past it: 503) */
  MARKDOWN_RENDER_THREADS: z.coerce.number().int().min(1).max(64).default(2),
  MARKDOWN_RENDER_QUEUE: z.coerce.number().int().min(0).default(32),
  /** open event streams (SSE and browser sockets) per caller, and in all (0: half the open-file limit) */
  EVENT_STREAMS_PER_USER: z.coerce.number().int().min(1).default(32),
  EVENT_STREAMS_MAX: z.coerce.number().int().min(0).default(0),
  WS_BROWSER_MESSAGES_PER_SECOND: z.coerce.number().positive().default(20),
  WS_BROWSER_MESSAGE_BURST: z.coerce.number().int().min(1).default(200),
  WS_WORKER_MESSAGES_PER_SECOND: z.coerce.number().positive().default(1000),
  WS_WORKER_MESSAGE_BURST: z.coerce.number().int().min(1).default(10_000),
  /** heartbeat comment on Server-Sent Events streams (fractions allowed, for tests) */
  SSE_HEARTBEAT_SECONDS: z.coerce.number().min(0.01).max(3600).default(15),
  /** the mail server notifications are sent through: `smtp://user:pass@host:587` or `smtps://…:465` (unset: no e-mail) */
  SMTP_URL: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z.url({ protocol: /^smtps?$/, error: 'must be an smtp:// or smtps:// URL' }).optional(),
  ),
  /** the From of notification mails */
  MAIL_FROM: z.string().min(3).default('svc <svc@localhost>'),
  /** messages per person, run and channel in a rolling hour; past it they are dropped (final outcomes pass) */
  NOTIFY_THROTTLE_PER_RUN_HOUR: z.coerce.number().int().min(1).max(1000).default(5),
  /** how long a waiting-for-input mail's answer link works */
  ANSWER_LINK_TTL_HOURS: z.coerce
    .number()
    .min(0.01)
    .max(24 * 30)
    .default(72),
  /** server processes on this host (node:cluster, one shared port): a count or `auto` (one per core) */
  API_PROCESSES: z
    .string()
    .regex(/^(auto|[1-9]\d{0,2})$/, 'must be a count from 1 to 999 or auto')
    .default('1'),
  // ---- issue 25: the outbox and outbound webhooks ----
  /** how often each replica looks for outbox work another replica wrote (its own writes wake it at once) */
  OUTBOX_POLL_MS: z.coerce.number().int().min(10).max(60_000).default(1000),
  /**
   * how long an idle replica sleeps when no other replica announced work and nothing is due (a safety net:
   * its own writes, due retries, lease ends and other replicas' events wake it); at least OUTBOX_POLL_MS
   */
  OUTBOX_IDLE_POLL_MS: z.coerce.number().int().min(10).max(3_600_000).default(30_000),
  /** how long a replica holds an outbox event or a webhook delivery it took (a killed replica's work waits this long) */
  OUTBOX_LEASE_SECONDS: z.coerce.number().min(0.1).max(3600).default(60),
  /** first retry delay of a failed outbox consumer; it doubles per attempt, at most 10 minutes */
  OUTBOX_RETRY_BASE_MS: z.coerce.number().int().min(1).default(1000),
  /** first retry delay of a failed webhook delivery; it doubles per attempt, at most 1 hour, for WEBHOOK_RETRY_HOURS */
  WEBHOOK_RETRY_BASE_MS: z.coerce.number().int().min(1).default(30_000),
  /** how long a webhook delivery is retried before it is given up */
  WEBHOOK_RETRY_HOURS: z.coerce
    .number()
    .positive()
    .max(24 * 7)
    .default(24),
  /** time-out of one webhook request (connect, answer and body) */
  WEBHOOK_TIMEOUT_MS: z.coerce.number().int().min(100).max(120_000).default(10_000),
  /** allow webhook targets on loopback, private, link-local and other internal addresses (tests, one-host setups) */
  WEBHOOK_ALLOW_PRIVATE_TARGETS: bool.default(false),
  /** days delivered outbox claims, ended webhook deliveries (the delivery log) and forge deliveries are kept */
  WEBHOOK_LOG_RETENTION_DAYS: z.coerce.number().int().min(1).max(3650).default(30),
  /** days audit events are kept (decision 0049); 0 keeps them forever */
  AUDIT_RETENTION_DAYS: z.coerce.number().int().min(0).max(36500).default(365),
  // ---- issue 26: metrics (decision 0050) ----
  /** a bearer token that opens `GET /metrics` on the API's port (unset or empty: that path is 404) */
  METRICS_TOKEN: z.preprocess((v) => (v === '' ? undefined : v), z.string().min(16).optional()),
  /** `host:port` of a separate listener serving `/metrics` without a token (unset: none) */
  METRICS_LISTEN: z.preprocess(
    (v) => (v === '' ? undefined : v),
    z
      .string()
      .regex(/^(\[[0-9a-fA-F:]+\]|[\w.-]+):\d{1,5}$/, 'must be host:port, e.g. 127.0.0.1:9464')
      .optional(),
  ),
  // ---- issue 26: traces (decisions 0051, 0052); the standard OpenTelemetry variables ----
  /** `otlp` (on) or `none` (off); unset: on when an OTLP endpoint below is set */
  OTEL_TRACES_EXPORTER: z.string().optional(),
  /** the OTLP/HTTP receiver's base URL (`/v1/traces` is added), e.g. http://localhost:4318 */
  OTEL_EXPORTER_OTLP_ENDPOINT: z.string().optional(),
  /** the full traces URL; wins over OTEL_EXPORTER_OTLP_ENDPOINT */
  OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: z.string().optional(),
  /** `true` turns tracing off whatever else is set */
  OTEL_SDK_DISABLED: z.string().optional(),
  /** parentbased_always_on (default), always_on, always_off, traceidratio, parentbased_traceidratio, parentbased_always_off */
  OTEL_TRACES_SAMPLER: z.string().optional(),
  /** the ratio of the traceidratio samplers, 0 to 1 */
  OTEL_TRACES_SAMPLER_ARG: z.string().optional(),
});
export type Env = z.infer<typeof EnvSchema>;

/** Parses the environment; prints every problem and exits non-zero when it is invalid. */
export function readEnv(source: NodeJS.ProcessEnv = process.env): Env {
  const parsed = EnvSchema.safeParse(source);
  if (parsed.success) return parsed.data;
  for (const issue of parsed.error.issues) console.error(`config: ${issue.path.join('.')}: ${issue.message}`);
  process.exit(2);
}
