import { recordAudit, type AuditContext } from '../audit/record';
import type { Logger } from 'pino';
import {
  classifyAnyDbError,
  classifyDbError,
  type Db,
  type Prisma,
  type Project,
  type Timer,
  type Workflow,
} from '@svc/db';
import { answersChoices, MAX_REQUIRED_LABELS, type CreateWorkflowRequest, type WorkflowStatus } from '@svc/protocol';
import { newAppKey } from '../apps/app-link';
import { conflict, DomainError, invalidInput, notFound } from '../domain/errors';
import { encodeRequires, labelsOf, NO_LABELS, satisfies } from '../domain/routing';
import type { EventStore, NewEvent, StoredEvent } from '../events';
import {
  choicesOf,
  decide,
  notAChoice,
  type ActionParts,
  type Applied,
  type RunEvent,
  type WorkflowEngine,
} from '../engine';
import type { Storage } from '../services/storage';
import type { TemplateCatalog } from '../services/templates';
import { actionEvent, TIMEOUT_ACTOR, type Actor } from './actor';
import { timedOutLogEntry } from './timed-out';
import { concurrencyColumns, supersededBy, supersededReason } from './concurrency';
import { unfinishedWhere } from './status';
import type { Steering, TimerSchedule } from './steering';
import { placeholderTitle } from './title';
import type { RunBudgets } from './budgets';
import { budgetText } from './spend';

/** A run's branch: `svc/<run number>-<slug of its requirement>` (decision 0046). */
export function runBranch(number: number, requirement: string): string {
  const slug = requirement
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 40)
    .replace(/-+$/, '');
  return `svc/${number}-${slug || 'run'}`;
}

/**
 * A new run's repository record, written in the run's create transaction. The repository is read again
 * there: one deleted since the request was checked (or while this runs) fails the create as a whole.
 */
async function linkRepository(
  tx: Prisma.TransactionClient,
  workflow: Workflow,
  repository: { id: string; baseBranch: string },
  issueNumber: number | undefined,
): Promise<void> {
  const gone = () => invalidInput('body.repository.id: the repository was deleted meanwhile');
  const live = await tx.repository.count({ where: { id: repository.id, deleted_at: null } });
  if (live === 0) throw gone();
  try {
    await tx.workflowRepository.create({
      data: {
        workflow_id: workflow.id,
        repository_id: repository.id,
        base_branch: repository.baseBranch,
        branch: runBranch(workflow.number, workflow.requirement),
        issue_number: issueNumber ?? null,
      },
    });
  } catch (error) {
    // A foreign-key failure: the repository's row went away between the read above and this write.
    if (classifyDbError(error) === 'invalid_input') throw gone();
    throw error;
  }
}

/** What a create request got: the new workflow, or the one an earlier request with its idempotency key made. */
export interface Created {
  workflow: Workflow;
  created: boolean;
}

type NewWorkflowData = Omit<Prisma.WorkflowUncheckedCreateInput, 'number' | 'status'>;

/** A new workflow with its unpublished `created` event, or the one its idempotency key made before. */
type Inserted = { workflow: Workflow; created: true; stored: StoredEvent[] } | { workflow: Workflow; created: false };

export interface WorkflowLifecycleDeps {
  db: Db;
  events: EventStore;
  /** decides and commits every status change with its events */
  engine: WorkflowEngine;
  steering: Steering;
  timers: TimerSchedule;
  templates: TemplateCatalog;
  storage: Storage;
  logger: Logger;
  /** run budgets: spend, raise, the server's check after ingest */
  budgets: RunBudgets;
}

/**
 * The use cases that change a workflow: create, answer, feedback, cancel, retry, delete, project delete
 * and timers. Each has the engine decide and commit the change first (that is the truth workers follow),
 * then hands the work to the dispatcher; a dispatcher failure is logged and never undoes the change.
 */
/** The audit row of a run's cancel or delete, written in the transition's transaction. */
const runAudit =
  (audit: AuditContext, action: string, workflow: Workflow) =>
  (tx: Prisma.TransactionClient): Promise<void> =>
    recordAudit(tx, audit, {
      action,
      target: { type: 'run', id: workflow.id },
      projectId: workflow.project_id,
      detail: { status: workflow.status },
    });

