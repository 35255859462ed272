import type { Logger } from 'pino';
import type { Db, DbProvider } from '@svc/db';
import type { Config } from '../config';
import type { EventBus } from './events';
import { BackgroundWork, IngestLock } from './dispatch-lock';
import { LiveDispatcher } from './dispatch';
import { UpdateIngest } from './update-ingest';
import { TimerScheduler } from './timers';
import { WorkerRegistry, WS_CLOSE_HEARTBEAT_MISSED } from './worker-registry';
import { unfinishedWhere } from './worker-registry-list';

/** Worker dispatch, update storage and timers: what the worker WebSocket and the REST layer share. */
export interface LiveServices {
  registry: WorkerRegistry;
  dispatcher: LiveDispatcher;
  ingest: UpdateIngest;
  timers: TimerScheduler;
  /** fire-and-forget work that shutdown waits for */
  background: BackgroundWork;
  config: Config;
  /** Starts the timer scheduler and the worker liveness sweep. */
  start(): void;
  /** Stops them and waits for updates in flight to be stored. */
  close(): Promise<void>;
}

export function createLiveServices(deps: {
  db: Db;
  provider: DbProvider;
  events: EventBus;
  logger: Logger;
  config: Config;
}): LiveServices {
  const { db, provider, events, config } = deps;
  const logger = deps.logger.child({ component: 'dispatch' });
  const lock = new IngestLock();
  const background = new BackgroundWork((err) => logger.error({ err }, 'background work failed'));
  const registry = new WorkerRegistry(db, events, logger, background);
  const dispatcher = new LiveDispatcher({ db, events, logger, registry, lock });
  const ingest = new UpdateIngest({ db, provider, events, logger, lock, listener: dispatcher });
  const timers = new TimerScheduler({
    db,
    logger,
    onFire: (workflowId, reason) => dispatcher.timerFired(workflowId, reason),
  });
  dispatcher.onTimersChanged = () => timers.notify();
  dispatcher.onReassigned = (ids) => ingest.forget(ids);
  const offlineAfterMs = config.workers.offlineAfterSeconds * 1000;
  let sweeper: NodeJS.Timeout | null = null;
  let sweeping: Promise<void> | null = null;

  /** Closes silent connections and takes work back from workers nobody has heard from. */
  async function sweep(): Promise<void> {
    for (const session of registry.silent(offlineAfterMs)) {
      logger.warn({ worker: session.name }, 'worker missed its heartbeats; closing its connection');
      session.close(WS_CLOSE_HEARTBEAT_MISSED, `no heartbeat for ${config.workers.offlineAfterSeconds}s`);
    }
    await registry.markSilentOffline(offlineAfterMs);
    const offline = await registry.offlineIds();
    if (offline.length === 0) return;
    const stranded = await db.workflow.findMany({
      where: { ...unfinishedWhere, assigned_worker_id: { in: offline } },
      select: { assigned_worker_id: true },
      distinct: ['assigned_worker_id'],
    });
    for (const { assigned_worker_id } of stranded)
      if (assigned_worker_id && !registry.get(assigned_worker_id)) await dispatcher.takeBack(assigned_worker_id);
  }

  return {
    registry,
    dispatcher,
    ingest,
    timers,
    background,
    config,
    start() {
      timers.start();
      const every = Math.max(500, Math.min(offlineAfterMs / 2, 5000));
      sweeper = setInterval(() => {
        if (sweeping) return;
        sweeping = sweep()
          .catch((err: unknown) => logger.error({ err }, 'worker liveness sweep failed'))
          .finally(() => (sweeping = null));
      }, every);
      sweeper.unref();
      dispatcher.kick();
    },
    async close() {
      if (sweeper) clearInterval(sweeper);
      await sweeping;
      await timers.stop();
      await background.settle();
      await ingest.flush();
      await dispatcher.close();
      await background.settle();
    },
  };
}
