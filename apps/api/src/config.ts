import { availableParallelism } from 'node:os';
import { resolve, join } from 'node:path';
import { defaultReplicaId } from './cluster/replica-id';
import { EnvSchema, type Env } from './env';
import { AdminList, AdminListError } from './auth/admins';
import type { S3Settings } from './services/storage/s3-objects';
import { defaultStreamsMax } from './http/stream-slots';
import { OTEL_ENV_NAMES, tracingSettings, TracingSettingsError, type OtelEnv } from '@svc/observability';

export interface OAuthProviderConfig {
  authorizeUrl: string;
  tokenUrl: string;
  userInfoUrl: string;
  clientId: string;
  clientSecret: string;
  scopes: string[];
  pkce: boolean;
}

export interface NotificationSettings {
  /** SMTP_URL; null: e-mail is off */
  smtpUrl: string | null;
  mailFrom: string;
  throttlePerRunHour: number;
  answerLinkTtlMs: number;
}

export interface Config {
  env: Env['NODE_ENV'];
  host: string;
  port: number;
  publicUrl: string;
  /** APP_ORIGIN: where the built apps' capability links point (null: publicUrl); no trailing `/` */
  appOrigin: string | null;
  dataDir: string;
  /** DATA_DIR_MIN_FREE_MB in bytes: less free space on DATA_DIR's file system is a full disk (health) */
  dataDirMinFreeBytes: number;
  databaseUrl: string;
  databasePoolSize: number;
  /** PostgreSQL: how long a query waits for a connection before it answers 503 */
  databaseConnectTimeoutMs: number;
  /** this replica's id on the cluster bus (PostgreSQL LISTEN/NOTIFY) */
  replicaId: string;
  logLevel: Env['LOG_LEVEL'];
  webDistDir: string | null;
  webAppUrl: string;
  allowedOrigins: string[];
  adminUsers: AdminList;
  auth: { provider: Env['AUTH_PROVIDER']; oauth2: OAuthProviderConfig | null; sso: OAuthProviderConfig | null };
  jwt: { privateKeyPath: string | null; issuer: string; audience: string; sessionTtlSeconds: number };
  /** the keyring file secrets are encrypted with (apps/api/src/secrets/keyring.ts) */
  secrets: { keyFile: string };
  /** the forge side of repositories (decision 0047) */
  forges: { sweepSeconds: number };
  /** `s3` null: workspaces and object storage on the local disk under dataDir */
  /** `commandOutputMaxBytes`: bytes of one command's whole output kept (decision 0073) */
  storage: {
    maxUploadBytes: number;
    commandOutputMaxBytes: number;
    backend: Env['STORAGE_BACKEND'];
    s3: S3Settings | null;
  };
  templates: { repoUrl: string | null; localPath: string };
  kbEmbeddings: { url: string; model: string; apiKey: string | null } | null;
  workers: {
    heartbeatSeconds: number;
    offlineAfterSeconds: number;
    /** how long a disconnected worker keeps its workflows (0: they go back to the queue at once) */
    leaseSeconds: number;
    /** the runs go back this long after the lease: the worker's own fence comes first (decision 0062) */
    leaseMarginSeconds: number;
  };
  http: HttpLimits;
  /** SIGTERM (decision 0061): readiness fails for `delayMs`, then what is in flight has `graceMs` to finish */
  shutdown: { delayMs: number; graceMs: number };
  sockets: { browser: MessageRate; worker: MessageRate };
  /** Server-Sent Events: heartbeat comments keep proxies from closing idle streams */
  sse: { heartbeatMs: number };
  /** open event streams (SSE and browser sockets) per caller and in all, on this process */
  streams: { perUser: number; max: number };
  markdown: MarkdownLimits;
  /** server processes on this host (apps/api/src/cluster/primary.ts); more than 1 only on PostgreSQL */
  processes: number;
  /** Prometheus metrics (decision 0050): the bearer token of `GET /metrics`, the separate listener */
  metrics: { token: string | null; listen: { host: string; port: number } | null };
  /** OpenTelemetry traces (decision 0051): the OTEL_* variables the on rule and the sampler read */
  tracing: OtelEnv;
  /** the outbox of public run events (apps/api/src/outbox) */
  outbox: { pollMs: number; idlePollMs: number; leaseSeconds: number; retryBaseMs: number };
  /** outbound webhooks (apps/api/src/webhooks) */
  webhooks: {
    retryBaseMs: number;
    retryHours: number;
    timeoutMs: number;
    allowPrivateTargets: boolean;
    /** WEBHOOK_LOG_RETENTION_DAYS: the delivery logs' retention (decision 0048) */
    logRetentionDays: number;
  };
  /** e-mail and chat notifications (decision 0045) */
  notifications: NotificationSettings;
  /** AUDIT_RETENTION_DAYS: days audit events are kept, 0 forever (decision 0049) */
  audit: { retentionDays: number };
}