export class WorkflowLifecycle {
  constructor(private readonly deps: WorkflowLifecycleDeps) {}

  get budgets(): RunBudgets {
    return this.deps.budgets;
  }

  /**
   * A `pending` workflow with its run number, its `created` event (committed with it) and its workspace
   * (filled from the template when one is chosen). Never waits for dispatch. With an idempotency key, a
   * repeated request (also a concurrent one) gets the workflow the first one made, `created: false`.
   * A schedule's tick names its schedule (`scheduleId`). A run that names a repository gets its
   * repository record in the same transaction as its row (with the forge issue that started it,
   * `issueNumber`): when that record cannot be written, there is no run either.
   */
  async create(
    project: Project,
    actor: Actor,
    body: CreateWorkflowRequest,
    options: { idempotencyKey?: string; scheduleId?: string; issueNumber?: number } = {},
  ): Promise<Created> {
    const key = options.idempotencyKey;
    const earlier = key === undefined ? null : await this.createdWith(project.id, key);
    if (earlier) return { workflow: earlier, created: false };
    const data = {
      ...(await this.newWorkflowData(project, actor, body, key)),
      schedule_id: options.scheduleId ?? null,
    };
    const repository = await this.checkRepository(project.id, body.repository);
    const inserted = await this.insertNumbered(
      project.id,
      key,
      data,
      (revision) => actionEvent('created', actor, revision),
      repository ? (tx, workflow) => linkRepository(tx, workflow, repository, options.issueNumber) : undefined,
    );
    if (!inserted.created) return inserted;
    const { workflow, stored } = inserted;
    await this.fillWorkspace(workflow, body.template);
    // Announced only now: until its workspace is ready, nobody is told of the workflow.
    this.deps.events.publish(stored);
    this.deps.events.publishProject(project.id, { change: 'workflow_created', workflow_id: workflow.id });
    for (const older of await supersededBy(this.deps.db, workflow))
      await this.cancel(older, actor, supersededReason(workflow)).catch(finishedMeanwhile);
    // Not awaited: the request is answered even while the dispatcher hangs.
    const { steering } = this.deps;
    steering
      .workflowQueued(workflow.id, workflow.requires !== NO_LABELS)
      .catch(this.steeringFailed('workflowQueued', workflow.id));
    steering.generateTitle(workflow.id).catch(this.steeringFailed('generateTitle', workflow.id));
    return { workflow, created: true };
  }

  /**
   * A question with choices takes only one of them (400, nothing changed); the answer applies only to the
   * question it was checked against, so a deadline's default or a newer question in between wins (409).
   */
  async answer(workflow: Workflow, actor: Actor, answer: string): Promise<Workflow> {
    const choices = workflow.status === 'waiting_user' ? choicesOf(workflow) : null;
    if (!answersChoices(choices, answer)) throw invalidInput(notAChoice(choices!));
    const updated = await this.apply(
      workflow,
      { type: 'answered' },
      (revision) => actionEvent('answered', actor, revision, answer),
      { expect: { question: workflow.question, question_choices: workflow.question_choices } },
    );
    await this.steer('answer', workflow.id, answer);
    return updated;
  }

  /**
   * The open question's deadline passed unanswered: the server answers with its default, recorded as
   * such (`by_timeout`). Only while that question is open, so of this, a user's answer and another
   * replica's timeout, exactly one answers it. False when it was answered (or changed) meanwhile.
   */
  async answerByTimeout(workflowId: string, deadline: Date): Promise<boolean> {
    const workflow = await this.deps.db.workflow.findFirst({
      where: { id: workflowId, deleted_at: null, status: 'waiting_user', question_deadline: deadline },
    });
    const fallback = workflow?.question_default;
    if (!workflow || fallback == null) return false;
    const applied = await this.deps.engine.apply(
      workflow,
      { type: 'answered' },
      {
        action: (revision) => actionEvent('answered', TIMEOUT_ACTOR, revision, fallback, true),
        expect: { question_deadline: deadline },
        logEntry: await timedOutLogEntry(this.deps.db, workflow, fallback, deadline),
      },
    );
    if (applied.kind !== 'applied') return false;
    this.deps.logger.info(
      { workflow_id: workflowId, answer: fallback },
      'question timed out: answered with its default',
    );
    await this.steer('answer', workflowId, fallback);
    return true;
  }

