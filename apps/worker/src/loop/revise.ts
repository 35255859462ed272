import { answerUser, revisePlan } from '@svc/agent-core';
import { REVISE_TOOLS } from '../tools/registry';
import { reviseMessages } from './context';
import { runConversation } from './conversation';
import { attempt } from './effects';
import type { RunContext } from './run-context';

/**
 * User feedback: the LLM writes a revised plan (revise prompt, submit_plan only); agent-core
 * compares it with the current plan on (title, description) and invalidates every step from the
 * first mismatch. Returns that index. An open question is closed with the feedback as its answer.
 */
export async function revise(run: RunContext, feedback: string): Promise<number> {
  if (run.state.pendingQuestion !== null) run.apply(answerUser(run.state, feedback));
  let firstChanged = 0;
  await runConversation({
    llm: run.llm,
    phase: 'revise',
    stepIndex: null,
    messages: reviseMessages({
      systemPrompt: run.deps.prompts.revise,
      requirement: run.job.requirement,
      steps: run.state.steps,
      memo: run.state.memo,
      feedback,
    }),
    tools: REVISE_TOOLS,
    toolChoice: 'required',
    toolContext: run.toolContext(null),
    maxTurns: Math.min(5, run.deps.config.maxTurnsPerStep),
    outputMaxBytes: run.deps.config.toolOutputMaxBytes,
    nudge: 'Submit the complete revised plan with submit_plan.',
    onLog: (entry) => run.log(entry),
    onEffect: async (effect) => {
      if (effect.kind !== 'submit_plan')
        return { output: `Rejected: only submit_plan is available now.`, isError: true };
      return attempt(() => {
        const revision = revisePlan(run.state, effect.steps);
        firstChanged = revision.firstChangedIndex;
        run.apply(revision);
        return {
          stop: true,
          output: `Revised plan accepted; work resumes from step ${revision.firstChangedIndex + 1}.`,
        };
      });
    },
  });
  return firstChanged;
}
