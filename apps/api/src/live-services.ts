import type pg from 'pg';
import type { Logger } from 'pino';
import type { Db, DbProvider } from '@svc/db';
import { backfillAppKeys, type AppLinks } from './apps/app-link';
import type { Config } from './config';
import { on, type ClusterBus } from './cluster/bus';
import { LiveDispatcher } from './dispatch/dispatcher';
import { WorkerLiveness } from './dispatch/liveness';
import { WorkerRegistry } from './dispatch/registry';
import type { EventStore } from './events';
import { IngestLock } from './ingest/ingest-lock';
import { IngestSql } from './ingest/sql';
import { UpdateIngest } from './ingest/update-ingest';
import { IngestWorkflows } from './ingest/workflows';
import { LlmDetailRetention } from './ingest/detail-retention';
import { BackgroundWork } from './lib/background-work';
import type { Storage } from './services/storage';
import type { TemplateCatalog } from './services/templates';
import { TimerScheduler } from './timers/scheduler';
import { WorkflowLifecycle, WorkflowTransitions, type Steering } from './workflows';

/** Dispatch, update storage, timers and the workflow lifecycle: what REST and the worker socket share. */
export interface LiveServices {
  registry: WorkerRegistry;
  dispatcher: LiveDispatcher;
  ingest: UpdateIngest;
  timers: TimerScheduler;
  workflows: WorkflowLifecycle;
  /** fire-and-forget work that shutdown waits for */
  background: BackgroundWork;
  /** the other API replicas */
  bus: ClusterBus;
  config: Config;
  /** prunes LLM call details past `llm_detail_retention_days` */
  detailRetention: LlmDetailRetention;
  /** Starts the timer scheduler and the worker liveness sweep. */
  start(): void;
  /** Stops them and waits for updates in flight to be stored. */
  close(): Promise<void>;
}

export interface LiveServicesDeps {
  db: Db;
  provider: DbProvider;
  /** PostgreSQL: the pool Prisma runs on (the ingest writes its batches through it); null on SQLite */
  pgPool: pg.Pool | null;
  events: EventStore;
  templates: TemplateCatalog;
  storage: Storage;
  logger: Logger;
  config: Config;
  /** the built apps' links (the dispatches carry them) */
  appLinks: AppLinks;
  /** the other API replicas (LocalBus on one process) */
  bus: ClusterBus;
  /** replaces the dispatcher as what the lifecycle steers (tests record the calls) */
  steering?: Steering;
}

/** Builds the live services in dependency order; every dependency is passed to a constructor. */
export function createLiveServices(deps: LiveServicesDeps): LiveServices {
  const { db, provider, events, config, bus } = deps;
  const logger = deps.logger.child({ component: 'dispatch' });
  const lock = new IngestLock();
  const background = new BackgroundWork((err) => logger.error({ err }, 'background work failed'));
  const transitions = new WorkflowTransitions({ db, events });
  const registry = new WorkerRegistry({ db, events, logger, background, replicaId: bus.replicaId });
  const assignments = new IngestWorkflows(db, new IngestSql(provider), (ids) =>
    bus.publish({ type: 'forget', workflow_ids: ids }),
  );
  const dispatcher = new LiveDispatcher({
    db,
    appLinks: deps.appLinks,
    logger,
    registry,
    lock,
    transitions,
    assignments,
    bus,
  });
  const ingest = new UpdateIngest({
    db,
    provider,
    events,
    transitions,
    logger,
    lock,
    workflows: assignments,
    listener: dispatcher,
    pgPool: deps.pgPool,
  });
  const stopForgetting = on(bus, 'forget', (m) => ingest.forgetCached(m.workflow_ids));
  const timers = new TimerScheduler({ db, logger, target: dispatcher, bus });
  const workflows = new WorkflowLifecycle({
    db,
    events,
    transitions,
    steering: deps.steering ?? dispatcher,
    timers,
    templates: deps.templates,
    storage: deps.storage,
    logger: deps.logger,
    planRevised: (id) => assignments.forget([id]),
  });
  const liveness = new WorkerLiveness({
    db,
    registry,
    dispatcher,
    logger,
    offlineAfterSeconds: config.workers.offlineAfterSeconds,
    leaseSeconds: config.workers.leaseSeconds,
  });

  const detailRetention = new LlmDetailRetention(db, logger);
  let closing = false;

  return {
    registry,
    dispatcher,
    ingest,
    timers,
    workflows,
    background,
    bus,
    config,
    detailRetention,
    start() {
      timers.start();
      liveness.start();
      detailRetention.start();
      dispatcher.kick();
      background.run(
        backfillAppKeys(db, () => closing).then(
          (count) => count > 0 && logger.info({ count }, 'gave workflows made before app links their app key'),
          (err: unknown) => logger.warn({ err }, 'app key backfill failed; it runs again at the next start'),
        ),
      );
    },
    async close() {
      closing = true;
      stopForgetting();
      await detailRetention.stop();
      await liveness.stop();
      await timers.stop();
      await background.settle();
      await ingest.flush();
      await dispatcher.close();
      await background.settle();
    },
  };
}
