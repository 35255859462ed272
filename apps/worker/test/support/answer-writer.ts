import type { ScriptedHandler } from '@svc/scripted-llm';
import { phaseOf } from '@svc/scripted-llm';

/**
 * The scripted `agent`, except that once step 1's question is answered (its `ask_user` call is the
 * step's first turn) the step writes the answer it was given, its tool result, to `file` and advances.
 */
export function writingTheAnswer(agent: ScriptedHandler, file = 'colour.txt'): ScriptedHandler {
  return (request) => {
    if (phaseOf(request) === 'execution' && request.stepNumber === 1 && request.turn > 0) {
      const answer = /The user answered: (.*)$/s.exec(request.lastMessage)?.[1];
      if (request.turn === 1)
        return { tool_calls: [{ name: 'write_file', arguments: { path: file, content: answer ?? 'NO ANSWER SEEN' } }] };
      return { tool_calls: [{ name: 'advance_step', arguments: { summary: 'colour chosen' } }] };
    }
    return agent(request);
  };
}
