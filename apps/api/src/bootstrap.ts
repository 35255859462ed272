import { pruneAuditEvents } from './audit/retention';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { logIdsOptions } from '@svc/observability';
import pino, { type Logger } from 'pino';
import { createDb, migrate, type DbHandle } from '@svc/db';
import type { Config } from './config';
import type { AppDeps } from './deps';
import { loadSigningKeys } from './auth/keys';
import { TokenService } from './auth/tokens';
import { templateDescriptionCache, toolInputYamlCache, verifiedTokenCache } from './caches';
import { ToolInputYaml } from './wire/logs';
import { createStorage } from './services/storage';
import { ClusterFanout, EventStore, eventsSince, LocalFanout, type EventFanout } from './events';
import { LocalBus, type ClusterBus } from './cluster/bus';
import { PgBus } from './cluster/pg-bus';
import { createLiveServices, type LiveServices } from './live-services';
import type { Steering } from './workflows';
import type { TemplateCatalog } from './services/templates';
import { GitTemplateCatalog } from './services/template-repo';
import { HotReads } from './reads/hot-reads';
import { pageCache, type PageCache } from './reads/page-cache';
import { AppLinks } from './apps/app-link';
import { ServingState } from './http/serving';
import { StreamSlots } from './http/stream-slots';
import { RenderPool } from './http/render-pool';
import { createSecrets } from './secrets';
import { SecretKeyring } from './secrets/keyring';
import { ForgeSync } from './forges/sync';
import { Outbox } from './outbox';
import { pruneDeliveryLogs } from './outbox/retention';
import { createNotifications, NOTIFICATIONS_CONSUMER, NOTIFIED_EVENT_TYPES } from './notifications';

export const VERSION: string = JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')).version;

export interface Runtime {
  deps: AppDeps;
  dbHandle: DbHandle;
  /** Worker dispatch, update storage and timers (the WebSockets attach to these). */
  live: LiveServices;
  /** How this replica talks to the others (PostgreSQL LISTEN/NOTIFY; nothing on SQLite). */
  bus: ClusterBus;
  close(): Promise<void>;
}

/** Migrates the database and builds the app's dependencies (used by main and by tests). */
/** Replacements for parts owned by other components (tests record dispatch calls, use a local template catalog). */
export interface RuntimeOptions {
  steering?: Steering;
  templates?: TemplateCatalog;
  pages?: PageCache;
}