/** Express `trust proxy` value: which hops' X-Forwarded-* headers count. */
export type TrustProxy = boolean | number | string[];

export interface HttpLimits {
  trustProxy: TrustProxy;
  /** a request's headers must arrive within this */
  headersTimeoutMs: number;
  /** a request body that sends nothing for this long is cut with 408 */
  bodyTimeoutMs: number;
  /** an idle keep-alive connection is closed after this */
  keepAliveTimeoutMs: number;
  /** a body bringing less than `bytesPerSecond` over a window of `graceMs` is cut with 408 (0: off) */
  bodyMinRate: { bytesPerSecond: number; graceMs: number };
}

/** Markdown rendering: larger files are shown as text; renders run on `threads` with `queue` waiting at most. */
export interface MarkdownLimits {
  maxRenderedBytes: number;
  threads: number;
  queue: number;
}

/** Token bucket of one WebSocket: `perSecond` refill, `burst` capacity. */
export interface MessageRate {
  perSecond: number;
  burst: number;
}

export class ConfigError extends Error {}

/** The OTEL_* variables, checked now (decision 0051): a value svc cannot honour stops the start. */
function tracingEnv(env: Env): OtelEnv {
  const otel = Object.fromEntries(OTEL_ENV_NAMES.map((name) => [name, env[name]])) as OtelEnv;
  try {
    tracingSettings(otel);
  } catch (error) {
    if (error instanceof TracingSettingsError) throw new ConfigError(error.message);
    throw error;
  }
  return otel;
}

const list = (value: string) =>
  value
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

function oauthConfig(kind: string, values: (string | undefined)[], scopes: string, pkce: boolean): OAuthProviderConfig {
  const [authorizeUrl, tokenUrl, userInfoUrl, clientId, clientSecret] = values;
  if (!authorizeUrl || !tokenUrl || !userInfoUrl || !clientId || !clientSecret) {
    throw new ConfigError(
      `AUTH_PROVIDER=${kind} needs its authorize, token and user-info URLs, client id/key and secret`,
    );
  }
  return {
    authorizeUrl,
    tokenUrl,
    userInfoUrl,
    clientId,
    clientSecret,
    scopes: scopes.split(/[\s,]+/).filter(Boolean),
    pkce,
  };
}

function adminList(value: string): AdminList {
  try {
    return AdminList.parse(value);
  } catch (error) {
    if (error instanceof AdminListError) throw new ConfigError(error.message);
    throw error;
  }
}