  /**
   * A finished workflow goes back to the queue; one in progress keeps its status and its worker revises
   * the plan. Either way the plan revision goes up by one, with its events, in one transaction.
   */
  async feedback(workflow: Workflow, actor: Actor, message: string): Promise<Workflow> {
    const hasPlan = (await this.deps.db.agentStateSnapshot.count({ where: { workflow_id: workflow.id } })) > 0;
    const updated = await this.apply(
      workflow,
      { type: 'feedback', hasPlan },
      (revision) => actionEvent('feedback', actor, revision, message),
      { revisePlan: true },
    );
    await this.steer('feedback', workflow.id, message);
    return updated;
  }

  /** `reason` says why when the user did not ask for it themselves (a `cancel_in_progress` run). */
  async cancel(workflow: Workflow, actor: Actor, reason?: string, audit?: AuditContext): Promise<Workflow> {
    const updated = await this.apply(
      workflow,
      { type: 'cancelled' },
      (revision) => actionEvent('cancelled', actor, revision, reason),
      { alongside: audit && runAudit(audit, 'run.cancelled', workflow) },
    );
    await this.stopped(workflow);
    return updated;
  }

  /**
   * The status stays until the worker reports `paused` at its next tool boundary (decision 0039); the
   * request is recorded (its action event) and stored for the worker (delivered now, or with the next dispatch).
   */
  async pause(workflow: Workflow, actor: Actor, interrupt: boolean): Promise<Workflow> {
    const updated = await this.apply(workflow, { type: 'pause_requested' }, (revision) =>
      actionEvent('pause_requested', actor, revision, interrupt ? 'interrupt' : undefined),
    );
    await this.steerSafely('pause', workflow.id, () => this.deps.steering.pause(workflow.id, interrupt));
    return updated;
  }

  /** Paused: back to running (planning when there is no plan yet); its worker continues where it stopped. */
  async resume(workflow: Workflow, actor: Actor): Promise<Workflow> {
    const hasPlan = (await this.deps.db.agentStateSnapshot.count({ where: { workflow_id: workflow.id } })) > 0;
    const updated = await this.apply(workflow, { type: 'resumed', hasPlan }, (revision) =>
      actionEvent('resumed', actor, revision),
    );
    await this.steer('resumePaused', workflow.id);
    return updated;
  }

  async retry(workflow: Workflow, actor: Actor): Promise<Workflow> {
    const updated = await this.apply(workflow, { type: 'retried' }, (revision) =>
      actionEvent('retried', actor, revision),
    );
    await this.steer('retry', workflow.id);
    return updated;
  }

  /** Soft delete, with the cancel of an unfinished workflow in the same transaction, so its worker stops. */
  async remove(workflow: Workflow, audit?: AuditContext): Promise<void> {
    const deleted = await this.deps.engine.apply(
      workflow,
      { type: 'deleted' },
      { columns: { deleted_at: new Date() }, alongside: audit && runAudit(audit, 'run.deleted', workflow) },
    );
    if (deleted.kind === 'applied' && deleted.moved) await this.stopped(workflow);
    await this.removeCommandOutputs(workflow);
    this.deps.events.publishProject(workflow.project_id, { change: 'workflow_deleted', workflow_id: workflow.id });
  }

  /** A deleted run's whole command outputs go (decision 0073); its log keeps the cut previews. */
  private async removeCommandOutputs(workflow: Pick<Workflow, 'id' | 'project_id'>): Promise<void> {
    const area = this.deps.storage.commandOutputs(workflow.project_id);
    try {
      const folder = await area.resolve(workflow.id);
      if (folder.stat) await area.delete(folder);
    } catch (err) {
      this.deps.logger.warn({ err, workflow_id: workflow.id }, 'could not remove the command outputs of a deleted run');
    }
  }

