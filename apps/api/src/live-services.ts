import type pg from 'pg';
import type { Logger } from 'pino';
import type { Db, DbProvider, SqlReader } from '@svc/db';
import { backfillAppKeys, type AppLinks } from './apps/app-link';
import type { Config } from './config';
import type { ClusterBus } from './cluster/bus';
import { fanOutTransitions, forgetStaleRuns, WorkflowEngine } from './engine';
import { LiveDispatcher } from './dispatch/dispatcher';
import { WorkerLiveness } from './dispatch/liveness';
import { WorkerRegistry } from './dispatch/registry';
import { RoutingNotices } from './dispatch/routing-notices';
import type { EventStore } from './events';
import { IngestLock } from './ingest/ingest-lock';
import { IngestSql } from './ingest/sql';
import { UpdateIngest } from './ingest/update-ingest';
import { IngestWorkflows } from './ingest/workflows';
import { SnapshotCache } from './ingest/snapshots';
import { ingestRowCache, snapshotCache } from './caches';
import { LlmDetailRetention } from './ingest/detail-retention';
import { BackgroundWork } from './lib/background-work';
import type { Storage } from './services/storage';
import type { TemplateCatalog } from './services/templates';
import type { RunSecrets } from './secrets/run-secrets';
import { recordPushReports } from './repositories/push-reports';
import type { SecretKeyring } from './secrets/keyring';
import type { Outbox } from './outbox';
import { WebhookService } from './webhooks';
import { TimerScheduler } from './timers/scheduler';
import { ScheduleRunner } from './schedules/runner';
import { isUnfinished, RunBudgets, WorkflowLifecycle, type Steering } from './workflows';

/** Dispatch, update storage, timers and the workflow lifecycle: what REST and the worker socket share. */
export interface LiveServices {
  registry: WorkerRegistry;
  dispatcher: LiveDispatcher;
  ingest: UpdateIngest;
  timers: TimerScheduler;
  /** runs the projects' schedules (one run per tick across replicas) */
  schedules: ScheduleRunner;
  /** the only writer of a run's state */
  engine: WorkflowEngine;
  workflows: WorkflowLifecycle;
  /** fire-and-forget work that shutdown waits for */
  background: BackgroundWork;
  /** the other API replicas */
  bus: ClusterBus;
  config: Config;
  /** prunes LLM call details past `llm_detail_retention_days` */
  detailRetention: LlmDetailRetention;
  /** the durable outbox of public run events; consumers register here before start() (issue 25) */
  outbox: Outbox;
  /** outbound webhooks: the outbox consumer `webhooks` and the delivery runner */
  webhooks: WebhookService;
  /** Starts the timer scheduler, the schedule runner and the worker liveness sweep. */
  start(): void;
  /** Stops them and waits for updates in flight to be stored. */
  close(): Promise<void>;
}

export interface LiveServicesDeps {
  db: Db;
  provider: DbProvider;
  /** PostgreSQL: the pool Prisma runs on (the ingest writes its batches through it); null on SQLite */
  pgPool: pg.Pool | null;
  /** reads on the driver, for the hot paths (Prisma's statements cost ten times the CPU) */
  reader: SqlReader;
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
  /** what each dispatch carries, and the maskers of the runs' updates */
  secrets: RunSecrets;
  /** the outbox the event store writes to (bootstrap builds it before the event store) */
  outbox: Outbox;
  /** the secrets' keyring (webhook signing secrets are sealed with it) */
  keyring: SecretKeyring;
}