/** Turns the parsed environment into the server's config; throws ConfigError on inconsistent settings. */
export function buildConfig(env: Env): Config {
  if (env.AUTH_PROVIDER === 'dev' && env.NODE_ENV === 'production') {
    throw new ConfigError('AUTH_PROVIDER=dev is refused when NODE_ENV=production');
  }
  const dataDir = resolve(env.DATA_DIR);
  const databaseUrl = env.DATABASE_URL ?? `file:${join(dataDir, 'svc.db')}`;
  return {
    env: env.NODE_ENV,
    host: env.HOST,
    port: env.PORT,
    publicUrl: publicUrlOf(env),
    appOrigin: env.APP_ORIGIN?.replace(/\/$/, '') ?? null,
    dataDir,
    dataDirMinFreeBytes: env.DATA_DIR_MIN_FREE_MB * 1024 * 1024,
    databaseUrl,
    databasePoolSize: env.DATABASE_POOL_SIZE,
    databaseConnectTimeoutMs: env.DATABASE_CONNECT_TIMEOUT_SECONDS * 1000,
    replicaId: env.REPLICA_ID ?? defaultReplicaId(),
    logLevel: env.LOG_LEVEL,
    webDistDir: env.WEB_DIST_DIR ? resolve(env.WEB_DIST_DIR) : null,
    webAppUrl: env.WEB_APP_URL,
    allowedOrigins: list(env.ALLOWED_ORIGINS),
    adminUsers: adminList(env.ADMIN_USERS),
    auth: authConfig(env),
    jwt: {
      privateKeyPath: env.JWT_PRIVATE_KEY ? resolve(env.JWT_PRIVATE_KEY) : null,
      issuer: env.SVC_ISSUER,
      audience: env.SVC_AUDIENCE,
      sessionTtlSeconds: env.SESSION_TTL_SECONDS,
    },
    secrets: { keyFile: secretsKeyFile(env, dataDir) },
    forges: { sweepSeconds: env.FORGE_SWEEP_SECONDS },
    storage: storageConfig(env),
    templates: templatesConfig(env, dataDir),
    kbEmbeddings: kbEmbeddingsConfig(env),
    workers: {
      heartbeatSeconds: env.WORKER_HEARTBEAT_SECONDS,
      offlineAfterSeconds: env.WORKER_OFFLINE_AFTER_SECONDS,
      leaseSeconds: env.WORKER_LEASE_SECONDS,
      leaseMarginSeconds: env.WORKER_LEASE_MARGIN_SECONDS,
    },
    http: {
      trustProxy: parseTrustProxy(env.TRUST_PROXY),
      headersTimeoutMs: env.HTTP_HEADERS_TIMEOUT_MS,
      bodyTimeoutMs: env.HTTP_BODY_TIMEOUT_MS,
      keepAliveTimeoutMs: env.HTTP_KEEP_ALIVE_TIMEOUT_MS,
      bodyMinRate: { bytesPerSecond: env.HTTP_BODY_MIN_BYTES_PER_SECOND, graceMs: env.HTTP_BODY_MIN_RATE_GRACE_MS },
    },
    shutdown: {
      delayMs: Math.round(env.SHUTDOWN_DELAY_SECONDS * 1000),
      graceMs: Math.round(env.SHUTDOWN_GRACE_SECONDS * 1000),
    },
    sockets: {
      browser: { perSecond: env.WS_BROWSER_MESSAGES_PER_SECOND, burst: env.WS_BROWSER_MESSAGE_BURST },
      worker: { perSecond: env.WS_WORKER_MESSAGES_PER_SECOND, burst: env.WS_WORKER_MESSAGE_BURST },
    },
    sse: { heartbeatMs: Math.round(env.SSE_HEARTBEAT_SECONDS * 1000) },
    streams: { perUser: env.EVENT_STREAMS_PER_USER, max: env.EVENT_STREAMS_MAX || defaultStreamsMax() },
    markdown: {
      maxRenderedBytes: env.MARKDOWN_RENDER_MAX_BYTES,
      threads: env.MARKDOWN_RENDER_THREADS,
      queue: env.MARKDOWN_RENDER_QUEUE,
    },
    processes: processCount(env.API_PROCESSES, databaseUrl),
    metrics: metricsSettings(env),
    tracing: tracingEnv(env),
    outbox: {
      pollMs: env.OUTBOX_POLL_MS,
      idlePollMs: Math.max(env.OUTBOX_POLL_MS, env.OUTBOX_IDLE_POLL_MS),
      leaseSeconds: env.OUTBOX_LEASE_SECONDS,
      retryBaseMs: env.OUTBOX_RETRY_BASE_MS,
    },
    webhooks: {
      retryBaseMs: env.WEBHOOK_RETRY_BASE_MS,
      retryHours: env.WEBHOOK_RETRY_HOURS,
      timeoutMs: env.WEBHOOK_TIMEOUT_MS,
      allowPrivateTargets: env.WEBHOOK_ALLOW_PRIVATE_TARGETS,
      logRetentionDays: env.WEBHOOK_LOG_RETENTION_DAYS,
    },
    notifications: notificationsConfig(env),
    audit: { retentionDays: env.AUDIT_RETENTION_DAYS },
  };
}

