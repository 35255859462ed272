import type { Logger } from 'pino';
import { prepare, queryBuilder, type Db, type DbProvider, type Prepared, type SqlReader, type Workflow } from '@svc/db';
import { TERMINAL_WORKFLOW_STATUSES, type DispatchAction, type DispatchMessage } from '@svc/protocol';
import type { AppLinks } from '../apps/app-link';
import type { RunSecrets } from '../secrets/run-secrets';
import { on, type ClusterBus } from '../cluster/bus';
import type { WorkflowEngine } from '../engine';
import type { IngestLock } from '../ingest/ingest-lock';
import { isUnfinished, unfinishedWhere, type Steering } from '../workflows';
import { CoalescedRuns } from '../lib/coalesced-runs';
import { buildDispatch, DISPATCH_SELECT, dispatchHints, pickWorker, type DispatchHints } from './message';
import { dispatchWait } from '../metrics/registry';
import {
  assignedRuns,
  queuedPage,
  QUEUE_PAGE,
  takeBack,
  unclaim,
  workerRoom,
  type QueueDeps,
  type QueuedRow,
} from './queue';
import type { WorkerRegistry } from './registry';
import { intentOf, STEERING_SELECT, type Intent } from '../engine/intents';
import type { WorkerSession } from './worker-session';

export { TITLE_SEQ_BLOCK } from '../engine/intents';

export interface LiveDispatcherDeps {
  db: Db;
  /** the claimed runs' rows, read on the driver (one a dispatch) */
  reader: SqlReader;
  /** which SQL the queue's order and limits are written in (engine/claim.ts) */
  provider: DbProvider;
  /** the built-app link each dispatch carries (`app_url`) */
  appLinks: AppLinks;
  logger: Logger;
  registry: WorkerRegistry;
  lock: IngestLock;
  /** claims and hand-backs; its announcements of released runs wake this dispatcher */
  engine: WorkflowEngine;
  /** the other API replicas (wake-ups, steering, title jobs) */
  bus: ClusterBus;
  /** keeps the notice of runs no online worker can take (dispatch/routing-notices.ts) */
  routing?: { kick(): void };
  /** the secrets each dispatch that runs a workflow carries */
  secrets?: RunSecrets;
}

const DELIVERY_SELECT = {
  ...DISPATCH_SELECT,
  ...STEERING_SELECT,
  status: true,
  assigned_worker_id: true,
} as const;
/** What a dispatch or a delivery needs of the workflow (text and number columns: no decoding), and its hints. */
type DeliveryRow = { [K in keyof typeof DELIVERY_SELECT]: Workflow[K] } & DispatchHints;

/** A queued run that has no title yet, for a title job (text and number columns). */
type TitleRow = { [K in keyof typeof DISPATCH_SELECT | 'title_last_seq']: Workflow[K] };

/** The statement reading a `TitleRow`: unfinished, not deleted, no worker, no title yet. */
const titleStatement = (provider: DbProvider): Prepared<{ id: string }> =>
  prepare(provider, (arg) =>
    queryBuilder(provider)
      .selectFrom('workflows')
      .select([...(Object.keys(DISPATCH_SELECT) as (keyof typeof DISPATCH_SELECT)[]), 'title_last_seq'])
      .where('id', '=', arg('id'))
      .where('status', 'not in', [...TERMINAL_WORKFLOW_STATUSES])
      .where('deleted_at', 'is', null)
      .where('assigned_worker_id', 'is', null)
      .where('title_generated', '=', false),
  );

/** The statement reading a `DeliveryRow` as it is now. */
const deliveryStatement = (provider: DbProvider): Prepared<{ id: string }> =>
  prepare(provider, (arg) =>
    queryBuilder(provider)
      .selectFrom('workflows')
      .select(Object.keys(DELIVERY_SELECT) as (keyof typeof DELIVERY_SELECT)[])
      .select((eb) => dispatchHints(eb))
      .where('id', '=', arg('id')),
  );
