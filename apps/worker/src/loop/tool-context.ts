import { randomUUID } from 'node:crypto';
import { CommandOutput } from '../executor/command-output';
import { describeCommandResult } from '../executor/executor';
import type { ToolContext } from '../tools/tool';
import type { Job, LoopDeps } from './deps';
import { commandOutputBudget, keepWholeText, WholeOutput, type WholeOutputStore } from './whole-output';

export function createToolContext(
  deps: LoopDeps,
  job: Job,
  stepIndex: number | null,
  signal: AbortSignal,
  /** a pause that interrupts the running command aborts it (decision 0039) */
  interruptSignal?: () => AbortSignal,
): ToolContext {
  const outputMaxBytes = deps.config.toolOutputMaxBytes;
  const store: WholeOutputStore = { api: deps.api, logger: deps.logger, workflowId: job.workflowId, signal };
  // Nothing acts outside the worker that the server could not know was started (decision 0062).
  const mayAct = async () => {
    await deps.fence?.beforeCommand(job.workflowId, signal);
  };
  return {
    workflowId: job.workflowId,
    projectId: job.projectId,
    stepIndex,
    workspaceDir: deps.workspace.dir(job.workflowId),
    self: { name: deps.config.name, id: deps.workerId() },
    // Retries of a call the server could not answer stop with the run.
    api: deps.api.withSignal(signal),
    commandTimeoutSeconds: deps.config.commandTimeoutSeconds,
    outputMaxBytes,
    signal,
    maskSecrets: (text) => job.secrets?.mask(text) ?? text,
    async runLocal(command, timeoutSeconds) {
      await mayAct();
      const live = new CommandOutput({
        send: (message) => deps.link.sendCommandOutput(message),
        workflowId: job.workflowId,
        callId: randomUUID(),
      });
      const started = new Date();
      live.started(stepIndex, command, started);
      // The whole output for the raw log and the line times (decisions 0073, 0080).
      const whole = new WholeOutput(started, deps.config.commandOutputMaxBytes, outputMaxBytes);
      let exitCode: number | null = null;
      try {
        const result = await deps.executor.run({
          workflowId: job.workflowId,
          projectId: job.projectId,
          command,
          timeoutSeconds,
          maxOutputBytes: commandOutputBudget(outputMaxBytes),
          signal: interruptSignal ? AbortSignal.any([signal, interruptSignal()]) : signal,
          onOutput: (stream, chunk) => {
            live.push(stream, chunk);
            whole.push(chunk);
          },
          secrets: job.secrets,
        });
        exitCode = result.timedOut || result.cancelled ? null : result.exitCode;
        const described = describeCommandResult(result, timeoutSeconds);
        const outcome = result.cancelled && !signal.aborted ? interrupted(described) : described;
        // Only a cut output needs its whole: otherwise the log entry holds all of it.
        const outputObject = result.truncated ? await whole.keep(store) : undefined;
        const lineTimes = whole.lineTimes(outcome.text);
        return { ...outcome, ...(outputObject ? { outputObject } : {}), ...(lineTimes ? { lineTimes } : {}) };
      } finally {
        // Also when the command could not start: a page showing it running must see it end.
        live.finished(exitCode, Date.now() - started.getTime());
      }
    },
    async runRemote(request) {
      await mayAct();
      const result = await deps.link.requestExec(request, signal);
      const status = result.timed_out
        ? `timed out on worker ${request.targetWorker}`
        : result.exit_code === null
          ? `killed on worker ${request.targetWorker}`
          : `exit code ${result.exit_code} on worker ${request.targetWorker}`;
      const text = `[${status}]\n${result.output || '(no output)'}`;
      // The target stored the whole output for this run and timed the lines (decision 0081); its times
      // count this status line, and hold only while the conversation does not cut the text again.
      const lineTimes = Buffer.byteLength(text) <= outputMaxBytes ? result.output_line_times : undefined;
      return {
        text,
        isError: result.exit_code !== 0,
        ...(result.output_object ? { outputObject: result.output_object } : {}),
        ...(result.output && lineTimes ? { lineTimes } : {}),
      };
    },
    keepWholeText: (text) => keepWholeText(store, text, deps.config.commandOutputMaxBytes),
    async refreshWorkspace() {
      const state = await deps.workspace.pull(job.workflowId, signal);
      return [...state.keys()].sort();
    },
  };
}

/** A command a pause killed: the log and the agent (once resumed) see it did not finish. */
const interrupted = (described: { text: string; isError: boolean }) => ({
  text: described.text.replace(
    /^\[cancelled\]/,
    '[interrupted: the workflow was paused; run it again if it is still needed]',
  ),
  isError: true,
});