  /**
   * Soft delete: the project is marked deleted first (so nothing new reaches it), then its files are
   * moved to the archive; if the move fails the mark is undone. Its unfinished workflows are cancelled.
   */
  async removeProject(project: Project, audit?: AuditContext): Promise<void> {
    const { db, storage } = this.deps;
    const at = new Date();
    const archivePath = storage.archiveLocation(project.id, at);
    const marked = await db.project.updateMany({
      where: { id: project.id, deleted_at: null },
      data: { deleted_at: at, archive_path: archivePath },
    });
    if (marked.count === 0) throw notFound('project not found');
    // Its secrets go at once (the row stays for the archive; the foreign key deletes the rest with it).
    await db.secret.deleteMany({ where: { project_id: project.id } });
    // Its repositories' credentials went with them; the repositories themselves are marked deleted.
    await db.repository.updateMany({ where: { project_id: project.id, deleted_at: null }, data: { deleted_at: at } });
    try {
      await storage.archiveProject(project.id, at);
    } catch (err) {
      await db.project.update({ where: { id: project.id }, data: { deleted_at: null, archive_path: null } });
      throw err;
    }
    this.deps.logger.info({ project_id: project.id, archive_path: archivePath }, 'project deleted and archived');
    // Right after the change, not in its transaction: the deletion is only done once the files are archived.
    if (audit)
      await recordAudit(db, audit, {
        action: 'project.deleted',
        target: { type: 'project', id: project.id },
        projectId: project.id,
        detail: { name: project.name, archive_path: archivePath },
      });
    const unfinished = await db.workflow.findMany({
      where: { project_id: project.id, ...unfinishedWhere },
      select: { id: true, project_id: true },
    });
    for (const workflow of unfinished) {
      if ((await this.deps.engine.apply(workflow, { type: 'cancelled' })).kind === 'applied')
        await this.stopped(workflow);
    }
    this.deps.events.publishProject(project.id, { change: 'deleted' });
  }

  /**
   * An administrator brings a deleted project back (issue 26): its files move back from the archive,
   * then its deletion is cleared. Its secrets and its repositories' credentials were destroyed by the
   * deletion; the repositories stay deleted. Runs the deletion cancelled stay cancelled.
   */
  async restoreProject(projectId: string, audit: AuditContext): Promise<Project> {
    const { db, storage } = this.deps;
    const project = await db.project.findUnique({ where: { id: projectId } });
    if (!project?.deleted_at) throw notFound('no deleted project with this id');
    if (project.archive_path) await storage.restoreArchivedProject(project.id, project.archive_path);
    const restored = await db.$transaction(async (tx) => {
      // Only the restore that clears the deletion writes the row (two at once: the second finds none).
      const { count } = await tx.project.updateMany({
        where: { id: project.id, deleted_at: project.deleted_at },
        data: { deleted_at: null, archive_path: null },
      });
      if (count === 0) return null;
      await recordAudit(tx, audit, {
        action: 'project.restored',
        target: { type: 'project', id: project.id },
        projectId: project.id,
        detail: { name: project.name, archive_path: project.archive_path },
      });
      return tx.project.findUnique({ where: { id: project.id } });
    });
    if (!restored) throw notFound('no deleted project with this id');
    this.deps.logger.info({ project_id: project.id, archive_path: project.archive_path }, 'project restored');
    this.deps.events.publishProject(project.id, { change: 'restored' });
    return restored;
  }

  /**
   * What held queued runs back changed (a project's `max_running`, a worker resumed): every replica pumps
   * its queue again. `subject` names what changed, for the log should the wake fail.
   */
  async queueMayMove(subject: string): Promise<void> {
    await this.steer('workflowQueued', subject);
  }

  /** A durable resume (the agent's `set_timer`): the workflow is not dispatched while the timer is pending. */
  async setTimer(workflow: Workflow, seconds: number, reason: string): Promise<Timer> {
    const decision = decide(workflow.status as WorkflowStatus, { type: 'timer_set' });
    if (decision.kind === 'refuse') throw conflict(`${decision.reason} (status is ${workflow.status})`);
    const timer = await this.deps.db.timer.create({
      data: { workflow_id: workflow.id, fire_at: new Date(Date.now() + seconds * 1000), reason, status: 'pending' },
    });
    this.deps.timers.notify();
    return timer;
  }

