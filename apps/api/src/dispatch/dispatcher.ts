import type { Logger } from 'pino';
import type { Db } from '@svc/db';
import type { UpdateMessage } from '@svc/protocol';
import type { IngestListener } from '../ingest/update-ingest';
import type { IngestLock } from '../ingest/ingest-lock';
import { unfinishedWhere, type Steering, type WorkflowTransitions } from '../workflows';
import { buildDispatch, DISPATCH_SELECT, pickWorker } from './message';
import { claim, queuedPage, QUEUE_PAGE, takeBack, unclaim, type AssignmentCache, type QueueDeps } from './queue';
import type { WorkerRegistry } from './registry';
import { activeCounts } from './worker-list';
import type { WorkerSession } from './worker-session';

/**
 * Seqs a title job may use (its LLM call attempts, then the title): the worker that runs the workflow
 * numbers its updates after them, so the two never collide.
 */
export const TITLE_SEQ_BLOCK = 16;

interface TitleGrant {
  workerId: string;
  first: number;
  last: number;
}

/** What the next hand-out of a workflow carries when it is not simply a resume. */
interface Intent {
  action: 'answer' | 'feedback' | 'resume';
  message: string;
}

export interface LiveDispatcherDeps {
  db: Db;
  logger: Logger;
  registry: WorkerRegistry;
  lock: IngestLock;
  transitions: WorkflowTransitions;
  /** the update ingest's cache of who holds what */
  assignments: AssignmentCache;
}

/**
 * Hands workflows to connected workers (the queue itself is the database: dispatch-queue.ts), steers
 * the ones they run, and takes work back from lost workers. Methods return once the request is recorded.
 */
export class LiveDispatcher implements Steering, IngestListener {
  private readonly intents = new Map<string, Intent>();
  /** Title generation sent to a worker that does not run the workflow: the seqs it may store. */
  private readonly titleGrants = new Map<string, TitleGrant>();
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  private readonly queue: QueueDeps;

  constructor(private readonly deps: LiveDispatcherDeps) {
    this.queue = { db: deps.db, lock: deps.lock, transitions: deps.transitions, assignments: deps.assignments };
  }

  async workflowQueued(): Promise<void> {
    this.kick();
  }

  async generateTitle(workflowId: string): Promise<void> {
    // A free worker that takes the workflow makes the title itself: let the dispatch round go first.
    await this.pump();
    const workflow = await this.deps.db.workflow.findFirst({
      where: { id: workflowId, ...unfinishedWhere },
      select: { ...DISPATCH_SELECT, title_generated: true, assigned_worker_id: true },
    });
    if (!workflow || workflow.title_generated) return;
    // A worker generates the title itself when it starts the workflow.
    if (this.holder(workflow.id, workflow.assigned_worker_id)) return;
    const target = pickWorker(this.deps.registry.connected(), new Map(), null);
    if (!target) return;
    const grant = this.titleGrants.get(workflowId);
    const message = await buildDispatch(this.deps.db, workflow, 'generate_title', { reservedSeq: grant?.last });
    this.titleGrants.set(workflowId, {
      workerId: target.workerId,
      first: message.last_seq + 1,
      last: message.last_seq + TITLE_SEQ_BLOCK,
    });
    target.send(message);
  }

  answer(workflowId: string, answer: string): Promise<void> {
    return this.steer(workflowId, { action: 'answer', message: answer });
  }

  feedback(workflowId: string, message: string): Promise<void> {
    return this.steer(workflowId, { action: 'feedback', message });
  }

  async retry(workflowId: string): Promise<void> {
    return this.steer(workflowId, null);
  }

  async cancel(workflowId: string): Promise<void> {
    this.intents.delete(workflowId);
    this.titleGrants.delete(workflowId);
    const { db } = this.deps;
    const workflow = await db.workflow.findUnique({
      where: { id: workflowId },
      select: { ...DISPATCH_SELECT, assigned_worker_id: true },
    });
    // Also to a connected assignee not known to run it yet: a worker ignores a cancel for what it does not run.
    const assignee = workflow?.assigned_worker_id ? this.deps.registry.get(workflow.assigned_worker_id) : undefined;
    if (workflow && assignee) assignee.send(await buildDispatch(db, workflow, 'cancel'));
  }

