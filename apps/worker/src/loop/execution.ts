import { advanceStep } from '@svc/agent-core';
import { EXECUTION_TOOLS } from '../tools/registry';
import { stepMessages, type StepContextInput } from './context';
import { runConversation } from './conversation';
import { attempt, sharedEffect } from './effects';
import type { RunContext } from './run-context';
import { captureWorkspace, computeStepDiff, type WorkspaceCapture } from '../workspace/step-diff';
import { errorMessage } from '../util/logger';

export type StepOutcome = { kind: 'advanced' } | { kind: 'timer'; seconds: number; reason: string };

/** How a resumed step opens: why it resumed, and the tool calls it made before (decision 0063). */
export type StepOpening = Pick<StepContextInput, 'note' | 'earlier'>;

/**
 * Executing(N): one step in a fresh context (its own tool history only). Ends when the agent
 * advances (workspace changes are uploaded first) or sets a timer.
 */
export async function runStep(run: RunContext, opening: StepOpening = {}): Promise<StepOutcome> {
  const { phase } = run.state;
  if (phase.kind !== 'executing') throw new Error(`runStep called while ${phase.kind}`);
  const index = phase.step;
  const before = await capture(run);
  const result = await runConversation({
    llm: run.llm,
    phase: 'executing',
    stepIndex: index,
    messages: stepMessages({
      systemPrompt: run.deps.prompts.execution,
      requirement: run.job.requirement,
      steps: run.state.steps,
      memo: run.state.memo,
      stepIndex: index,
      ...opening,
      secretNames: run.job.secrets?.names,
    }),
    tools: [...EXECUTION_TOOLS, ...run.mcpTools('all')],
    toolContext: run.toolContext(index),
    maxTurns: run.deps.config.maxTurnsPerStep,
    outputMaxBytes: run.deps.config.toolOutputMaxBytes,
    nudge: 'Continue with the tools. When this step is done and verified, call advance_step with a summary.',
    onLog: (entry) => run.log(entry),
    onEffect: async (effect) => {
      switch (effect.kind) {
        case 'advance_step': {
          await run.syncWorkspace();
          const after = before ? await capture(run) : null;
          const outcome = attempt(() => {
            run.apply(advanceStep(run.state, effect.summary));
            if (before && after)
              run.updates.stepDiff(computeStepDiff(index, before, after, run.deps.config.stepDiffMaxBytes));
            return { stop: true };
          });
          if (outcome.stop) await run.commitStep(index);
          return outcome;
        }
        case 'set_timer':
          return { stop: true };
        default:
          return (
            (await sharedEffect(run, effect, 'running')) ?? {
              output: `Rejected: ${effect.kind} is not available while executing.`,
              isError: true,
            }
          );
      }
    },
  });
  const end = result.stoppedBy;
  return end.kind === 'set_timer' ? { kind: 'timer', seconds: end.seconds, reason: end.reason } : { kind: 'advanced' };
}

/** The workspace for a step diff; null when step diffs are off or it cannot be read (the step goes on without). */
async function capture(run: RunContext): Promise<WorkspaceCapture | null> {
  if (run.deps.config.stepDiffMaxBytes <= 0) return null;
  try {
    return await captureWorkspace(run.deps.workspace.dir(run.job.workflowId));
  } catch (err) {
    run.deps.logger.warn(
      { workflowId: run.job.workflowId, error: errorMessage(err) },
      'workspace not captured for the step diff',
    );
    return null;
  }
}
