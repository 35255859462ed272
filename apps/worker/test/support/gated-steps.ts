import { existsSync, readFileSync } from 'node:fs';
import { phaseOf, type ScriptedHandler } from '@svc/scripted-llm';

/** How many steps the gated plan has; step 2 is the gated one. */
export const GATED_PLAN_STEPS = 3;
const GATED_STEP = 2;

/**
 * The scripted agent of the fault tests: a plan of three steps whose commands append their number to
 * `file('runs')` (the side effect counted afterwards); step 2's command touches `file('started')` and
 * waits for the test's `file('go')`, so the test injects its fault while a command runs. `file` is
 * read at each request: the folder may be made after the handler.
 */
export function gatedStepsAgent(title: string, file: (name: string) => string): ScriptedHandler {
  return (request) => {
    const phase = phaseOf(request);
    if (phase === 'title') return { content: title };
    if (phase === 'report') return { content: '# Report\n\nEvery step ran once.' };
    if (phase === 'planning') {
      const steps = Array.from({ length: GATED_PLAN_STEPS }, (_, i) => ({
        title: `Step ${i + 1}`,
        description: `Append ${i + 1}.`,
      }));
      return request.turn === 0 ? { tool_calls: [{ name: 'submit_plan', arguments: { steps } }] } : null;
    }
    const n = request.stepNumber;
    if (phase !== 'execution' || n === null) return null;
    if (request.turn === 0) {
      const gate =
        n === GATED_STEP ? `; touch '${file('started')}'; while [ ! -f '${file('go')}' ]; do sleep 0.05; done` : '';
      return {
        tool_calls: [{ name: 'execute_on_worker', arguments: { command: `echo ${n} >> '${file('runs')}'${gate}` } }],
      };
    }
    if (request.turn === 1) return { tool_calls: [{ name: 'advance_step', arguments: { summary: `step ${n} done` } }] };
    return { content: 'done' };
  };
}

/** The step numbers the commands appended, in order (each once when every command ran once). */
export const gatedStepRuns = (file: (name: string) => string): number[] =>
  existsSync(file('runs')) ? readFileSync(file('runs'), 'utf8').trim().split('\n').map(Number) : [];

/** [1, 2, 3]: what gatedStepRuns reads when each command ran once. */
export const EACH_GATED_STEP_ONCE = Array.from({ length: GATED_PLAN_STEPS }, (_, i) => i + 1);