  /** Cancelling a pending timer makes its workflow dispatchable at once. */
  async cancelTimer(timer: Timer): Promise<void> {
    const { count } = await this.deps.db.timer.updateMany({
      where: { id: timer.id, status: 'pending' },
      data: { status: 'cancelled' },
    });
    if (count === 0)
      throw conflict(`the timer is ${timer.status === 'pending' ? 'no longer pending' : timer.status} already`);
    this.deps.timers.notify();
    await this.steer('workflowQueued', timer.workflow_id);
  }

  /** The workflow the key created in the project (a deleted one is not made again: the key is spent). */
  private async createdWith(projectId: string, key: string): Promise<Workflow | null> {
    const earlier = await this.deps.db.workflow.findFirst({ where: { project_id: projectId, idempotency_key: key } });
    if (earlier?.deleted_at) throw conflict('the workflow this Idempotency-Key created has been deleted');
    return earlier;
  }

  /** The new row's columns, after checking what the request names (template, worker, earlier run). */
  private async newWorkflowData(
    project: Project,
    actor: Actor,
    body: CreateWorkflowRequest,
    key: string | undefined,
  ): Promise<NewWorkflowData> {
    await this.checkTemplate(body.template);
    const requires = await this.requiredLabels(body);
    const requestedWorkerId = await this.requestedWorker(body.worker_id, requires);
    await this.checkRerunOf(project.id, body.rerun_of);
    return {
      project_id: project.id,
      created_by: actor.id,
      requirement: body.requirement,
      title: placeholderTitle(body.requirement),
      requested_worker_id: requestedWorkerId,
      template: body.template ?? null,
      rerun_of: body.rerun_of ?? null,
      idempotency_key: key ?? null,
      app_key: newAppKey(),
      // The request's budget, else the project's default, copied: a later default does not change the run.
      budget: body.budget ? budgetText(body.budget) : project.default_budget,
      ...concurrencyColumns(body),
      requires: encodeRequires(requires),
    };
  }

  /** The labels the run requires: the request's and its template's (a `.svc-requires` file of its branch). */
  private async requiredLabels(body: CreateWorkflowRequest): Promise<string[]> {
    const fromTemplate =
      body.template === undefined ? [] : ((await this.deps.templates.requires?.(body.template)) ?? []);
    const labels = [...new Set([...(body.requires ?? []), ...fromTemplate])];
    if (labels.length > MAX_REQUIRED_LABELS)
      throw invalidInput(`body.requires: at most ${MAX_REQUIRED_LABELS} labels with the template's`);
    return labels;
  }

  /** `invalid_input` unless the catalog has the template (a schedule checks its template the same way). */
  async checkTemplate(template: string | undefined): Promise<void> {
    if (template !== undefined && !(await this.deps.templates.list()).some((t) => t.name === template))
      throw invalidInput(`body.template: no template named ${JSON.stringify(template)}`);
  }

  /** A worker is chosen by id or by name, and must have the required labels; the workflow keeps its id. */
  async requestedWorker(idOrName: string | undefined, requires: readonly string[] = []): Promise<string | null> {
    if (idOrName === undefined) return null;
    const worker = await this.deps.db.worker.findFirst({
      where: { OR: [{ id: idOrName }, { name: idOrName }] },
      select: { id: true, labels: true },
    });
    if (!worker) throw invalidInput('body.worker_id: no worker with that id or name');
    // It would wait for ever: the worker it names never takes it.
    if (!satisfies(labelsOf(worker.labels), requires))
      throw invalidInput(`body.worker_id: that worker does not have the labels ${requires.join(', ')}`);
    return worker.id;
  }

  /** The run's repository (decision 0046): a live one of the same project; the base branch defaults to its default. */
  private async checkRepository(
    projectId: string,
    wanted: CreateWorkflowRequest['repository'],
  ): Promise<{ id: string; baseBranch: string } | null> {
    if (wanted === undefined) return null;
    const repository = await this.deps.db.repository.findFirst({
      where: { id: wanted.id, project_id: projectId, deleted_at: null },
      select: { id: true, default_branch: true },
    });
    if (!repository) throw invalidInput('body.repository.id: no repository with that id in this project');
    return { id: repository.id, baseBranch: wanted.base_branch ?? repository.default_branch };
  }