/** A claimed run's dispatch, built before it is sent. */
type PreparedDispatch = { workflow: DeliveryRow; intent: Intent | null; message: DispatchMessage };

/**
 * Hands workflows to the workers connected to this replica (the queue itself is the database:
 * queue.ts), steers the ones they run, and takes work back from lost workers. Steering is written to
 * the workflow row first (through the engine: engine/intents.ts), then delivered by whichever replica holds the worker's
 * socket: every replica is told over the cluster bus. Methods return once the request is recorded.
 */
export class LiveDispatcher implements Steering {
  private closed = false;
  private readonly queue: QueueDeps;
  /** rounds of handing out work: each pumps until no worker has room */
  private readonly pumps = new CoalescedRuns(
    async () => {
      while (!this.closed && (await this.pumpOnce()));
    },
    () => this.closed,
  );
  private readonly stops: (() => void)[];

  private readonly deliveryRead: Prepared<{ id: string }>;
  private readonly titleRead: Prepared<{ id: string }>;

  constructor(private readonly deps: LiveDispatcherDeps) {
    this.queue = { engine: deps.engine, lock: deps.lock };
    this.deliveryRead = deliveryStatement(deps.provider);
    this.titleRead = titleStatement(deps.provider);
    const background = (what: string, work: Promise<void>) =>
      void work.catch((err: unknown) => deps.logger.error({ err }, `${what} failed`));
    this.stops = [
      on(deps.bus, 'wake', () => this.kick()),
      on(deps.bus, 'title', (m) => background('title job', this.titleJob(m.workflow_id))),
      on(deps.bus, 'steer', (m) => background('steering delivery', this.deliver(m.workflow_id))),
      deps.engine.on('transitioned', ({ workflow, released }) => {
        if (released) this.released(released.by, workflow.id, released.finished);
      }),
    ];
  }

  async workflowQueued(_workflowId: string, requiresLabels = true): Promise<void> {
    if (requiresLabels) this.deps.routing?.kick();
    this.wakeAll();
  }

  async generateTitle(workflowId: string): Promise<void> {
    // Any replica with a free worker may run the title job; the grant in the database picks one.
    this.deps.bus.publish({ type: 'title', workflow_id: workflowId });
    await this.titleJob(workflowId);
  }

  answer(workflowId: string, answer: string): Promise<void> {
    return this.steer(workflowId, { action: 'answer', message: answer });
  }

  feedback(workflowId: string, message: string): Promise<void> {
    return this.steer(workflowId, { action: 'feedback', message });
  }

  pause(workflowId: string, interrupt: boolean): Promise<void> {
    return this.steer(workflowId, { action: 'pause', message: interrupt ? 'interrupt' : '' });
  }

  /** The run's worker continues it; a run no worker holds any more is back in the queue (it is running again). */
  resumePaused(workflowId: string): Promise<void> {
    return this.steer(workflowId, { action: 'unpause', message: '' });
  }

  /** A finished run goes back to the queue (unless a worker here still runs it). */
  async retry(workflowId: string): Promise<void> {
    const workflow = await this.deps.db.workflow.findFirst({
      where: { id: workflowId, ...unfinishedWhere },
      select: { assigned_worker_id: true },
    });
    if (!workflow) return;
    const assignee = workflow.assigned_worker_id;
    if (assignee && this.deps.registry.holds(assignee, workflowId)) return;
    if (assignee) await this.unclaim(workflowId, assignee);
    this.deps.routing?.kick();
    this.wakeAll();
  }

  /** The status is cancelled already: the replica holding the assignee's socket tells it to stop. */
  async cancel(workflowId: string): Promise<void> {
    await this.deps.engine.clearSteering(workflowId);
    this.deps.bus.publish({ type: 'steer', workflow_id: workflowId });
    await this.deliver(workflowId);
    this.wakeAll(); // its project slot and concurrency key are free for a run waiting on any replica
  }

  /** A timer fired (on any replica): the next hand-out resumes the workflow with the timer's reason. */
  async timerFired(workflowId: string, reason: string): Promise<void> {
    if (await this.deps.engine.timerFired(workflowId, reason)) this.wakeAll();
  }

