import { parseTraceparent, withLogIds, type LogIds } from '@svc/observability';
import { randomUUID } from 'node:crypto';
import type { DispatchMessage, ExecMessage, ExecResultMessage } from '@svc/protocol';
import { CommandOutput } from '../executor/command-output';
import type { LinkHandlers } from '../link/worker-link';
import { serversOfRun } from '../mcp/server-config';
import { RunSecrets } from '../secrets/run-secrets';
import { errorMessage } from '../util/logger';
import type { LoopDeps } from './deps';
import { WorkflowRun, type RunEnd } from './runner';
import { generateTitle } from './title';
import { WorkflowUpdates } from './updates';
import { commandOutputBudget, WholeOutput } from './whole-output';
import { inAgentSpan, inDispatchContext } from '../tracing/spans';

/** A run's log ids: its id, and its trace's when the dispatch carries one (decision 0057). */
function runLogIds(message: DispatchMessage): LogIds {
  const trace = parseTraceparent(message.traceparent);
  return trace ? { run_id: message.workflow_id, trace_id: trace.traceId } : { run_id: message.workflow_id };
}

type RunDispatch = DispatchMessage & { action: 'start' | 'resume' | 'feedback' | 'answer' };

/**
 * Routes dispatches to workflow runs: runs up to `capacity` workflows at once (more wait in a
 * local queue), delivers answers to waiting loops, restarts a live loop on feedback, cancels,
 * generates titles on the side, and serves `exec` requests from other workers.
 */
export class WorkflowManager implements LinkHandlers {
  private readonly runs = new Map<string, WorkflowRun>();

  /** Runs in progress here (metrics). */
  get running(): number {
    return this.runs.size;
  }
  private readonly finished = new Map<string, Promise<RunEnd>>();
  private queue: RunDispatch[] = [];
  /** Feedback that interrupted a live run: started with that run's state once it has stopped. */
  private readonly followUps = new Map<string, RunDispatch>();
  private readonly titled = new Set<string>();
  private readonly titles = new Set<Promise<void>>();
  private closing = false;
  /** `--once`: the one workflow this worker runs; dispatches of any other are ignored */
  private onlyWorkflow: string | null = null;
  private settleOnce: (end: RunEnd) => void = () => undefined;
  /** `--once`: resolves when the one run has ended here (finished, cancelled, paused or handed back). */
  readonly onceEnded: Promise<RunEnd>;

  constructor(
    private readonly deps: LoopDeps,
    private readonly capacity: number,
    private readonly options: { once?: boolean } = {},
  ) {
    this.onceEnded = new Promise((resolve) => (this.settleOnce = resolve));
  }

  activeWorkflows(): string[] {
    return [...this.runs.keys()];
  }

  dispatch(message: DispatchMessage): void {
    withLogIds(runLogIds(message), () => this.route(message));
  }

  private route(message: DispatchMessage): void {
    if (this.closing) return;
    const run = this.runs.get(message.workflow_id);
    switch (message.action) {
      case 'generate_title':
        return this.generateTitle(message);
      case 'cancel':
        return this.cancel(message.workflow_id, run);
      case 'pause':
        return run?.requestPause(message.message === 'interrupt');
      case 'answer':
        return this.answer({ ...message, action: 'answer' }, run);
      case 'feedback':
        return this.feedback({ ...message, action: 'feedback' }, run);
      case 'start':
      case 'resume':
        return this.startOrResume({ ...message, action: message.action }, run);
      default: {
        const unreachable: never = message.action;
        return unreachable;
      }
    }
  }

  private cancel(id: string, run: WorkflowRun | undefined): void {
    this.queue = this.queue.filter((q) => q.workflow_id !== id);
    this.followUps.delete(id);
    run?.stop('cancel');
  }

  /** The server took the fenced run back while this worker was out of contact: it stops here, reporting nothing. */
  lost(workflowId: string): void {
    this.queue = this.queue.filter((q) => q.workflow_id !== workflowId);
    this.followUps.delete(workflowId);
    this.runs.get(workflowId)?.stop('lost');
  }

  /** Delivered to the loop waiting for it; a workflow not running here is resumed with it. */
  private answer(message: RunDispatch, run: WorkflowRun | undefined): void {
    if (!run) return this.enqueue(message);
    run.updateBudget(message.budget);
    if (!run.deliverAnswer(message.message ?? ''))
      this.deps.logger.warn({ workflowId: message.workflow_id }, 'answer for a workflow that is not waiting; ignored');
  }