/** E-mail and chat notifications (decision 0045); no SMTP_URL: no e-mail. */
const notificationsConfig = (env: Env): NotificationSettings => ({
  smtpUrl: env.SMTP_URL ?? null,
  mailFrom: env.MAIL_FROM,
  throttlePerRunHour: env.NOTIFY_THROTTLE_PER_RUN_HOUR,
  answerLinkTtlMs: Math.round(env.ANSWER_LINK_TTL_HOURS * 3600_000),
});

/** SECRETS_KEY_FILE, or the keyring generated under the data directory. */
const secretsKeyFile = (env: Env, dataDir: string) =>
  env.SECRETS_KEY_FILE ? resolve(env.SECRETS_KEY_FILE) : join(dataDir, 'keys', 'secrets.key');

function authConfig(env: Env): Config['auth'] {
  return {
    provider: env.AUTH_PROVIDER,
    oauth2:
      env.AUTH_PROVIDER === 'oauth2'
        ? oauthConfig(
            'oauth2',
            [
              env.OAUTH_AUTHORIZE_URL,
              env.OAUTH_TOKEN_URL,
              env.OAUTH_USERINFO_URL,
              env.OAUTH_CLIENT_ID,
              env.OAUTH_CLIENT_SECRET,
            ],
            env.OAUTH_SCOPES,
            env.OAUTH_PKCE,
          )
        : null,
    sso:
      env.AUTH_PROVIDER === 'sso'
        ? oauthConfig(
            'sso',
            [env.SSO_AUTHORIZE_URL, env.SSO_TOKEN_URL, env.SSO_USERINFO_URL, env.SSO_CLIENT_KEY, env.SSO_CLIENT_SECRET],
            env.SSO_SCOPES,
            env.OAUTH_PKCE,
          )
        : null,
  };
}

function templatesConfig(env: Env, dataDir: string): Config['templates'] {
  return {
    repoUrl: env.TEMPLATE_REPO_URL ?? null,
    localPath: resolve(env.TEMPLATE_LOCAL_PATH ?? join(dataDir, 'templates')),
  };
}

function kbEmbeddingsConfig(env: Env): Config['kbEmbeddings'] {
  if (!env.KB_EMBEDDINGS_URL) return null;
  return { url: env.KB_EMBEDDINGS_URL, model: env.KB_EMBEDDINGS_MODEL, apiKey: env.KB_EMBEDDINGS_API_KEY ?? null };
}

/**
 * PUBLIC_URL without its trailing `/`. Unset, it is the address the server prints on start (HOST and PORT,
 * decision 0072), so the links it makes (built apps, notifications) name what the person opened; bound
 * to all interfaces, no one name is right and it stays `localhost`.
 */
const publicUrlOf = (env: Env) =>
  (env.PUBLIC_URL ?? `http://${browserHostOf(env.HOST)}:${env.PORT}`).replace(/\/$/, '');

const browserHostOf = (host: string): string => {
  if (host === '0.0.0.0' || host === '::' || host === '') return 'localhost';
  return host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
};

/** S3 can copy an object of at most 5 GiB in one request (a staged multipart upload is copied into place). */
const S3_MAX_COPY_BYTES = 5 * 1024 ** 3;

