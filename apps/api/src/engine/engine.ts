import { autocommitClient, type Db, type DbProvider, type Prisma, type Workflow } from '@svc/db';
import type pg from 'pg';
import { RESUMED_AFTER_LEASE_LOSS, type WorkflowStatus } from '@svc/protocol';
import type { EventStore, NewEvent, StoredEvent, WorkflowRef } from '../events';
import { EngineBus, type EngineEvents } from './bus';
import { claimQueued } from './claim';
import { clearIntent, clearSteering, grantTitle, recordIntent, type Intent } from './intents';
import { decide, UNFINISHED, type RunEvent } from './state-machine';
import { statusColumns, statusEvents, transitionParts, type Applicable } from './transition-parts';
import { commitWorkerBatch, type WorkerBatch } from './worker-batch';
import { serverLogEntryEvent, type ServerLogEntry } from './server-log-entry';
import { newRunTrace } from '../tracing/run-trace';
import { notFound } from '../domain/errors';
import { takeRunNumber, takeRunNumberAhead } from './run-number';
import { insertWorkflow } from './insert-workflow';

export type { WorkerBatch };

/** What `apply` did: committed (the row afterwards; `moved`: its status was written), refused by the table, or the run is gone. */
export type Applied =
  | { kind: 'applied'; current: Workflow; moved: boolean }
  | { kind: 'refused'; reason: string; current: Workflow }
  | { kind: 'gone' };

/** What a REST action adds to its transition: its `workflow_action` event, and whether the plan revision goes up. */
export interface ActionParts {
  /** built with the plan revision as the transition leaves it */
  action?: (revision: number) => NewEvent;
  revisePlan?: boolean;
  /** other columns written with the status (e.g. the soft delete's `deleted_at`) */
  columns?: Prisma.WorkflowUpdateManyMutationInput;
  /** what else the row must still match for the transition to apply (e.g. the question it answers) */
  expect?: Prisma.WorkflowWhereInput;
  /** other rows written in the transition's transaction, once it applies (e.g. its audit row) */
  alongside?: (tx: Prisma.TransactionClient, after: Workflow) => Promise<void>;
  /** an execution log entry the server writes with the transition, after its events */
  logEntry?: ServerLogEntry;
}

/** Two racing writers: a transition retries from what the winner left at most this often. */
const MAX_RACES = 5;

/** The resume note of a run taken back from a worker that lost it mid-step. */
const LEASE_LOSS_NOTE = `${RESUMED_AFTER_LEASE_LOSS}: the worker that ran this step lost contact with the server; the command it was running then may have run before`;

/**
 * The only writer of a run's state: status, question and error, assignment, plan revision, title grant
 * ends. Every change is decided by the table (state-machine.ts) and commits its columns and its events in
 * one transaction; after the commit it is announced on `bus`, where browser fan-out, dispatcher wake-ups
 * and cache invalidation (on every replica) listen.
 */
export class WorkflowEngine {
  readonly bus: EngineBus;

  constructor(
    private readonly deps: {
      db: Db;
      provider: DbProvider;
      events: EventStore;
      bus?: EngineBus;
      /** PostgreSQL: claims run as raw transactions on the pool (decision 0085) */
      pgPool?: pg.Pool | null;
    },
  ) {
    this.bus = deps.bus ?? new EngineBus();
  }

  on<K extends keyof EngineEvents>(event: K, listener: (payload: EngineEvents[K]) => void): () => void {
    return this.bus.on(event, listener);
  }

  /**
   * Inserts a new run with its project's next run number, in the status the table gives a created one,
   * with its action event, in one transaction. The event is returned unpublished: the caller publishes
   * it once the run is ready. `alongside` writes the run's own rows (e.g. its repository record) in that
   * transaction: when it throws, no run is left.
   */
  async create(
    data: Omit<Prisma.WorkflowUncheckedCreateInput, 'status' | 'number'>,
    action: (revision: number) => NewEvent,
    alongside?: (tx: Prisma.TransactionClient, workflow: Workflow) => Promise<void>,
  ): Promise<{ workflow: Workflow; stored: StoredEvent[] }> {
    const decision = decide('new', { type: 'created' });
    if (decision.kind !== 'move')
      throw new Error(`the run table does not declare creation: ${JSON.stringify(decision)}`);
    // Taken here, not inside the transaction, whose Prisma span would be the run's parent (decision 0052).
    const runTrace = newRunTrace();
    const row = { ...data, ...runTrace, status: decision.to };
    // PostgreSQL numbers the run before its transaction (decision 0088); SQLite inside it.
    const ahead = this.deps.provider === 'postgresql' ? await this.numberAhead(data.project_id) : undefined;
    if (ahead !== undefined && !alongside && this.deps.pgPool) return this.createRaw({ ...row, number: ahead }, action);
    let workflow: Workflow | null = null;
    const stored = await this.deps.events.appendWith(
      async (tx) => {
        const number = ahead ?? (await takeRunNumber(tx!, data.project_id));
        if (number === null) throw notFound('project not found');
        workflow = await tx!.workflow.create({ data: { ...row, number } });
        if (alongside) await alongside(tx!, workflow);
        return { groups: [{ workflow, events: [action(workflow.plan_revision)] }] };
      },
      { interactive: true, publish: false },
    );
    return { workflow: workflow!, stored };
  }