  /** Feedback for a live run stops it and starts again from its state; else it is queued like a start. */
  private feedback(message: RunDispatch, run: WorkflowRun | undefined): void {
    if (!run) return this.enqueue(message);
    this.followUps.set(message.workflow_id, message);
    run.stop('supersede');
  }

  private startOrResume(message: RunDispatch, run: WorkflowRun | undefined): void {
    if (!run) return this.enqueue(message);
    // A member resumed the paused run this worker holds: it goes on where it stopped.
    if (run.resumeFromPause()) return;
    this.deps.logger.warn(
      { workflowId: message.workflow_id, action: message.action },
      'workflow already runs here; dispatch ignored',
    );
  }

  /**
   * Runs a command for another worker's agent; the caller sends the result back. The asker's run's
   * secrets come with the exec: the command's environment, masked in its live output and its result,
   * and forgotten when it ends.
   */
  serveExec(message: ExecMessage): Promise<ExecResultMessage> {
    return withLogIds({ run_id: message.workflow_id }, () => this.serveExecOfRun(message));
  }

  private async serveExecOfRun(message: ExecMessage): Promise<ExecResultMessage> {
    const secrets = new RunSecrets(message.secrets);
    const release = this.deps.secrets.hold(message.workflow_id, secrets);
    try {
      const result = await this.runExec(message, secrets);
      return { ...result, output: secrets.mask(result.output) };
    } finally {
      release();
    }
  }

  private async runExec(message: ExecMessage, secrets: RunSecrets): Promise<ExecResultMessage> {
    const timeout = message.timeout_seconds ?? this.deps.config.commandTimeoutSeconds;
    const outputMaxBytes = this.deps.config.toolOutputMaxBytes;
    // The asker's page sees the output live too (the server relays it while this exec is pending).
    const live = new CommandOutput({
      send: (output) => this.deps.link.sendCommandOutput(output),
      workflowId: message.workflow_id,
      callId: randomUUID(),
    });
    const started = new Date();
    live.started(null, message.command, started);
    // Kept as for a local command: the asker's log entry names the whole output (decision 0081).
    const whole = new WholeOutput(started, this.deps.config.commandOutputMaxBytes, outputMaxBytes);
    let exitCode: number | null = null;
    try {
      const result = await this.deps.executor.run({
        workflowId: message.workflow_id,
        // The asker's workflow is not dispatched here: the server hands over its job token.
        ...(message.job_token ? { jobToken: { token: message.job_token, projectId: message.project_id } } : {}),
        command: message.command,
        timeoutSeconds: timeout,
        // the asker's entry puts its status line before it, as before a local command's
        maxOutputBytes: commandOutputBudget(outputMaxBytes),
        onOutput: (stream, chunk) => {
          live.push(stream, chunk);
          whole.push(chunk);
        },
        secrets,
      });
      exitCode = result.timedOut || result.cancelled ? null : result.exitCode;
      const output = result.startError ?? result.output;
      return {
        type: 'exec_result',
        request_id: message.request_id,
        exit_code: result.exitCode,
        output,
        timed_out: result.timedOut,
        ...(result.startError ? {} : await this.keepWhole(message, whole, output, result.truncated)),
      };
    } catch (err) {
      return {
        type: 'exec_result',
        request_id: message.request_id,
        exit_code: null,
        output: `exec failed on this worker: ${errorMessage(err)}`,
        timed_out: false,
      };
    } finally {
      // Before the result goes back: the server relays output only while the exec is pending.
      live.finished(exitCode, Date.now() - started.getTime());
    }
  }

  /**
   * What the asker's log entry names beside the output: its whole (only when cut), stored for the
   * asker's workflow with the exec's job token (this worker's own token cannot reach it), and line times.
   */
  private async keepWhole(
    message: ExecMessage,
    whole: WholeOutput,
    output: string,
    truncated: boolean,
  ): Promise<Pick<ExecResultMessage, 'output_object' | 'output_line_times'>> {
    const outputObject =
      truncated && message.job_token
        ? await whole.keep({
            api: this.deps.api.withToken(message.job_token),
            logger: this.deps.logger,
            workflowId: message.workflow_id,
          })
        : undefined;
    // Any one status line: the asker puts its own before the output.
    const lineTimes = whole.lineTimes(`[status]\n${output}`);
    return {
      ...(outputObject ? { output_object: outputObject } : {}),
      ...(lineTimes ? { output_line_times: lineTimes } : {}),
    };
  }

  /** Resolves when every run and title generation has ended (tests, shutdown). */
  async idle(): Promise<void> {
    while (this.finished.size > 0 || this.titles.size > 0 || this.queue.length > 0) {
      await Promise.all([...this.finished.values(), ...this.titles]);
    }
  }