  /** A timer fired: the next hand-out resumes the workflow with the timer's reason. */
  timerFired(workflowId: string, reason: string): void {
    if (!this.intents.has(workflowId)) this.intents.set(workflowId, { action: 'resume', message: reason });
    this.kick();
  }

  /** Whether a worker may store this update of a workflow it does not run: its title job's LLM calls and title. */
  mayStoreForTitle(workflowId: string, workerId: string, update: Pick<UpdateMessage, 'kind' | 'seq'>): boolean {
    const grant = this.titleGrants.get(workflowId);
    return (
      grant !== undefined &&
      grant.workerId === workerId &&
      (update.kind === 'title' || update.kind === 'llm_call') &&
      update.seq >= grant.first &&
      update.seq <= grant.last
    );
  }

  /** The workflow stopped being this worker's (finished or paused): it no longer holds it. */
  released(workerId: string, workflowId: string, finished: boolean): void {
    this.deps.registry.release(workerId, workflowId);
    if (finished) {
      this.intents.delete(workflowId);
      this.titleGrants.delete(workflowId);
    }
    this.kick();
  }

  titleStored(workflowId: string): void {
    this.titleGrants.delete(workflowId);
  }

  /**
   * What a heartbeat says the worker runs. The first heartbeat of a connection also hands back what the
   * database says it holds but it does not run (the worker restarted while the server did not notice);
   * a worker that does not report its workflows is trusted to run all it was given.
   */
  async heartbeat(session: WorkerSession, active: readonly string[] | undefined): Promise<void> {
    const { registry } = this.deps;
    const first = registry.reconcile(session);
    if (!first && active === undefined) return;
    const assigned = await this.deps.db.workflow.findMany({
      where: { assigned_worker_id: session.workerId, ...unfinishedWhere },
      select: { id: true },
    });
    const running = new Set(active ?? assigned.map((w) => w.id));
    const lost: string[] = [];
    for (const { id } of assigned) {
      if (running.has(id) && !registry.holds(session.workerId, id)) {
        registry.hold(session.workerId, id);
        const intent = this.intents.get(id);
        if (intent) await this.steer(id, intent);
      } else if (first && !running.has(id) && !registry.holds(session.workerId, id)) {
        lost.push(id);
      }
    }
    if (lost.length > 0) await this.takeBack(session.workerId, lost);
    if (first && active) await this.reclaim(session, active, new Set(assigned.map((w) => w.id)));
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
        const intent = this.intents.get(id);
        if (intent && intent.action !== 'resume') await this.steer(id, intent);
        continue;
      }
      const row = await this.deps.db.workflow.findUnique({
        where: { id },
        select: { assigned_worker_id: true, status: true },
      });
      // Cancelled while the worker was away: it is told now.
      if (row?.assigned_worker_id === session.workerId && row.status === 'cancelled') await this.cancel(id);
      else logger.warn({ worker: session.name, workflowId: id }, 'worker reports a workflow it no longer holds');
    }
  }

  /** Puts the worker's unfinished workflows (or just `only`) back in the queue and hands them out again. */
  async takeBack(workerId: string, only?: readonly string[]): Promise<void> {
    const taken = await takeBack(this.queue, workerId, only);
    for (const id of taken) this.deps.registry.release(workerId, id);
    if (taken.length > 0)
      this.deps.logger.info({ workerId, workflows: taken }, 'workflows taken back from a lost worker');
    this.kick();
  }

  kick(): void {
    this.pump().catch((err: unknown) => this.deps.logger.error({ err }, 'dispatch failed'));
  }

  /** Hands out queued workflows until no worker has room; concurrent calls coalesce into one more round. */
  pump(): Promise<void> {
    if (this.running) {
      this.again = true;
      return this.running;
    }
    this.running = (async () => {
      try {
        do {
          this.again = false;
          while (!this.closed && (await this.pumpOnce()));
        } while (this.again && !this.closed);
      } finally {
        this.running = null;
      }
    })();
    return this.running;
  }

  async close(): Promise<void> {
    this.closed = true;
    await this.running?.catch(() => undefined);
  }

  /** One page of the queue; true when a full page was handed out and more may wait. */
  private async pumpOnce(): Promise<boolean> {
    const { db, registry } = this.deps;
    const sessions = registry.connected();
    if (sessions.length === 0) return false;
    const load = await activeCounts(
      db,
      sessions.map((s) => s.workerId),
    );
    if (!sessions.some((s) => (load.get(s.workerId) ?? 0) < s.capacity)) return false;
    const queued = await queuedPage(db);
    let handedOut = 0;
    for (const workflow of queued) {
      const target = pickWorker(sessions, load, workflow.requested_worker_id);
      if (!target || !(await this.claim(workflow.id, target))) continue;
      load.set(target.workerId, (load.get(target.workerId) ?? 0) + 1);
      const intent = this.intents.get(workflow.id);
      const message = await buildDispatch(db, workflow, intent?.action ?? 'resume', {
        message: intent?.message,
        reservedSeq: this.titleGrants.get(workflow.id)?.last,
      });
      registry.hold(target.workerId, workflow.id);
      if (target.send(message)) {
        this.intents.delete(workflow.id);
        handedOut++;
      } else {
        registry.release(target.workerId, workflow.id);
        await this.unclaim(workflow.id, target.workerId);
      }
    }
    return queued.length === QUEUE_PAGE && handedOut > 0;
  }

  private async claim(workflowId: string, target: WorkerSession): Promise<boolean> {
    if (!(await claim(this.deps.db, workflowId, target.workerId))) return false;
    // The connection may have closed while the claim was in flight; its loss hand-back ran already.
    if (this.deps.registry.get(target.workerId) === target) return true;
    await this.unclaim(workflowId, target.workerId);
    return false;
  }

  private unclaim(workflowId: string, workerId: string): Promise<void> {
    return unclaim(this.queue, workflowId, workerId);
  }

  /** The connected worker that runs the workflow now, if any. */
  private holder(workflowId: string, assignedWorkerId: string | null): WorkerSession | undefined {
    if (!assignedWorkerId || !this.deps.registry.holds(assignedWorkerId, workflowId)) return undefined;
    return this.deps.registry.get(assignedWorkerId);
  }

  /** Delivers an answer or feedback to the worker running the workflow, else queues it with the intent. */
  private async steer(workflowId: string, intent: Intent | null): Promise<void> {
    const { db } = this.deps;
    const workflow = await db.workflow.findFirst({
      where: { id: workflowId, ...unfinishedWhere },
      select: { ...DISPATCH_SELECT, assigned_worker_id: true },
    });
    if (!workflow) return;
    const holder = this.holder(workflow.id, workflow.assigned_worker_id);
    if (holder && intent) {
      if (holder.send(await buildDispatch(db, workflow, intent.action, { message: intent.message }))) return;
    }
    if (intent) this.intents.set(workflowId, intent);
    if (holder) return;
    // A worker that just (re)connected says in its first heartbeat whether it runs the workflow; wait for that.
    const assignee = workflow.assigned_worker_id ? this.deps.registry.get(workflow.assigned_worker_id) : undefined;
    if (assignee && !this.deps.registry.isReconciled(assignee.workerId)) return;
    // A disconnected assignee keeps the workflow for its lease (the liveness sweep takes it back after
    // that, and the intent goes with the next dispatch). A retry follows a finished run: nobody runs it.
    if (workflow.assigned_worker_id && !assignee && intent) return;
    if (workflow.assigned_worker_id) await this.unclaim(workflow.id, workflow.assigned_worker_id);
    this.kick();
  }
}