function storageConfig(env: Env): Config['storage'] {
  const common = {
    maxUploadBytes: env.STORAGE_MAX_UPLOAD_BYTES,
    commandOutputMaxBytes: env.COMMAND_OUTPUT_MAX_BYTES,
    backend: env.STORAGE_BACKEND,
  };
  if (env.STORAGE_BACKEND === 'local') return { ...common, s3: null };
  if (!env.S3_BUCKET) throw new ConfigError('STORAGE_BACKEND=s3 needs S3_BUCKET (the bucket must exist)');
  if (Boolean(env.S3_ACCESS_KEY_ID) !== Boolean(env.S3_SECRET_ACCESS_KEY))
    throw new ConfigError(
      'S3_ACCESS_KEY_ID and S3_SECRET_ACCESS_KEY go together (or leave both unset for the AWS default chain)',
    );
  if (env.STORAGE_MAX_UPLOAD_BYTES > S3_MAX_COPY_BYTES)
    throw new ConfigError('STORAGE_BACKEND=s3 allows STORAGE_MAX_UPLOAD_BYTES up to 5 GiB');
  const prefix = s3Prefix(env.S3_PREFIX);
  return {
    ...common,
    s3: {
      endpoint: env.S3_ENDPOINT ?? null,
      region: env.S3_REGION,
      bucket: env.S3_BUCKET,
      accessKeyId: env.S3_ACCESS_KEY_ID ?? null,
      secretAccessKey: env.S3_SECRET_ACCESS_KEY ?? null,
      forcePathStyle: env.S3_FORCE_PATH_STYLE,
      prefix,
    },
  };
}

/** S3_PREFIX without outer slashes, ending in `/` unless empty. */
function s3Prefix(raw: string): string {
  const prefix = raw.replace(/^\/+|\/+$/g, '');
  if (prefix === '') return '';
  if (prefix.split('/').some((segment) => segment === '' || segment === '.' || segment === '..'))
    throw new ConfigError('S3_PREFIX: empty, "." and ".." segments are not allowed');
  return `${prefix}/`;
}

/** `API_PROCESSES`: a count or `auto` (the cores this process may use); SQLite is one process's database. */
function processCount(value: string, databaseUrl: string): number {
  const count = value === 'auto' ? availableParallelism() : Number(value);
  if (count > 1 && databaseUrl.startsWith('file:'))
    throw new ConfigError(
      `API_PROCESSES=${value} (${count} processes) needs PostgreSQL (DATABASE_URL=postgresql://…): SQLite is embedded in one process`,
    );
  return count;
}

/**
 * `TRUST_PROXY` with Express `trust proxy` semantics: `true`/`false`, a hop count (`1`: the nearest
 * proxy), or a comma-separated list of addresses, CIDR ranges and the names `loopback`, `linklocal`,
 * `uniquelocal`. Only the hops it trusts may set X-Forwarded-Proto/-For/-Host.
 */
export function parseTrustProxy(value: string): TrustProxy {
  const text = value.trim().toLowerCase();
  if (text === 'true') return true;
  if (text === 'false' || text === '') return false;
  if (/^\d+$/.test(text)) return Number(text);
  const entries = list(text);
  const name = /^(loopback|linklocal|uniquelocal)$/;
  const address = /^[0-9a-f:.]+(\/\d{1,3})?$/;
  const bad = entries.find((entry) => !name.test(entry) && !address.test(entry));
  if (bad !== undefined)
    throw new ConfigError(`TRUST_PROXY: "${bad}" is not true, false, a hop count, an address or a CIDR range`);
  return entries;
}

/** A config for tests: the defaults plus the given environment overrides. */
export function configFromEnv(overrides: Record<string, string | undefined>): Config {
  return buildConfig(EnvSchema.parse(overrides));
}

const metricsSettings = (env: Env): Config['metrics'] => ({
  token: env.METRICS_TOKEN ?? null,
  listen: listenAddress(env.METRICS_LISTEN),
});

/** `127.0.0.1:9464` or `[::1]:9464` as host and port. */
function listenAddress(value: string | undefined): { host: string; port: number } | null {
  if (!value) return null;
  const at = value.lastIndexOf(':');
  const port = Number(value.slice(at + 1));
  if (port > 65535) throw new ConfigError(`METRICS_LISTEN=${value}: the port must be 0 to 65535`);
  return { host: value.slice(0, at).replace(/^\[(.*)\]$/, '$1'), port };
}
