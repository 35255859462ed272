import { recordAudit, type AuditContext } from '../audit/record';
import type { Logger } from 'pino';
import type { Db, Prisma, Workflow } from '@svc/db';
import {
  budgetError,
  budgetQuestion,
  describeReached,
  patchBudget,
  reachedCaps,
  type Budget,
  type BudgetExceededEventData,
  type BudgetPatch,
  type DispatchBudget,
  type Spend,
  type WorkflowBudget,
} from '@svc/protocol';
import { conflict, notFound } from '../domain/errors';
import { NO_QUESTION_OPTIONS, type WorkflowEngine } from '../engine';
import { actionEvent, type Actor } from './actor';
import type { Steering } from './steering';
import { budgetText, callsBeforeLast, callsByModel, llmPrices, spendOf, storedBudget } from './spend';

export interface RunBudgetsDeps {
  db: Db;
  engine: WorkflowEngine;
  steering: Steering;
  logger: Logger;
}

type BudgetRow = Pick<
  Workflow,
  'id' | 'project_id' | 'status' | 'budget' | 'budget_exceeded_at' | 'started_at' | 'finished_at'
>;

const BUDGET_SELECT = {
  id: true,
  project_id: true,
  status: true,
  budget: true,
  budget_exceeded_at: true,
  started_at: true,
  finished_at: true,
} as const;

/** The budget and spend a worker is dispatched with; undefined when the run has no budget. */
export async function dispatchBudgetOf(db: Db, workflowId: string): Promise<DispatchBudget | undefined> {
  const row = await db.workflow.findUnique({ where: { id: workflowId }, select: BUDGET_SELECT });
  const budget = storedBudget(row?.budget);
  if (!row || !budget) return undefined;
  const [calls, prices] = await Promise.all([callsByModel(db, row.id), llmPrices(db)]);
  return { budget, spend: spendOf(calls, prices, row.started_at, row.finished_at ?? new Date()), prices };
}

/** What a raise says to the worker waiting on the budget question (the `answered` action's message). */
export const BUDGET_RAISED = 'The budget was raised; continue.';

/**
 * Run budgets: the spend against the caps, the raise that resumes a run waiting on the budget question,
 * and the server's own check after ingest (authoritative: a worker that does not check is stopped too).
 * Status changes go through the engine.
 */
export class RunBudgets {
  constructor(private readonly deps: RunBudgetsDeps) {}

  async spend(row: Pick<BudgetRow, 'id' | 'started_at' | 'finished_at'>, now = new Date()): Promise<Spend> {
    const [calls, prices] = await Promise.all([callsByModel(this.deps.db, row.id), llmPrices(this.deps.db)]);
    return spendOf(calls, prices, row.started_at, row.finished_at ?? now);
  }

  async view(workflowId: string): Promise<WorkflowBudget> {
    const row = await this.row(workflowId);
    const budget = storedBudget(row.budget);
    const spend = await this.spend(row);
    const exceeded = row.budget_exceeded_at !== null && (row.status === 'waiting_user' || row.status === 'failed');
    return { budget, spend, reached: reachedCaps(budget, spend), exceeded };
  }

  /**
   * Sets or raises the run's budget. A run waiting on the budget question whose spend reaches no cap of
   * the new budget resumes, like an answer: its worker continues the same step where it stopped.
   */
  async patch(workflowId: string, actor: Actor, patch: BudgetPatch, audit?: AuditContext): Promise<WorkflowBudget> {
    const row = await this.row(workflowId);
    const budget = patchBudget(storedBudget(row.budget), patch);
    await this.deps.db.$transaction(async (tx) => {
      await tx.workflow.update({ where: { id: row.id }, data: { budget: budgetText(budget) } });
      if (audit)
        await recordAudit(tx, audit, {
          action: 'run.budget_changed',
          target: { type: 'run', id: row.id },
          projectId: row.project_id,
          detail: { budget },
        });
    });
    const spend = await this.spend(row);
    if (row.budget_exceeded_at && row.status === 'waiting_user' && reachedCaps(budget, spend).length === 0)
      await this.resume(row, actor);
    return this.view(workflowId);
  }

  /** Leaves the budget question (through the engine, as an answer) and hands the raise to the worker. */
  private async resume(row: BudgetRow, actor: Actor): Promise<void> {
    const applied = await this.deps.engine.apply(
      row,
      { type: 'answered' },
      {
        action: (revision) => actionEvent('answered', actor, revision, BUDGET_RAISED),
        columns: { budget_exceeded_at: null },
      },
    );
    if (applied.kind === 'refused') throw conflict(`${applied.reason} (status is ${applied.current.status})`);
    await this.deps.steering
      .answer(row.id, BUDGET_RAISED)
      .catch((err: unknown) => this.deps.logger.error({ err, workflow_id: row.id }, 'dispatcher.answer failed'));
  }

  /**
   * After ingest stored LLM calls of these runs: a call that started when a cap was already reached ran
   * past the budget (its worker did not check), so the run is stopped now: paused on the budget question
   * or failed, with a `budget_exceeded` event. The call itself stays recorded (it was spent).
   */
  async checkIngested(workflowIds: readonly string[]): Promise<void> {
    for (const id of workflowIds) await this.checkOne(id);
  }

  private async checkOne(workflowId: string): Promise<void> {
    const row = await this.deps.db.workflow.findFirst({
      where: {
        id: workflowId,
        deleted_at: null,
        budget: { not: null },
        status: { in: ['pending', 'planning', 'running'] },
      },
      select: BUDGET_SELECT,
    });
    const budget = storedBudget(row?.budget);
    if (!row || !budget) return;
    const [calls, prices] = await Promise.all([callsByModel(this.deps.db, row.id), llmPrices(this.deps.db)]);
    const before = await callsBeforeLast(this.deps.db, row.id, calls);
    if (!before) return;
    const reached = reachedCaps(budget, spendOf(before.calls, prices, row.started_at, before.at));
    if (reached.length === 0) return;
    const spend = spendOf(calls, prices, row.started_at, new Date());
    await this.stop(
      row,
      budget,
      reachedCaps(budget, spend),
      describeReached(budget, spend, reachedCaps(budget, spend)),
    );
  }

  private async stop(
    row: BudgetRow,
    budget: Budget,
    reached: BudgetExceededEventData['reached'],
    detail: string,
  ): Promise<void> {
    const policy = budget.on_exceed;
    const message = policy === 'pause' ? budgetQuestion(detail) : budgetError(detail);
    const columns: Prisma.WorkflowUpdateManyMutationInput =
      policy === 'pause'
        ? // the budget question replaces an open one, whose choices and deadline end with it
          { budget_exceeded_at: new Date(), question: message, ...NO_QUESTION_OPTIONS }
        : { budget_exceeded_at: new Date(), error: message };
    const data: BudgetExceededEventData = { policy, reached, message, by: 'server' };
    const applied = await this.deps.engine.apply(
      row,
      { type: 'budget_exceeded', policy },
      { columns, action: () => ({ type: 'budget_exceeded', data }) },
    );
    if (applied.kind === 'applied')
      this.deps.logger.warn({ workflow_id: row.id, reached }, 'run past its budget stopped by the server');
  }

  private async row(workflowId: string): Promise<BudgetRow> {
    const row = await this.deps.db.workflow.findFirst({
      where: { id: workflowId, deleted_at: null },
      select: BUDGET_SELECT,
    });
    if (!row) throw notFound('workflow not found');
    return row;
  }
}
