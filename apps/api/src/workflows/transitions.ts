import type { Db, Prisma, Workflow } from '@svc/db';
import type { EventStore, WorkflowRef } from '../events';
import { unfinishedWhere, UNFINISHED_STATUSES, type StatusChange } from './status';
import { TERMINAL_WORKFLOW_STATUSES, type WorkflowStatus } from '@svc/protocol';

/** A final status stamps `finished_at`; leaving one (retry, feedback) clears it. */
const finishedAt = (status: string, at: Date): Date | null =>
  TERMINAL_WORKFLOW_STATUSES.includes(status as WorkflowStatus) ? at : null;

/**
 * The only writes of a workflow's `status`. Each is one conditional UPDATE (two racing requests cannot
 * both win, and a workflow that finished meanwhile stays finished), followed by its events. The use
 * cases (lifecycle.ts), the dispatcher and the update ingest all change status through here.
 */
export class WorkflowTransitions {
  constructor(private readonly deps: { db: Db; events: EventStore }) {}

  /**
   * Moves a live workflow to `change.status` if its status is still one of `from`. Returns the row as it
   * is afterwards (null when it is gone) and whether this call moved it; publishes the events if so.
   */
  async move(
    workflow: WorkflowRef,
    from: readonly WorkflowStatus[],
    change: StatusChange,
  ): Promise<{ moved: boolean; current: Workflow | null }> {
    const { db } = this.deps;
    const { count } = await db.workflow.updateMany({
      where: { id: workflow.id, deleted_at: null, status: { in: [...from] } },
      data: { ...change, finished_at: finishedAt(change.status, new Date()) },
    });
    if (count > 0) await this.published(workflow, change);
    const current = await db.workflow.findFirst({ where: { id: workflow.id, deleted_at: null } });
    return { moved: count > 0, current };
  }

  /** Cancels an unfinished workflow; false when it had finished already. */
  async cancel(workflow: WorkflowRef): Promise<boolean> {
    return (await this.move(workflow, UNFINISHED_STATUSES, { status: 'cancelled', question: null })).moved;
  }

  /**
   * A worker's status update, inside the ingest's transaction: written only while the workflow is
   * unfinished (a cancel in between wins), with its start and finish times. The ingest stores the
   * events with its batch.
   */
  async applyWorkerStatus(
    tx: Prisma.TransactionClient,
    workflowId: string,
    patch: Prisma.WorkflowUpdateManyMutationInput,
  ): Promise<boolean> {
    const at = new Date();
    const status = patch.status as string;
    const { count } = await tx.workflow.updateMany({
      where: { id: workflowId, ...unfinishedWhere },
      data: { ...patch, finished_at: finishedAt(status, at) },
    });
    if (count === 1 && status !== 'pending') {
      // The first time a worker reports it working (or finished): started_at is kept after that.
      await tx.workflow.updateMany({ where: { id: workflowId, started_at: null }, data: { started_at: at } });
    }
    return count === 1;
  }

  /**
   * Puts a worker's unfinished workflows (or just `only`) back in the queue: `pending`, or still
   * `waiting_user` so the user can answer before another worker resumes it. Conditional on the status,
   * so a workflow cancelled meanwhile stays cancelled. Each row is moved by its own conditional UPDATE,
   * so when several replicas sweep the same lost worker each workflow is taken back (and announced)
   * once. Returns the rows this call moved; the caller publishes afterwards with `publishRequeued` (it
   * may hold a lock that publishing must not extend).
   */
  async requeueFromWorker(
    workerId: string,
    only: readonly string[] | undefined,
  ): Promise<{ id: string; project_id: string; status: string }[]> {
    const { db } = this.deps;
    const rows = await db.workflow.findMany({
      where: { assigned_worker_id: workerId, ...unfinishedWhere, ...(only ? { id: { in: [...only] } } : {}) },
      select: { id: true, project_id: true, status: true },
    });
    const moved: typeof rows = [];
    for (const row of rows) {
      // Still waiting for the user: it keeps that status so the user can answer before another worker resumes it.
      const data =
        row.status === 'waiting_user' ? { assigned_worker_id: null } : { assigned_worker_id: null, status: 'pending' };
      const { count } = await db.workflow.updateMany({
        where: { id: row.id, assigned_worker_id: workerId, ...unfinishedWhere, status: row.status },
        data,
      });
      if (count === 1) moved.push(row);
    }
    return moved;
  }

  /** The events of `requeueFromWorker`: only workflows that really went back to `pending` changed. */
  async publishRequeued(rows: readonly { id: string; project_id: string; status: string }[]): Promise<void> {
    for (const row of rows) {
      if (row.status === 'waiting_user' || row.status === 'pending') continue;
      await this.published(row, { status: 'pending' });
    }
  }

  /** The `workflow_status` event (stored, replayable) and the project's `workflow_updated` notice. */
  private async published(workflow: WorkflowRef, change: StatusChange): Promise<void> {
    const data: StatusChange = { status: change.status };
    if (change.question !== undefined) data.question = change.question;
    if (change.error !== undefined) data.error = change.error;
    await this.deps.events.append(workflow, [{ type: 'workflow_status', data }]);
    this.deps.events.publishProject(workflow.project_id, { change: 'workflow_updated', workflow_id: workflow.id });
  }
}