  /** Only a live workflow of the same project: another project's id is as unknown as a made-up one. */
  private async checkRerunOf(projectId: string, rerunOf: string | undefined): Promise<void> {
    if (rerunOf === undefined) return;
    const earlier = await this.deps.db.workflow.findFirst({
      where: { id: rerunOf, project_id: projectId, deleted_at: null },
      select: { id: true },
    });
    if (!earlier) throw invalidInput('body.rerun_of: no workflow with that id in this project');
  }

  /** The new workflow's workspace; on failure the workflow (with its event) is taken back. */
  private async fillWorkspace(workflow: Workflow, template: string | undefined): Promise<void> {
    const workspace = this.deps.storage.workspace(workflow.project_id, workflow.id);
    try {
      await workspace.create();
      if (template !== undefined) await this.deps.templates.materialize(template, workspace);
    } catch (err) {
      // Nobody has been told of the workflow yet: take it back rather than leave one without its files.
      await workspace.destroy().catch(() => undefined);
      await this.deps.db.workflow.delete({ where: { id: workflow.id } });
      throw err;
    }
  }

  /**
   * Inserts the workflow with the project's next run number, and its `created` event, in one
   * transaction (the engine takes the number there). Two creates racing with one idempotency key
   * collide on its unique index: the loser returns the winner's workflow.
   */
  private async insertNumbered(
    projectId: string,
    key: string | undefined,
    data: NewWorkflowData,
    created: (revision: number) => NewEvent,
    alongside?: (tx: Prisma.TransactionClient, workflow: Workflow) => Promise<void>,
  ): Promise<Inserted> {
    try {
      return { ...(await this.deps.engine.create(data, created, alongside)), created: true };
    } catch (err) {
      const earlier =
        key === undefined || classifyAnyDbError(err) !== 'conflict' ? null : await this.createdWith(projectId, key);
      if (earlier) return { workflow: earlier, created: false };
      throw err;
    }
  }

  /** The engine applies the event; a refusal is the action's 409, a run gone meanwhile its 404. */
  private async apply(
    workflow: Workflow,
    event: RunEvent,
    action: (revision: number) => ReturnType<typeof actionEvent>,
    options: Pick<ActionParts, 'revisePlan' | 'alongside' | 'expect'> = {},
  ): Promise<Workflow> {
    const applied: Applied = await this.deps.engine.apply(workflow, event, { action, ...options });
    if (applied.kind === 'gone') throw notFound('workflow not found');
    if (applied.kind === 'refused') throw conflict(`${applied.reason} (status is ${applied.current.status})`);
    return applied.current;
  }

  /** What belongs to a cancel besides the status: its pending timers end and its worker is told to stop. */
  private async stopped(workflow: { id: string }): Promise<void> {
    const { count } = await this.deps.db.timer.updateMany({
      where: { workflow_id: workflow.id, status: 'pending' },
      data: { status: 'cancelled' },
    });
    if (count > 0) this.deps.timers.notify();
    await this.steer('cancel', workflow.id);
  }

  /** Hands work to the dispatcher; its failure is only logged: the stored status is the truth and it re-reads it. */
  private async steer(action: Exclude<keyof Steering, 'pause'>, workflowId: string, text?: string): Promise<void> {
    try {
      if (action === 'answer' || action === 'feedback') await this.deps.steering[action](workflowId, text ?? '');
      else await this.deps.steering[action](workflowId);
    } catch (err) {
      this.steeringFailed(action, workflowId)(err);
    }
  }

  private async steerSafely(action: keyof Steering, workflowId: string, work: () => Promise<void>): Promise<void> {
    await work().catch(this.steeringFailed(action, workflowId));
  }

  private steeringFailed(action: keyof Steering, workflowId: string): (err: unknown) => void {
    return (err) => this.deps.logger.error({ err, workflow_id: workflowId }, `dispatcher.${action} failed`);
  }
}

/** A run that finished or went away before it could be cancelled needs no cancel. */
function finishedMeanwhile(err: unknown): void {
  if (!(err instanceof DomainError)) throw err;
}