  /** PostgreSQL's create as raw statements in a raw transaction (decision 0085): the run and its events. */
  private async createRaw(
    data: Omit<Prisma.WorkflowUncheckedCreateInput, 'number'> & { number: number },
    action: (revision: number) => NewEvent,
  ): Promise<{ workflow: Workflow; stored: StoredEvent[] }> {
    let workflow: Workflow | null = null;
    const stored = await this.deps.events.appendInRawTransaction(
      async (tx) => {
        workflow = await insertWorkflow(tx, data);
        return { groups: [{ workflow, events: [action(workflow.plan_revision)] }] };
      },
      { publish: false },
    );
    return { workflow: workflow!, stored };
  }

  /** The database for raw statements: the PostgreSQL pool itself when there is one (decision 0085). */
  private rawHandle() {
    return { db: this.deps.db, pgPool: this.deps.pgPool ?? null };
  }

  private autocommit() {
    return autocommitClient(this.rawHandle());
  }

  private async numberAhead(projectId: string): Promise<number> {
    const number = await takeRunNumberAhead(this.autocommit(), projectId);
    if (number === null) throw notFound('project not found');
    return number;
  }

  /**
   * Applies a user's or the server's event to a live run: the table decides from the stored status, and
   * the write is conditional on that status, so a racing change makes it decide again from the new one.
   */
  async apply(ref: WorkflowRef, event: RunEvent, parts: ActionParts = {}): Promise<Applied> {
    for (let race = 0; ; race++) {
      const current = await this.deps.db.workflow.findFirst({ where: { id: ref.id, deleted_at: null } });
      if (!current) return { kind: 'gone' };
      const decision = decide(current.status as WorkflowStatus, event);
      if (decision.kind === 'refuse') return { kind: 'refused', reason: decision.reason, current };
      const after = await this.commit(current, event, decision, parts);
      if (after) return { kind: 'applied', current: after, moved: decision.kind === 'move' };
      if (race >= MAX_RACES) return { kind: 'refused', reason: 'the workflow changed meanwhile', current };
    }
  }

  /** The status, its columns and the events in one transaction; null when the status changed meanwhile. */
  private async commit(
    seen: Workflow,
    event: RunEvent,
    decision: Applicable,
    parts: ActionParts,
  ): Promise<Workflow | null> {
    let after: Workflow | null = null;
    const stored = await this.deps.events.appendWith(
      async (tx) => {
        const where = { ...parts.expect, id: seen.id, deleted_at: null, status: seen.status };
        const data = { ...statusColumns(decision, new Date()), ...parts.columns, ...revision(parts) };
        // A transition that writes no column still needs the status it was decided from.
        const count =
          Object.keys(data).length > 0
            ? (await tx!.workflow.updateMany({ where, data })).count
            : await tx!.workflow.count({ where });
        if (count === 0) return { groups: [] };
        after = await tx!.workflow.findUniqueOrThrow({ where: { id: seen.id } });
        if (parts.alongside) await parts.alongside(tx!, after);
        const { events } = transitionParts(decision, parts.action, after.plan_revision, new Date());
        if (parts.logEntry) events.push(await serverLogEntryEvent(tx!, after, events.length, parts.logEntry));
        return { groups: [{ workflow: seen, events }] };
      },
      { interactive: true, publish: false },
    );
    if (!after) return null;
    const status = decision.kind === 'move' ? decision.to : null;
    this.announce({ workflow: seen, cause: event.type, status, publish: stored, listChanged: status !== null });
    return after;
  }

  /**
   * A lost worker's unfinished runs (or just `only`) go back to the queue: `pending`, or still
   * `waiting_user` so the user can answer before another worker resumes it. Each run moves in its own
   * transaction with its event, conditional on its status and holder, so when several replicas sweep the
   * same worker each run is taken back once. The caller holds the ingest lock. Returns the ids moved.
   */
  async leaseExpired(workerId: string, only: readonly string[] | undefined): Promise<string[]> {
    const rows = await this.deps.db.workflow.findMany({
      where: {
        assigned_worker_id: workerId,
        status: { in: [...UNFINISHED] },
        deleted_at: null,
        ...(only ? { id: { in: [...only] } } : {}),
      },
      select: { id: true, project_id: true, status: true },
    });
    const moved: string[] = [];
    for (const row of rows) if (await this.requeue(row, workerId)) moved.push(row.id);
    return moved;
  }

