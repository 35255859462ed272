import { submitPlan } from '@svc/agent-core';
import { PLANNING_TOOLS } from '../tools/registry';
import { planningMessages } from './context';
import { runConversation } from './conversation';
import { attempt, sharedEffect } from './effects';
import type { RunContext } from './run-context';

/** Planning -> Executing(0): the LLM explores with the planning tools and ends with submit_plan. */
export async function runPlanning(run: RunContext, template: string | null | undefined): Promise<void> {
  const files = [...(await run.deps.workspace.snapshot(run.job.workflowId)).keys()].sort();
  await runConversation({
    llm: run.llm,
    phase: 'planning',
    stepIndex: null,
    messages: planningMessages({
      systemPrompt: run.deps.prompts.planning,
      requirement: run.job.requirement,
      template,
      workspaceFiles: files,
    }),
    tools: [...PLANNING_TOOLS, ...run.mcpTools('read-only')],
    toolContext: run.toolContext(null),
    maxTurns: run.deps.config.maxTurnsPerStep,
    outputMaxBytes: run.deps.config.toolOutputMaxBytes,
    nudge: 'Continue planning with the tools. When the plan is ready, submit it with submit_plan.',
    onLog: (entry) => run.log(entry),
    onEffect: async (effect) => {
      if (effect.kind === 'submit_plan') {
        return attempt(() => {
          run.apply(submitPlan(run.state, effect.steps));
          return { stop: true };
        });
      }
      return (
        (await sharedEffect(run, effect, 'planning')) ?? {
          output: `Rejected: ${effect.kind} is not available while planning.`,
          isError: true,
        }
      );
    },
  });
}
