import { randomUUID } from 'node:crypto';
import { CommandOutput } from '../executor/command-output';
import { describeCommandResult } from '../executor/executor';
import { HeadTailBuffer } from '../executor/output-buffer';
import { OutputTimes, outputLineTimes } from '../executor/line-times';
import type { OutputObject, ToolContext } from '../tools/tool';
import { AbortedError } from '../util/aborted';
import { errorMessage } from '../util/logger';
import type { Job, LoopDeps } from './deps';

/** Room kept for the status line and the cut marker within the output budget. */
const OUTPUT_HEADROOM_BYTES = 256;

export function createToolContext(
  deps: LoopDeps,
  job: Job,
  stepIndex: number | null,
  signal: AbortSignal,
  /** a pause that interrupts the running command aborts it (decision 0039) */
  interruptSignal?: () => AbortSignal,
): ToolContext {
  const outputMaxBytes = deps.config.toolOutputMaxBytes;
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
      // The whole output for the raw log (decision 0073), bounded by `command_output_max_bytes` (0080).
      const whole = new HeadTailBuffer(deps.config.commandOutputMaxBytes);
      // when the lines the log entry shows arrived (decision 0080): it holds at most its byte budget of them
      const times = new OutputTimes(started.getTime(), outputMaxBytes);
      let exitCode: number | null = null;
      try {
        const result = await deps.executor.run({
          workflowId: job.workflowId,
          projectId: job.projectId,
          command,
          timeoutSeconds,
          maxOutputBytes: Math.max(256, outputMaxBytes - OUTPUT_HEADROOM_BYTES),
          signal: interruptSignal ? AbortSignal.any([signal, interruptSignal()]) : signal,
          onOutput: (stream, chunk) => {
            live.push(stream, chunk);
            whole.push(chunk);
            times.push(chunk.length);
          },
          secrets: job.secrets,
        });
        exitCode = result.timedOut || result.cancelled ? null : result.exitCode;
        const described = describeCommandResult(result, timeoutSeconds);
        const outcome = result.cancelled && !signal.aborted ? interrupted(described) : described;
        // Only a cut output needs its whole: otherwise the log entry holds all of it.
        const outputObject = result.truncated ? await keepWholeOutput(deps, job, whole, signal) : undefined;
        const lineTimes = outputLineTimes(outcome.text, times, started);
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
      return { text: `[${status}]\n${result.output || '(no output)'}`, isError: result.exit_code !== 0 };
    },
    async refreshWorkspace() {
      const state = await deps.workspace.pull(job.workflowId, signal);
      return [...state.keys()].sort();
    },
  };
}

/**
 * Uploads a command's whole output under a fresh name for its log entry to name. A server that refuses
 * it costs the raw log its whole, not the run: the entry keeps its cut output.
 */
async function keepWholeOutput(
  deps: LoopDeps,
  job: Job,
  whole: HeadTailBuffer,
  signal: AbortSignal,
): Promise<OutputObject | undefined> {
  const name = randomUUID();
  try {
    await deps.api.uploadCommandOutput(job.workflowId, name, whole.bytes(), signal);
    return { name, total_bytes: whole.totalBytes };
  } catch (err) {
    if (err instanceof AbortedError) throw err;
    deps.logger.warn({ workflowId: job.workflowId, error: errorMessage(err) }, 'could not store a command output');
    return undefined;
  }
}

/** A command a pause killed: the log and the agent (once resumed) see it did not finish. */
const interrupted = (described: { text: string; isError: boolean }) => ({
  text: described.text.replace(
    /^\[cancelled\]/,
    '[interrupted: the workflow was paused; run it again if it is still needed]',
  ),
  isError: true,
});