  /** Stops every loop (their commands are killed) and waits for them to end. */
  async shutdown(): Promise<void> {
    this.closing = true;
    this.queue = [];
    this.followUps.clear();
    for (const run of this.runs.values()) run.stop('shutdown');
    await this.idle();
  }

  private enqueue(message: RunDispatch): void {
    if (this.refusedByOnce(message.workflow_id)) return;
    // The newest dispatch for a workflow carries the server's latest intent and snapshot.
    this.queue = [...this.queue.filter((q) => q.workflow_id !== message.workflow_id), message];
    this.drain();
  }

  /** A `--once` worker runs one workflow: the server never sends another, and one sent anyway is not run. */
  private refusedByOnce(workflowId: string): boolean {
    if (!this.options.once) return false;
    this.onlyWorkflow ??= workflowId;
    if (this.onlyWorkflow === workflowId) return false;
    this.deps.logger.warn({ workflowId }, 'this --once worker already took a workflow; dispatch ignored');
    return true;
  }

  private drain(): void {
    while (!this.closing && this.runs.size < this.capacity) {
      const next = this.queue.shift();
      if (!next) return;
      this.launch(next);
    }
  }

  /** Every line the run logs carries its id (log ids), the lines of the runs it starts when it ends theirs. */
  private launch(message: RunDispatch, previous?: WorkflowRun): void {
    withLogIds(runLogIds(message), () => this.launchRun(message, previous));
  }

  private launchRun(message: RunDispatch, previous?: WorkflowRun): void {
    const id = message.workflow_id;
    this.deps.link.beginWorkflow(id, message.last_seq);
    // Held from before the first update (the title's too) until the run has ended here.
    const secrets = new RunSecrets(message.secrets);
    const releaseSecrets = this.deps.secrets.hold(id, secrets);
    // The repository credential is masked in all the run sends, but is no command's environment variable.
    const releaseCredential = message.repository
      ? this.deps.secrets.hold(
          id,
          new RunSecrets([{ name: 'repository credential', value: message.repository.credential.value }]),
        )
      : () => undefined;
    const release = () => {
      releaseSecrets();
      releaseCredential();
    };
    if (message.action === 'start') this.generateTitle(message);
    const run = new WorkflowRun(this.deps, {
      workflowId: id,
      projectId: message.project_id,
      requirement: message.requirement,
      appUrl: message.app_url ?? null,
      ...(message.budget ? { budget: message.budget } : {}),
      secrets,
      mcpServers: serversOfRun(this.deps.config.mcpServers, message.mcp_servers ?? []),
      ...(message.repository ? { repository: message.repository } : {}),
    });
    this.runs.set(id, run);
    const done = inAgentSpan(message, this.deps.config.name, () =>
      run.execute({
        action: message.action,
        template: message.template,
        snapshot: message.snapshot,
        message: message.message,
        stepHistory: message.step_history,
        ...(previous ? { state: previous.state } : {}),
      }),
    )
      .catch((err: unknown) => {
        this.deps.logger.error({ workflowId: id, error: errorMessage(err) }, 'workflow run crashed');
        return 'failed' as const;
      })
      .then((end) => {
        release();
        this.runs.delete(id);
        this.finished.delete(id);
        if (end === 'completed' || end === 'failed' || end === 'cancelled') this.titled.delete(id);
        this.deps.logger.info({ workflowId: id, end }, 'workflow run ended');
        const followUp = this.followUps.get(id);
        this.followUps.delete(id);
        if (followUp && !this.closing) this.launch(followUp, run);
        else if (this.options.once && this.runs.size === 0) this.settleOnce(end);
        else this.drain();
        return end;
      });
    this.finished.set(id, done);
  }

  private generateTitle(message: DispatchMessage): void {
    const id = message.workflow_id;
    if (this.titled.has(id)) return;
    this.titled.add(id);
    this.deps.link.beginWorkflow(id, message.last_seq);
    const release = this.deps.secrets.hold(id, new RunSecrets(message.secrets));
    const job = inDispatchContext(message.traceparent, () =>
      generateTitle(this.deps.llmFor(id), this.deps.prompts.title, message.requirement),
    )
      .then((title) => {
        if (title) new WorkflowUpdates(this.deps.link, id).title(title);
      })
      .catch((err: unknown) =>
        this.deps.logger.warn({ workflowId: id, error: errorMessage(err) }, 'title generation failed'),
      )
      .finally(() => {
        release();
        this.titles.delete(job);
      });
    this.titles.add(job);
  }
}
