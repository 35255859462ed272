import { AgentTransitionError, saveMemo } from '@svc/agent-core';
import { isAffirmative } from '../mcp/approval';
import type { ToolEffect } from '../tools/tool';
import type { EffectOutcome } from './conversation';
import type { RunContext } from './run-context';

/** Runs an agent-core transition; an illegal one becomes an error result the LLM can read. */
export function attempt(fn: () => EffectOutcome): EffectOutcome {
  try {
    return fn();
  } catch (err) {
    if (err instanceof AgentTransitionError) return { output: `Rejected: ${err.message}`, isError: true };
    throw err;
  }
}

/** Effects that mean the same in every phase: memos and questions to the user. */
export async function sharedEffect(
  run: RunContext,
  effect: ToolEffect,
  resumeStatus: 'planning' | 'running',
): Promise<EffectOutcome | undefined> {
  if (effect.kind === 'save_memo') {
    return attempt(() => {
      run.apply(saveMemo(run.state, effect.note));
      return { output: 'Memo saved; later steps will see it.' };
    });
  }
  if (effect.kind === 'ask_user') {
    if (run.state.pendingQuestion !== null) return { output: 'Rejected: a question is already open.', isError: true };
    const { kind: _kind, question, ...options } = effect;
    const answer = await run.askUser(question, resumeStatus, options);
    return { output: `The user answered: ${answer}` };
  }
  if (effect.kind === 'mcp_approval') {
    if (run.state.pendingQuestion !== null) return { output: 'Rejected: a question is already open.', isError: true };
    const answer = await run.askUser(effect.question, resumeStatus);
    if (!isAffirmative(answer)) return { output: `The user refused this call: ${answer}`, isError: true };
    const result = await run.runApprovedCall(effect.call);
    return { output: result.text, isError: result.isError, outputObject: result.outputObject };
  }
  return undefined;
}
