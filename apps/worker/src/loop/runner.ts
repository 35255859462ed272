import {
  AgentTransitionError,
  answerUser,
  askUser,
  fromSnapshot,
  initialState,
  saveMemo,
  type AgentState,
} from '@svc/agent-core';
import {
  budgetError,
  budgetQuestion,
  type BudgetCap,
  type DispatchBudget,
  type LogEntryUpdateData,
  type QuestionOptions,
  type SnapshotData,
  type StepHistory,
} from '@svc/protocol';
import type { ChatModel } from '../llm/llm-client';
import type { OutputObject, Tool, ToolContext } from '../tools/tool';
import { isAffirmative, pendingCallOf, type PendingCall } from '../mcp/approval';
import { mcpTools } from '../mcp/mcp-tools';
import { McpSession } from '../mcp/session';
import { truncateUtf8 } from '@svc/text';
import { errorMessage } from '../util/logger';
import { AbortedError } from '../util/aborted';
import type { TreeState } from '../workspace/sync';
import type { Job, LoopDeps } from './deps';
import { BudgetedModel, BudgetExceededError, BudgetMeter } from './budget-guard';
import { runStep, type StepOpening } from './execution';
import { resumeOpening } from './resume';
import { runPlanning } from './planning';
import { writeReport } from './report';
import { revise } from './revise';
import { PauseGate } from './pause-gate';
import type { RunContext } from './run-context';
import { createToolContext } from './tool-context';
import { WorkflowUpdates } from './updates';
import { keepWholeText } from './whole-output';
import { RunRepository } from '../workspace/git-repository';
import { REPORT_PATH } from './report';

export interface RunRequest {
  action: 'start' | 'resume' | 'feedback' | 'answer';
  template?: string | null;
  /** The server's latest snapshot (resume, feedback, answer). */
  snapshot?: SnapshotData;
  /** A newer state this worker still holds (feedback that interrupted a live run). */
  state?: AgentState;
  /** Feedback text, the user's answer, or why a timer resumed the workflow. */
  message?: string;
  /** A run resumed after a lease loss: the tool calls its step made before (decision 0063). */
  stepHistory?: StepHistory;
}

/** How a run ended. `paused`: waiting for a timer; `superseded`: replaced by a newer run (feedback). */
export type RunEnd = 'completed' | 'failed' | 'cancelled' | 'paused' | 'superseded' | 'shutdown';
/** `lost`: the server took the run back while this worker was out of contact (decision 0062). */
export type StopReason = 'cancel' | 'supersede' | 'shutdown' | 'lost';

/** One workflow's agent loop on this worker: Planning -> Executing(N) -> Completed. */
export class WorkflowRun implements RunContext {
  readonly llm: ChatModel;
  readonly updates: WorkflowUpdates;
  private current: AgentState = initialState();
  private readonly controller = new AbortController();
  /** Aborted by a cancel only: ends the upload after a stop or failure too (a shutdown leaves it its drain time). */
  private readonly cancelled = new AbortController();
  private stopReason: StopReason | undefined;
  private answerWaiter: { resolve(answer: string): void; reject(err: Error): void } | undefined;
  private baseline: TreeState = new Map();
  private readonly budget: BudgetMeter;
  private readonly pause = new PauseGate();
  private mcp: McpSession | undefined;
  private repository: RunRepository | undefined;
  private pushed = false;

  constructor(
    readonly deps: LoopDeps,
    readonly job: Job,
  ) {
    this.budget = new BudgetMeter(job.budget);
    this.llm = new BudgetedModel(deps.llmFor(job.workflowId), this.budget, (caps, detail) =>
      this.budgetReached(caps, detail),
    );
    this.updates = new WorkflowUpdates(deps.link, job.workflowId);
  }