/** Builds the live services in dependency order; every dependency is passed to a constructor. */
export function createLiveServices(deps: LiveServicesDeps): LiveServices {
  const { db, provider, events, config, bus } = deps;
  const logger = deps.logger.child({ component: 'dispatch' });
  const lock = new IngestLock();
  const background = new BackgroundWork((err) => logger.error({ err }, 'background work failed'));
  const engine = new WorkflowEngine({ db, provider, events, pgPool: deps.pgPool });
  engine.bus.onError = (err, event) => logger.error({ err, event }, 'engine listener failed');
  const routing = new RoutingNotices({ db, reader: deps.reader, provider, events, logger });
  const registry = new WorkerRegistry({ db, events, logger, background, replicaId: bus.replicaId, routing });
  const assignments = new IngestWorkflows(db, new IngestSql(provider), ingestRowCache());
  const dispatcher = new LiveDispatcher({
    db,
    reader: deps.reader,
    provider,
    appLinks: deps.appLinks,
    logger,
    registry,
    lock,
    engine,
    bus,
    routing,
    secrets: deps.secrets,
  });
  const budgets = new RunBudgets({ db, engine, steering: deps.steering ?? dispatcher, logger });
  const ingest = new UpdateIngest({
    db,
    provider,
    events,
    engine,
    logger,
    lock,
    workflows: assignments,
    snapshots: new SnapshotCache(db, snapshotCache()),
    pgPool: deps.pgPool,
    onLlmCalls: (ids) => budgets.checkIngested(ids),
    onRepository: (reports) => recordPushReports(db, reports),
    maskers: deps.secrets,
  });
  // After-commit effects of every change of a run: browsers, and the row caches of every replica.
  const stopEffects = [
    fanOutTransitions(engine, events),
    forgetStaleRuns(engine, bus, (ids) => ingest.forgetCached(ids)),
  ];
  const timers: TimerScheduler = new TimerScheduler({
    db,
    logger,
    target: {
      timerFired: (workflowId, reason) => dispatcher.timerFired(workflowId, reason),
      // the lifecycle exists by the time the scheduler starts
      questionTimedOut: (workflowId, deadline): Promise<boolean> => workflows.answerByTimeout(workflowId, deadline),
    },
    bus,
  });
  const workflows = new WorkflowLifecycle({
    db,
    events,
    engine,
    steering: deps.steering ?? dispatcher,
    timers,
    templates: deps.templates,
    storage: deps.storage,
    logger: deps.logger,
    budgets,
  });
  const schedules = new ScheduleRunner({ db, logger: deps.logger.child({ component: 'schedules' }), workflows, bus });
  // A finished run may let a run queued behind it (overlap queue_one) be made.
  stopEffects.push(
    engine.bus.on('transitioned', ({ status }) => {
      if (status !== null && !isUnfinished(status)) schedules.runFinished();
    }),
  );
  const liveness = new WorkerLiveness({
    db,
    registry,
    dispatcher,
    logger,
    offlineAfterSeconds: config.workers.offlineAfterSeconds,
    leaseSeconds: config.workers.leaseSeconds,
    leaseMarginSeconds: config.workers.leaseMarginSeconds,
  });

  const detailRetention = new LlmDetailRetention(db, logger);
  const { outbox } = deps;
  const webhooks = new WebhookService({
    db,
    provider,
    reader: deps.reader,
    keyring: deps.keyring,
    logger: deps.logger.child({ component: 'webhooks' }),
    replicaId: bus.replicaId,
    bus,
    settings: {
      ...config.webhooks,
      pollMs: config.outbox.pollMs,
      idlePollMs: config.outbox.idlePollMs,
      leaseSeconds: config.outbox.leaseSeconds,
    },
  });
  outbox.register('webhooks', (event, batch) => webhooks.enqueue(event, batch));
  let closing = false;

  return {
    registry,
    dispatcher,
    ingest,
    timers,
    schedules,
    engine,
    workflows,
    background,
    bus,
    config,
    detailRetention,
    outbox,
    webhooks,
    start() {
      outbox.start();
      webhooks.start();
      timers.start();
      schedules.start();
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
      for (const stop of stopEffects) stop();
      await outbox.stop();
      await webhooks.stop();
      await detailRetention.stop();
      await liveness.stop();
      await timers.stop();
      await schedules.stop();
      await background.settle();
      await ingest.flush();
      await dispatcher.close();
      await routing.close();
      await background.settle();
    },
  };
}