  /** The workflow stopped being this worker's (finished or paused): it no longer holds it. */
  private released(workerId: string, workflowId: string, finished: boolean): void {
    this.deps.registry.release(workerId, workflowId);
    // A final status cleared the run's steering with it (engine/worker-batch.ts).
    if (finished) {
      // This worker has room now, and the run's project slot and concurrency key are free for a run
      // that only another replica's worker may take (decision 0037).
      this.wakeAll();
    } else this.wakeAll(); // the paused workflow is back in the queue for any replica's workers
  }

  /**
   * What a heartbeat says the worker runs. The first heartbeat of a connection also hands back what the
   * database says it holds but it does not run (the worker restarted while the server did not notice);
   * a worker that does not report its workflows is trusted to run all it was given. A reported workflow
   * that was cancelled is cancelled again (a cancel is never missed, whichever replica recorded it).
   */
  async heartbeat(session: WorkerSession, active: readonly string[] | undefined): Promise<void> {
    const { registry } = this.deps;
    const first = registry.reconcile(session);
    // A later heartbeat only acts on the workflows it names: an idle worker's costs no read.
    if (!first && (active === undefined || active.length === 0)) return;
    const assignedIds = await assignedRuns(this.deps.reader, this.deps.provider, session.workerId);
    const lost = await this.settle(session, assignedIds, new Set(active ?? assignedIds), first);
    if (lost.length > 0) await this.takeBack(session.workerId, lost);
    if (first && active) {
      await this.reclaim(session, active, new Set(assignedIds));
      this.sendHolding(session, active);
    } else if (active && active.length > 0) await this.cancelStale(session, active);
  }

  /** A run the worker fenced while it heard nothing goes on only if it is still its own (decision 0062). */
  private sendHolding(session: WorkerSession, active: readonly string[]): void {
    const held = active.filter((id) => this.deps.registry.holds(session.workerId, id));
    session.send({ type: 'holding', workflow_ids: held });
  }

  /**
   * Delivers to the worker what it runs but was not known to hold; returns what a first heartbeat
   * shows it was given but does not run.
   */
  private async settle(
    session: WorkerSession,
    assigned: readonly string[],
    running: ReadonlySet<string>,
    first: boolean,
  ): Promise<string[]> {
    const { registry } = this.deps;
    const lost: string[] = [];
    for (const id of assigned) {
      if (registry.holds(session.workerId, id)) continue;
      if (running.has(id)) {
        registry.hold(session.workerId, id);
        await this.deliver(id);
      } else if (first) lost.push(id);
    }
    return lost;
  }

  /** Workflows the worker still runs although they were cancelled (the cancel was sent when it was away). */
  private async cancelStale(session: WorkerSession, active: readonly string[]): Promise<void> {
    const cancelled = await this.deps.db.workflow.findMany({
      where: { id: { in: [...active] }, assigned_worker_id: session.workerId, status: 'cancelled' },
      select: DISPATCH_SELECT,
    });
    for (const workflow of cancelled) session.send(await buildDispatch(this.deps, workflow, 'cancel'));
  }

  /**
   * A worker that comes back after its lease still runs workflows that were taken back from it: those
   * still in the queue are its again (it goes on from its own state instead of another worker
   * repeating its steps from the last stored snapshot).
   */
  private async reclaim(session: WorkerSession, active: readonly string[], assigned: Set<string>): Promise<void> {
    const { registry, logger } = this.deps;
    for (const id of active) {
      if (assigned.has(id) || registry.holds(session.workerId, id)) continue;
      if (await this.claim(id, session)) {
        registry.hold(session.workerId, id);
        logger.info({ worker: session.name, workflowId: id }, 'worker came back with a queued workflow; it keeps it');
        await this.deliver(id);
        continue;
      }
      const row = await this.deps.db.workflow.findUnique({
        where: { id },
        select: { assigned_worker_id: true, status: true },
      });
      // Cancelled while the worker was away: it is told now.
      if (row?.assigned_worker_id === session.workerId && row.status === 'cancelled') await this.deliver(id);
      else logger.warn({ worker: session.name, workflowId: id }, 'worker reports a workflow it no longer holds');
    }
  }