/** Migrates the database and builds the app's dependencies (used by main and by tests). */
export async function buildRuntime(
  config: Config,
  logger: Logger = pino({ level: config.logLevel, ...logIdsOptions }),
  options: RuntimeOptions = {},
): Promise<Runtime> {
  // The key first: an unusable JWT_PRIVATE_KEY refuses start-up before the database is touched.
  const keys = await loadSigningKeys(config.jwt.privateKeyPath, config.dataDir);
  const secretsKeyring = SecretKeyring.open(config.secrets.keyFile);
  const migration = await migrate(config.databaseUrl);
  if (migration.applied.length) logger.info({ applied: migration.applied }, 'database migrated');
  logger.info({ replica: config.replicaId }, 'replica');
  const dbHandle = await createDb({
    url: config.databaseUrl,
    poolSize: config.databasePoolSize,
    connectTimeoutMs: config.databaseConnectTimeoutMs,
  });
  // SQLite is one process: in-process delivery only. PostgreSQL may have any number of replicas.
  const bus: ClusterBus =
    dbHandle.provider === 'postgresql'
      ? await PgBus.connect(config.databaseUrl, config.replicaId, logger)
      : new LocalBus(config.replicaId);
  const { issuer, audience } = config.jwt;
  const tokens = new TokenService({ keys, db: dbHandle.db, issuer, audience, verified: verifiedTokenCache(), bus });
  const fanout: EventFanout = bus.shared
    ? new ClusterFanout(bus, (ref, after, limit) => eventsSince(dbHandle.db, ref, after, limit), logger)
    : new LocalFanout();
  // The outbox's rows commit with the events that cause them; its consumers register in createLiveServices.
  const outbox = new Outbox({
    db: dbHandle.db,
    pgPool: dbHandle.pgPool,
    reader: dbHandle.reader,
    provider: dbHandle.provider,
    logger,
    replicaId: config.replicaId,
    publicUrl: () => config.publicUrl,
    settings: config.outbox,
    bus,
  });
  const events = new EventStore({
    db: dbHandle.db,
    provider: dbHandle.provider,
    fanout,
    sqliteWriter: dbHandle.sqliteWriter,
    pgPool: dbHandle.pgPool,
    outbox,
  });
  // Clones or fetches in the background: start-up never waits for the template repository.
  const gitTemplates = options.templates
    ? null
    : new GitTemplateCatalog(config.templates, logger, templateDescriptionCache());
  gitTemplates?.syncInBackground();
  const templates = options.templates ?? gitTemplates!;
  const storage = createStorage(config);
  const appLinks = new AppLinks(config);
  const secrets = createSecrets({
    keyring: secretsKeyring,
    db: dbHandle.db,
    reader: dbHandle.reader,
    provider: dbHandle.provider,
    templates,
    logger,
    bus,
  });
  const live = createLiveServices({
    db: dbHandle.db,
    provider: dbHandle.provider,
    pgPool: dbHandle.pgPool,
    reader: dbHandle.reader,
    events,
    templates,
    storage,
    logger,
    config,
    appLinks,
    bus,
    secrets: secrets.runs,
    steering: options.steering,
    outbox,
    keyring: secretsKeyring,
  });
  // Also in the background: upload temp files left by a crash are removed once they are stale.
  void storage.sweepStaleUploads().then(
    (removed) => removed && logger.info({ removed }, 'removed stale upload temp files'),
    (error: unknown) => logger.warn({ err: error }, 'sweeping upload temp files failed'),
  );
  // The forge side of runs with a repository (decision 0047): PRs, statuses, comments.
  const forgeSync = new ForgeSync({
    db: dbHandle.db,
    reader: dbHandle.reader,
    provider: dbHandle.provider,
    events,
    repositorySecrets: secrets.repositories,
    storage,
    runSecrets: secrets.runs,
    logger: logger.child({ component: 'forges' }),
    publicUrl: () => config.publicUrl,
    sweepMs: config.forges.sweepSeconds * 1000,
    allowPrivateTargets: () => config.webhooks.allowPrivateTargets,
    prune: async () => {
      await pruneDeliveryLogs(dbHandle.db, config.webhooks.logRetentionDays);
      await pruneAuditEvents(dbHandle.db, config.audit.retentionDays);
    },
  });
  const notifications = createNotifications({
    db: dbHandle.db,
    reader: dbHandle.reader,
    provider: dbHandle.provider,
    keyring: secretsKeyring,
    config,
    logger,
  });
  // Before live.start() starts the outbox: e-mail and chat notifications of run events (decision 0045).
  outbox.register(
    NOTIFICATIONS_CONSUMER,
    (event, batch) => notifications.notifier.handle(event, batch),
    NOTIFIED_EVENT_TYPES,
  );
  const deps: AppDeps = {
    config,
    db: dbHandle.db,
    dbProvider: dbHandle.provider,
    reads: new HotReads(dbHandle.reader, dbHandle.provider, appLinks, new ToolInputYaml(toolInputYamlCache())),
    pages: options.pages ?? pageCache(),
    logger,
    keys,
    tokens,
    events,
    workflows: live.workflows,
    schedules: live.schedules,
    templates,
    storage,
    secrets,
    webhooks: live.webhooks,
    streams: new StreamSlots(config.streams),
    serving: new ServingState(),
    markdown: { maxRenderedBytes: config.markdown.maxRenderedBytes, pool: new RenderPool(config.markdown) },
    version: VERSION,
    forgeSync,
    notifications,
  };
  live.start();
  forgeSync.start(live.engine);
  return {
    deps,
    dbHandle,
    live,
    bus,
    close: async () => {
      await forgeSync.close();
      await live.close();
      secrets.close();
      notifications.close();
      await bus.close();
      await gitTemplates?.idle();
      await dbHandle.close();
      storage.close();
    },
  };
}
