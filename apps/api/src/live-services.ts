import type { Logger } from 'pino';
import type { Db, DbProvider } from '@svc/db';
import type { Config } from './config';
import { LiveDispatcher } from './dispatch/dispatcher';
import { WorkerLiveness } from './dispatch/liveness';
import { WorkerRegistry } from './dispatch/registry';
import type { EventStore } from './events';
import { IngestLock } from './ingest/ingest-lock';
import { IngestSql } from './ingest/sql';
import { UpdateIngest } from './ingest/update-ingest';
import { IngestWorkflows } from './ingest/workflows';
import { BackgroundWork } from './lib/background-work';
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
  config: Config;
  /** Starts the timer scheduler and the worker liveness sweep. */
  start(): void;
  /** Stops them and waits for updates in flight to be stored. */
  close(): Promise<void>;
}

export interface LiveServicesDeps {
  db: Db;
  provider: DbProvider;
  events: EventStore;
  templates: TemplateCatalog;
  logger: Logger;
  config: Config;
  /** replaces the dispatcher as what the lifecycle steers (tests record the calls) */
  steering?: Steering;
}

/** Builds the live services in dependency order; every dependency is passed to a constructor. */
export function createLiveServices(deps: LiveServicesDeps): LiveServices {
  const { db, provider, events, config } = deps;
  const logger = deps.logger.child({ component: 'dispatch' });
  const lock = new IngestLock();
  const background = new BackgroundWork((err) => logger.error({ err }, 'background work failed'));
  const transitions = new WorkflowTransitions({ db, events });
  const registry = new WorkerRegistry({ db, events, logger, background });
  const assignments = new IngestWorkflows(db, new IngestSql(provider));
  const dispatcher = new LiveDispatcher({ db, logger, registry, lock, transitions, assignments });
  const ingest = new UpdateIngest({
    db,
    provider,
    events,
    transitions,
    logger,
    lock,
    workflows: assignments,
    listener: dispatcher,
    databaseUrl: config.databaseUrl,
  });
  const timers = new TimerScheduler({ db, logger, target: dispatcher });
  const workflows = new WorkflowLifecycle({
    db,
    events,
    transitions,
    steering: deps.steering ?? dispatcher,
    timers,
    templates: deps.templates,
    dataDir: config.dataDir,
    logger: deps.logger,
  });
  const liveness = new WorkerLiveness({
    db,
    registry,
    dispatcher,
    logger,
    offlineAfterSeconds: config.workers.offlineAfterSeconds,
    leaseSeconds: config.workers.leaseSeconds,
  });

  return {
    registry,
    dispatcher,
    ingest,
    timers,
    workflows,
    background,
    config,
    start() {
      timers.start();
      liveness.start();
      dispatcher.kick();
    },
    async close() {
      await liveness.stop();
      await timers.stop();
      await background.settle();
      await ingest.close();
      await dispatcher.close();
      await background.settle();
    },
  };
}