  private async requeue(row: WorkflowRef & { status: string }, workerId: string): Promise<boolean> {
    const decision = decide(row.status as WorkflowStatus, { type: 'lease_expired' });
    if (decision.kind === 'refuse') return false;
    let moved = false;
    const stored = await this.deps.events.appendWith(
      async (tx) => {
        const { count } = await tx!.workflow.updateMany({
          where: { id: row.id, assigned_worker_id: workerId, deleted_at: null, status: row.status },
          data: { assigned_worker_id: null, ...statusColumns(decision, new Date()) },
        });
        moved = count === 1;
        return { groups: moved ? [{ workflow: row, events: statusEvents(decision) }] : [] };
      },
      { interactive: true, publish: false },
    );
    if (!moved) return false;
    // The worker resuming it logs that the command running when contact was lost may run twice (decision 0062).
    if (row.status === 'running')
      await recordIntent(this.deps.db, row.id, { action: 'resume', message: LEASE_LOSS_NOTE }, true);
    const status = decision.kind === 'move' ? decision.to : null;
    this.announce({ workflow: row, cause: 'lease_expired', status, publish: stored, listChanged: status !== null });
    return true;
  }

  /**
   * Gives a queued run to a worker; false when someone else got it first, it left the queue, or its
   * project's limit or its concurrency key has no room for it now (claim.ts).
   */
  claim(workflowId: string, workerId: string, contended = true): Promise<boolean> {
    return claimQueued(this.rawHandle(), this.deps.provider, workflowId, workerId, contended);
  }

  /** Takes a claim back (the dispatch could not be sent). The caller holds the ingest lock. */
  async unclaim(workflowId: string, workerId: string): Promise<void> {
    await this.deps.db.workflow.updateMany({
      where: { id: workflowId, assigned_worker_id: workerId },
      data: { assigned_worker_id: null },
    });
    this.bus.emit('stale', { workflowIds: [workflowId] });
  }

  /** Stores an answer or feedback for the worker of an unfinished run (replacing one not yet delivered). */
  recordIntent(workflowId: string, intent: Intent): Promise<void> {
    return recordIntent(this.deps.db, workflowId, intent);
  }

  /** The intent was handed to a worker: cleared unless a newer one replaced it meanwhile. */
  clearIntent(workflowId: string, intent: Intent): Promise<void> {
    return clearIntent(this.deps.db, workflowId, intent);
  }

  /** Cancelled: nothing waits for a worker any more (a final status a worker reports clears it with the status). */
  clearSteering(workflowId: string): Promise<void> {
    return clearSteering(this.deps.db, workflowId);
  }

  /** A title job's seq block for `workerId` (see intents.ts); null when another replica or a claim came first. */
  grantTitle(
    seen: { id: string; last_update_seq: number; title_last_seq: number | null },
    workerId: string,
  ): Promise<{ first: number; last: number } | null> {
    return grantTitle(this.autocommit(), this.deps.provider, seen, workerId);
  }

  /**
   * A timer of the run fired: the next hand-out resumes it with the timer's reason (kept behind an answer
   * or feedback not yet delivered). Only while the table admits it (the run is unfinished).
   */
  async timerFired(workflowId: string, reason: string): Promise<boolean> {
    const row = await this.deps.db.workflow.findFirst({ where: { id: workflowId, deleted_at: null } });
    if (!row || decide(row.status as WorkflowStatus, { type: 'timer_fired' }).kind === 'refuse') return false;
    await recordIntent(this.deps.db, workflowId, { action: 'resume', message: reason }, true);
    return true;
  }

  /**
   * Commits a batch of worker updates: each run's reported status (only while the table still admits it
   * from the stored status; otherwise the report is recorded, not applied) and other columns, the counters,
   * the rows of every kind and the events, atomically (see worker-batch.ts), then announces the changes.
   */
  async applyWorkerUpdates(batch: WorkerBatch): Promise<void> {
    await commitWorkerBatch(this.deps.events, this.bus, this.deps.provider, batch);
  }

  private announce(change: EngineEvents['transitioned']): void {
    this.bus.emit('stale', { workflowIds: [change.workflow.id] });
    this.bus.emit('transitioned', change);
  }
}

const revision = (parts: ActionParts): Prisma.WorkflowUpdateManyMutationInput =>
  parts.revisePlan ? { plan_revision: { increment: 1 }, plan_revising: true } : {};