  /** Puts the worker's unfinished workflows (or just `only`) back in the queue and hands them out again. */
  async takeBack(workerId: string, only?: readonly string[]): Promise<void> {
    const taken = await takeBack(this.queue, workerId, only);
    for (const id of taken) this.deps.registry.release(workerId, id);
    if (taken.length > 0) this.deps.routing?.kick();
    if (taken.length > 0)
      this.deps.logger.info({ workerId, workflows: taken }, 'workflows taken back from a lost worker');
    this.wakeAll();
  }

  /** Pumps this replica's workers and tells the other replicas to pump theirs. */
  wakeAll(): void {
    this.deps.bus.publish({ type: 'wake' });
    this.kick();
  }

  kick(): void {
    this.pump().catch((err: unknown) => this.deps.logger.error({ err }, 'dispatch failed'));
  }

  /** Hands out queued workflows until no worker has room; concurrent calls coalesce into one more round. */
  pump(): Promise<void> {
    return this.pumps.run();
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const stop of this.stops) stop();
    await this.pumps.settled();
  }

  /** One page of the queue; true when a full page was handed out and more may wait. */
  private async pumpOnce(): Promise<boolean> {
    const { sessions, load } = await this.takingRuns();
    if (!sessions.some((s) => load.get(s.workerId)! < s.capacity)) return false;
    const queued = await queuedPage(this.deps.reader, this.deps.provider);
    const { claimed, raced } = await this.claimPage(queued, sessions, load);
    // The claimed runs' dispatches are read and built side by side, and sent in queue order.
    const prepared = await Promise.allSettled(claimed.map(({ candidate }) => this.prepareDispatch(candidate.id)));
    let handedOut = 0;
    for (const [i, { candidate, target }] of claimed.entries()) {
      const built = prepared[i]!;
      try {
        if (built.status === 'fulfilled' && (await this.handOut(candidate, target, built.value))) handedOut++;
      } finally {
        // Sent (held now), or not: a claim not handed out is the heartbeat's and the lease's to take back.
        this.deps.registry.endClaim(target.workerId, candidate.id);
      }
    }
    // A dispatch that could not be built fails the round (logged), as it did before the others were sent.
    const failed = prepared.find((p) => p.status === 'rejected');
    if (failed) throw failed.reason;
    // A lost race leaves runs of that project unclaimed this round: a fresh page decides them.
    return raced || (queued.length === QUEUE_PAGE && handedOut > 0);
  }

  /** The connected workers an administrator has not paused, and the runs each holds now. */
  private async takingRuns(): Promise<{ sessions: WorkerSession[]; load: Map<string, number> }> {
    const connected = this.deps.registry.connected();
    const ids = connected.map((s) => s.workerId);
    const load = await workerRoom(this.deps.db, this.deps.provider, ids);
    return { sessions: connected.filter((s) => load.has(s.workerId)), load };
  }

  /**
   * Claims one at a time: each counts against its worker's room (`load`) and its project's limit. A
   * claim the database refuses means the page is stale (another replica claimed, or a slot was taken or
   * freed since it was read): the project's later runs wait for the next round, so a run never
   * overtakes an older one of its project because a slot freed between two claims.
   */
  private async claimPage(
    queued: readonly QueuedRow[],
    sessions: readonly WorkerSession[],
    load: Map<string, number>,
  ): Promise<{ claimed: { candidate: QueuedRow; target: WorkerSession }[]; raced: boolean }> {
    const claimed: { candidate: QueuedRow; target: WorkerSession }[] = [];
    const stale = new Set<string>();
    try {
      for (const candidate of queued) {
        if (stale.has(candidate.project_id)) continue;
        const target = pickWorker(sessions, load, candidate.requested_worker_id, candidate.requires);
        if (!target) continue;
        if (!(await this.claim(candidate.id, target, candidate.contended))) {
          stale.add(candidate.project_id);
          continue;
        }
        load.set(target.workerId, (load.get(target.workerId) ?? 0) + 1);
        claimed.push({ candidate, target });
      }
    } catch (error) {
      // The round fails: the claims made are not handed out by it.
      for (const { candidate, target } of claimed) this.deps.registry.endClaim(target.workerId, candidate.id);
      throw error;
    }
    return { claimed, raced: stale.size > 0 };
  }

  /** What a dispatch or a delivery needs of the workflow, read as it is now; null when it is gone. */
  private async deliveryRow(workflowId: string): Promise<DeliveryRow | null> {
    return (
      ((await this.deps.reader.row(this.deliveryRead.bind({ id: workflowId }))) as DeliveryRow | undefined) ?? null
    );
  }

  /** A claimed run's dispatch, read after the claim: the seqs stored and granted, and the steering, as they are now. */
  private async prepareDispatch(workflowId: string): Promise<PreparedDispatch | null> {
    const workflow = await this.deliveryRow(workflowId);
    if (!workflow) return null;
    const intent = intentOf(workflow);
    const [action, carried] = firstDispatch(intent);
    const message = await buildDispatch(this.deps, workflow, action, {
      ...carried,
      reservedSeq: workflow.title_last_seq ?? undefined,
    });
    return { workflow, intent, message };
  }

  /** Sends a claimed run's dispatch; false when it was not handed out. */
  private async handOut(
    candidate: QueuedRow,
    target: WorkerSession,
    prepared: PreparedDispatch | null,
  ): Promise<boolean> {
    const sent = prepared !== null && (await this.dispatchTo(target, prepared));
    // The wait of a run's first dispatch (a resumed run's later waits are not the queue's).
    if (sent && candidate.started_at === null)
      dispatchWait.observe(Math.max(0, (Date.now() - candidate.created_at.getTime()) / 1000));
    return sent;
  }

  /** Sends the claimed workflow's dispatch with its steering; a worker that cannot take it gives the claim back. */
  private async dispatchTo(target: WorkerSession, { workflow, intent, message }: PreparedDispatch): Promise<boolean> {
    const { registry } = this.deps;
    registry.hold(target.workerId, workflow.id);
    if (target.send(message)) {
      // A pause asked while no worker held the run: the new one pauses at its first tool boundary.
      if (intent?.action === 'pause') await this.steerRun(target, workflow, intent);
      else if (intent) await this.deps.engine.clearIntent(workflow.id, intent);
      return true;
    }
    registry.release(target.workerId, workflow.id);
    await this.unclaim(workflow.id, target.workerId);
    return false;
  }

  /** A title job for a queued workflow, on a worker of this replica, if it wins the grant. */
  private async titleJob(workflowId: string): Promise<void> {
    // A free worker that takes the workflow makes the title itself: let the dispatch round go first.
    await this.pump();
    if (this.deps.registry.heldHere(workflowId)) return;
    const workflow = (await this.deps.reader.row(this.titleRead.bind({ id: workflowId }))) as TitleRow | undefined;
    if (!workflow) return;
    const target = pickWorker((await this.takingRuns()).sessions, new Map(), null, workflow.requires);
    if (!target) return;
    const grant = await this.deps.engine.grantTitle(workflow, target.workerId);
    if (!grant) return;
    target.send(await buildDispatch(this.deps, workflow, 'generate_title', { reservedSeq: grant.first - 1 }));
  }

  /** Claims the run for the worker; a claim made stays `beginClaim`ed until the round hands it out. */
  private async claim(workflowId: string, target: WorkerSession, contended = true): Promise<boolean> {
    const { registry } = this.deps;
    registry.beginClaim(target.workerId, workflowId);
    try {
      if (!(await this.deps.engine.claim(workflowId, target.workerId, contended))) {
        registry.endClaim(target.workerId, workflowId);
        return false;
      }
    } catch (error) {
      registry.endClaim(target.workerId, workflowId);
      throw error;
    }
    // The connection may have closed while the claim was in flight; its loss hand-back ran already.
    if (registry.get(target.workerId) === target) return true;
    registry.endClaim(target.workerId, workflowId);
    await this.unclaim(workflowId, target.workerId);
    return false;
  }

  private unclaim(workflowId: string, workerId: string): Promise<void> {
    return unclaim(this.queue, workflowId, workerId);
  }

  /** Records an answer or feedback, then has it delivered: to the worker running it, or with the next dispatch. */
  private async steer(workflowId: string, intent: Intent): Promise<void> {
    const { db } = this.deps;
    await this.deps.engine.recordIntent(workflowId, intent);
    const workflow = await db.workflow.findFirst({
      where: { id: workflowId, ...unfinishedWhere },
      select: { assigned_worker_id: true },
    });
    if (!workflow) return;
    if (!workflow.assigned_worker_id) return this.wakeAll();
    this.deps.bus.publish({ type: 'steer', workflow_id: workflowId });
    await this.deliver(workflowId);
  }

  /**
   * Delivers what is recorded for the workflow if its assignee is connected to this replica: a cancel,
   * or an answer or feedback to the run. An assignee that does not run it (its run had finished) gives
   * it back to the queue, and the steering goes with the next dispatch. A worker that just connected
   * says in its first heartbeat what it runs (which delivers then); one connected nowhere keeps the
   * workflow for its lease, after which it is taken back and dispatched with the steering.
   */
  private async deliver(workflowId: string): Promise<void> {
    const { registry } = this.deps;
    const here = await this.assigneeHere(workflowId);
    if (!here) return;
    const { workflow, workerId, session } = here;
    if (!isUnfinished(workflow.status)) {
      // Also to an assignee not known to run it yet: a worker ignores a cancel for what it does not run.
      if (workflow.status === 'cancelled') session.send(await buildDispatch(this.deps, workflow, 'cancel'));
      return;
    }
    const intent = intentOf(workflow);
    if (!intent || intent.action === 'resume') return;
    if (registry.holds(workerId, workflowId)) return this.steerRun(session, workflow, intent);
    if (!registry.isReconciled(workerId)) return;
    await this.unclaim(workflowId, workerId);
    this.wakeAll();
  }

  /** The workflow and the session of its assignee, when that is connected to this replica. */
  private async assigneeHere(
    workflowId: string,
  ): Promise<{ workflow: DeliveryRow; workerId: string; session: WorkerSession } | null> {
    const workflow = await this.deliveryRow(workflowId);
    const workerId = workflow?.assigned_worker_id;
    const session = workerId ? this.deps.registry.get(workerId) : undefined;
    if (!workflow || !workerId || !session) return null;
    return { workflow, workerId, session };
  }

  /** An answer, feedback, pause or resume for the run the worker holds; recorded until it was sent. */
  private async steerRun(session: WorkerSession, workflow: DeliveryRow, intent: Intent): Promise<void> {
    const message = await buildDispatch(this.deps, workflow, dispatchActionOf(intent), { message: intent.message });
    if (session.send(message)) await this.deps.engine.clearIntent(workflow.id, intent);
  }

  private inBackground(what: string, work: Promise<void>): void {
    work.catch((err: unknown) => this.deps.logger.error({ err }, `${what} failed`));
  }
}

/** What a stored intent is sent as: a paused run's resume (`unpause`) is a `resume` of the run the worker holds. */
const dispatchActionOf = (intent: Intent): DispatchAction => (intent.action === 'unpause' ? 'resume' : intent.action);

/**
 * What a run no worker holds is dispatched with: the stored intent (a timer's reason, an answer or
 * feedback, as its message); a member's pause or resume of it is a plain resume (a pause follows it).
 */
function firstDispatch(intent: Intent | null): [DispatchAction, { message?: string }] {
  if (!intent || intent.action === 'pause' || intent.action === 'unpause') return ['resume', {}];
  return [intent.action, { message: intent.message }];
}