  get state(): AgentState {
    return this.current;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get waitingForAnswer(): boolean {
    return this.answerWaiter !== undefined;
  }

  apply(transition: { state: AgentState }): void {
    this.current = transition.state;
    this.updates.snapshot(transition.state);
  }

  log(entry: LogEntryUpdateData): void {
    this.updates.log(entry);
  }

  toolContext(stepIndex: number | null): ToolContext {
    return {
      ...createToolContext(this.deps, this.job, stepIndex, this.signal, () => this.pause.commandSignal),
      atToolBoundary: () => this.pauseHere(),
    };
  }

  get paused(): boolean {
    return this.pause.paused;
  }

  /** A member paused the run: it stops at the next tool boundary (decision 0039). */
  requestPause(interrupt: boolean): void {
    this.pause.request(interrupt);
  }

  /** A member resumed the run: it goes on where it stopped; false when it is not paused. */
  resumeFromPause(): boolean {
    return this.pause.resume();
  }

  /** Uploads the workspace, reports `paused`, waits for the resume, and reports what it does again. */
  private pauseHere(): Promise<void> {
    const resumeStatus = this.resumeStatus();
    return this.pause.boundary(
      this.signal,
      async () => {
        // A paused run holds no MCP server; the next call connects again.
        await this.mcp?.close();
        await this.syncWorkspace();
        this.updates.status('paused');
      },
      () => this.updates.status(resumeStatus),
    );
  }

  /**
   * Uploads what changed. Retried while the server is unreachable, until the run stops; the upload
   * after a stop or failure (`untilStopped` false) goes on until it succeeds, the run is cancelled or
   * the worker shuts down.
   */
  async syncWorkspace(untilStopped = true): Promise<void> {
    const signal = untilStopped ? this.signal : this.cancelled.signal;
    // A fenced run uploads nothing: another worker may own its workspace by now (decision 0062).
    if (untilStopped) await this.deps.fence?.beforeUpload(this.job.workflowId, this.signal);
    const pushed = await this.deps.workspace.push(this.job.workflowId, this.baseline, signal);
    this.baseline = pushed.after;
    this.updates.filesChanged(pushed.changes);
  }

  private resumeStatus(): 'planning' | 'running' {
    return this.current.phase.kind === 'planning' ? 'planning' : 'running';
  }

  /** The MCP servers' tools for a phase: planning gets the read-only ones (decision 0042). */
  mcpTools(which: 'read-only' | 'all'): Tool[] {
    return this.mcp ? mcpTools(this.mcp, which) : [];
  }

  async runApprovedCall(call: PendingCall): Promise<{ text: string; isError: boolean; outputObject?: OutputObject }> {
    const info = this.mcp?.tools.find((tool) => tool.name === call.tool);
    if (!this.mcp || !info) return { text: `${call.tool} is no longer offered: the call did not run`, isError: true };
    const result = await this.mcp.call(info, call.args, this.signal);
    const cut = truncateUtf8(result.text, this.deps.config.toolOutputMaxBytes, { marker: true });
    // The raw log gets the whole result, as for a call that needed no approval (decision 0081).
    const store = {
      api: this.deps.api,
      logger: this.deps.logger,
      workflowId: this.job.workflowId,
      signal: this.signal,
    };
    const whole = this.job.secrets?.mask(result.text) ?? result.text;
    const outputObject = cut.truncated
      ? await keepWholeText(store, whole, this.deps.config.commandOutputMaxBytes)
      : undefined;
    return { text: cut.text, isError: result.isError, ...(outputObject ? { outputObject } : {}) };
  }

  /** Connects the run's MCP servers (the worker's and the project's); one that fails is logged and left out. */
  private async openMcp(): Promise<void> {
    const servers = this.job.mcpServers ?? [];
    if (servers.length === 0) return;
    this.mcp = await McpSession.open({
      servers,
      secrets: this.job.secrets?.list ?? [],
      executor: this.deps.executor,
      workflowId: this.job.workflowId,
      projectId: this.job.projectId,
      callTimeoutMs: this.deps.config.mcpTimeoutSeconds * 1000,
      ask: (question, options) => this.askUser(question, this.resumeStatus(), options),
      beforeCall: async (signal) => {
        await this.deps.fence?.beforeCommand(this.job.workflowId, signal);
      },
      onUnavailable: (server, reason) => {
        this.deps.logger.warn({ workflowId: this.job.workflowId, server, error: reason }, 'MCP server unavailable');
        this.log({
          step_index: null,
          tool_name: `mcp__${server}`,
          tool_input: {},
          output: `MCP server ${server} is unavailable for this run: ${reason}`,
          is_error: true,
        });
      },
    });
  }

  /**
   * Clones the run's repository into its workspace through this worker's mirror cache, on the run's
   * branch (decision 0046). A clone that fails (bad credentials, a missing base branch) is reported
   * (a `repository` update and a log entry) and fails the run.
   */
  private async openRepository(request: RunRequest): Promise<void> {
    const repository = this.job.repository;
    if (!repository) return;
    this.repository = new RunRepository({
      workflowId: this.job.workflowId,
      workspace: this.deps.workspace.dir(this.job.workflowId),
      cacheRoot: this.deps.workspace.gitCacheDir(),
      repository,
      exclude: [REPORT_PATH],
      signal: this.signal,
    });
    const fresh = this.current.steps.length === 0 && request.snapshot === undefined && request.state === undefined;
    try {
      const prepared = await this.repository.prepare(fresh);
      this.gitLog(
        null,
        `${prepared.branchExisted ? 'continued' : 'created'} branch ${repository.branch} from ${
          prepared.branchExisted ? repository.branch : repository.base_branch
        } at ${prepared.head.slice(0, 12)} (mirror ${prepared.mirror})`,
        false,
      );
    } catch (err) {
      if (err instanceof AbortedError || this.signal.aborted) throw err;
      const reason = `the repository could not be cloned: ${errorMessage(err)}`;
      this.gitLog(null, reason, true);
      this.updates.repository({
        branch: repository.branch,
        base_branch: repository.base_branch,
        head_sha: null,
        pushed: false,
        error: reason,
      });
      this.repository = undefined;
      throw new Error(reason);
    }
  }

  async commitStep(stepIndex: number): Promise<void> {
    if (!this.repository) return;
    const title = this.current.steps[stepIndex]?.title ?? `step ${stepIndex + 1}`;
    try {
      const sha = await this.repository.commitStep(title);
      this.gitLog(
        stepIndex,
        sha ? `committed ${sha.slice(0, 12)} ${JSON.stringify(title)}` : 'nothing to commit',
        false,
      );
    } catch (err) {
      if (this.signal.aborted) throw err;
      this.gitLog(stepIndex, `the step's commit failed: ${errorMessage(err)}`, true);
    }
  }

  /**
   * Commits what is left, pushes the branch and reports it (`repository` update, before `completed`);
   * a rejected push is reported, never thrown. Returns the report's repository section.
   */
  private async pushRepository(): Promise<string | undefined> {
    const repository = this.repository;
    if (!repository) return undefined;
    await repository.commitStep('svc: final changes').catch((err: unknown) => {
      this.gitLog(null, `the final commit failed: ${errorMessage(err)}`, true);
    });
    const report = await repository.push();
    this.pushed = report.pushed;
    this.updates.repository(report);
    this.gitLog(
      null,
      report.pushed
        ? `pushed ${repository.branch} at ${report.head_sha?.slice(0, 12) ?? '?'}`
        : `the push of ${repository.branch} was rejected: ${report.error ?? ''}`,
      !report.pushed,
    );
    return repositorySection(repository, report);
  }

  /**
   * A run that ended with its branch pushed (or cancelled) drops its git directory: a later revision
   * fetches its pushed branch again. A failed push or run keeps it, so a revision here pushes its commits.
   */
  private async finished(end: RunEnd): Promise<RunEnd> {
    this.repository?.release();
    if (this.repository && ((end === 'completed' && this.pushed) || end === 'cancelled'))
      await this.repository
        .dispose()
        .catch((err: unknown) =>
          this.deps.logger.warn(
            { workflowId: this.job.workflowId, error: errorMessage(err) },
            'git directory not removed',
          ),
        );
    return end;
  }

  private gitLog(stepIndex: number | null, output: string, isError: boolean): void {
    this.log({ step_index: stepIndex, tool_name: 'git', tool_input: {}, output, is_error: isError });
  }

  /**
   * The answer to a question this run restored from a snapshot. When it was an MCP call's approval,
   * a yes runs exactly that call now; its result (or the refusal) is kept as a memo and logged, since
   * the step goes on in a fresh context.
   */
  private async answerRestored(answer: string): Promise<void> {
    const call = pendingCallOf(this.current.pendingQuestion);
    this.apply(answerUser(this.current, answer));
    if (!call) return;
    const outcome = isAffirmative(answer)
      ? await this.runApprovedCall(call)
      : { text: `not run: the user refused it (${answer})`, isError: true };
    const stepIndex = this.current.phase.kind === 'executing' ? this.current.phase.step : null;
    this.log({
      step_index: stepIndex,
      tool_name: call.tool,
      tool_input: call.args,
      output: outcome.text,
      is_error: outcome.isError,
      ...('outputObject' in outcome && outcome.outputObject ? { output_object: outcome.outputObject } : {}),
    });
    const memo = `The MCP call ${call.tool} ${JSON.stringify(call.args)} that waited for approval: ${outcome.text}`;
    this.apply(saveMemo(this.current, truncateUtf8(memo, 4000, { marker: true }).text));
  }

  async askUser(
    question: string,
    resumeStatus: 'planning' | 'running',
    options: QuestionOptions = {},
  ): Promise<string> {
    this.apply(askUser(this.current, question));
    await this.syncWorkspace();
    const answer = await this.waitForAnswer(question, options);
    this.apply(answerUser(this.current, answer));
    this.updates.status(resumeStatus);
    return answer;
  }

  /**
   * A cap is reached before an LLM call. `fail`: the run fails. `pause`: it waits on the budget question
   * (the agent's state is untouched), and a raise continues the same conversation where it stopped, so
   * nothing already run runs again.
   */
  private async budgetReached(caps: BudgetCap[], detail: string): Promise<void> {
    if (this.budget.policy === 'fail') throw new BudgetExceededError(budgetError(detail), caps);
    const resumeStatus = this.resumeStatus();
    await this.syncWorkspace();
    await new Promise<string>((resolve, reject) => {
      if (this.signal.aborted) return reject(new AbortedError());
      this.answerWaiter = { resolve, reject };
      this.updates.status('waiting_user', { question: budgetQuestion(detail), budget_exceeded: caps });
    });
    this.updates.status(resumeStatus);
  }

  /** A raise (or any later dispatch) brings the budget and the spend the server counted. */
  updateBudget(budget: DispatchBudget | undefined): void {
    this.budget.reset(budget);
  }

  /** Hands the user's answer to a waiting loop; false when the loop is not waiting. */
  deliverAnswer(answer: string): boolean {
    const waiter = this.answerWaiter;
    if (!waiter) return false;
    this.answerWaiter = undefined;
    waiter.resolve(answer);
    return true;
  }

  /** Stops the loop: running commands are killed, pending LLM calls aborted. */
  stop(reason: StopReason): void {
    this.stopReason ??= reason;
    this.controller.abort();
    // A cancel interrupts whatever the run does, the upload after it ended included (issue 27).
    if (reason === 'cancel') this.cancelled.abort();
    this.answerWaiter?.reject(new AbortedError());
    this.answerWaiter = undefined;
    this.pause.stop();
  }

  private waitForAnswer(question: string, options: QuestionOptions): Promise<string> {
    return new Promise((resolve, reject) => {
      if (this.signal.aborted) return reject(new AbortedError());
      // The waiter is in place before the status goes out, so an immediate answer is not missed.
      this.answerWaiter = { resolve, reject };
      this.updates.status('waiting_user', { question, ...options });
    });
  }

  async execute(request: RunRequest): Promise<RunEnd> {
    try {
      this.baseline = await this.deps.workspace.pull(this.job.workflowId, this.signal);
      this.current = restoredState(request);
      await this.openRepository(request);
      await this.openMcp();
      const opening = await this.take(request);
      return await this.finished(await this.drive(request.template, opening));
    } catch (err) {
      return this.finished(await this.ended(err));
    } finally {
      await this.mcp?.close();
    }
  }

  /** Applies what the dispatch brought (an answer, feedback); returns how a resumed step opens. */
  private async take(request: RunRequest): Promise<StepOpening> {
    const { action, message } = request;
    if (action === 'answer' && this.current.pendingQuestion !== null && message !== undefined) {
      await this.answerRestored(message);
    } else if (action === 'feedback') {
      this.updates.status(this.current.steps.length === 0 ? 'planning' : 'running');
      const from = await revise(this, message ?? '');
      this.deps.logger.info({ workflowId: this.job.workflowId, resumeFromStep: from + 1 }, 'plan revised');
    } else if (action === 'resume' && message) {
      return resumeOpening(this, message, request.stepHistory);
    }
    return {};
  }

  private async drive(template: string | null | undefined, opening: StepOpening): Promise<RunEnd> {
    const question = this.current.pendingQuestion;
    // The server kept the restored question's choices and deadline: a repeated waiting_user keeps them.
    if (question !== null) await this.answerRestored(await this.waitForAnswer(question, {}));
    if (this.current.phase.kind === 'planning') {
      this.updates.status('planning');
      await runPlanning(this, template);
    }
    if (this.current.phase.kind === 'executing') this.updates.status('running');
    let resumed = opening;
    while (this.current.phase.kind === 'executing') {
      const outcome = await runStep(this, resumed);
      resumed = {};
      if (outcome.kind === 'timer') {
        await this.syncWorkspace();
        this.updates.status('pending');
        return 'paused';
      }
    }
    const appendix = await this.pushRepository();
    await writeReport(this, appendix);
    this.updates.status('completed');
    return 'completed';
  }

  private async ended(err: unknown): Promise<RunEnd> {
    const stopped = err instanceof AbortedError || this.signal.aborted;
    const quiet = stopped ? quietEnd(this.stopReason) : undefined;
    if (quiet) return quiet;
    await this.uploadAfterEnd();
    if (stopped && this.stopReason === 'shutdown') return 'shutdown';
    // Cancelled while it ran, or while the last upload of a failed run was retried.
    if (stopped || this.cancelled.signal.aborted) {
      this.updates.status('cancelled');
      return 'cancelled';
    }
    const reason = err instanceof AgentTransitionError ? `invalid agent state: ${err.message}` : errorMessage(err);
    this.deps.logger.error({ workflowId: this.job.workflowId, error: reason }, 'workflow failed');
    const budget = err instanceof BudgetExceededError ? { budget_exceeded: err.reached } : {};
    this.updates.status('failed', { error: reason, ...budget });
    return 'failed';
  }

  /** The last upload of a run that stopped or failed. A cancelled run uploads nothing more: a retried upload would hold its slot. */
  private async uploadAfterEnd(): Promise<void> {
    if (this.cancelled.signal.aborted) return;
    await this.syncWorkspace(false).catch((err: unknown) =>
      this.deps.logger.warn({ workflowId: this.job.workflowId, error: errorMessage(err) }, 'workspace upload failed'),
    );
  }
}

/**
 * A stop that reports nothing: a superseded run starts again here; a lost one runs on another worker now,
 * so nothing of this one (workspace, status) may reach the server (decision 0062).
 */
function quietEnd(reason: StopReason | undefined): RunEnd | undefined {
  if (reason === 'supersede') return 'superseded';
  return reason === 'lost' ? 'shutdown' : undefined;
}

/** The state a run starts from: one this worker still holds, else the server's snapshot, else a new one. */
function restoredState(request: RunRequest): AgentState {
  if (request.state !== undefined) return request.state;
  return request.snapshot ? fromSnapshot(request.snapshot) : initialState();
}

/** The report's repository section: the branch, and whether it was pushed (or why not). */
function repositorySection(
  repository: RunRepository,
  report: { pushed: boolean; head_sha: string | null; commits?: number; error?: string | null },
): string {
  const count = report.commits ?? 0;
  const commits = `${count} commit${count === 1 ? '' : 's'}`;
  const branch = `Branch \`${repository.branch}\` (base \`${repository.baseBranch}\`)`;
  return [
    '## Repository',
    '',
    report.pushed
      ? `${branch} was pushed with ${commits}; head \`${report.head_sha ?? ''}\`.`
      : `${branch} was NOT pushed: ${report.error ?? 'the push failed'}. Its ${commits} stay with the worker; feedback on this run pushes them again.`,
  ].join('\n');
}
