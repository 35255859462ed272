import { RESUMED_AFTER_LEASE_LOSS, type StepHistory, type StepToolCall } from '@svc/protocol';
import { EXECUTION_TOOLS } from '../tools/registry';
import type { StepOpening } from './execution';
import type { RunContext } from './run-context';

/**
 * How a resumed step opens: the note says why it resumed; after a lease loss it also goes on after the
 * calls it made before the cut, and its log says so (decision 0065).
 */
export function resumeOpening(run: RunContext, message: string, history: StepHistory | undefined): StepOpening {
  const note = `This step was interrupted and is resumed now: ${message}`;
  if (!message.startsWith(RESUMED_AFTER_LEASE_LOSS)) return { note };
  const earlier = replayable(run, history);
  logLeaseLoss(run, message, earlier, history?.omitted ?? 0);
  return { note, earlier };
}

/** The step's earlier calls of tools it still has, when the history is of the step the run is in. */
function replayable(run: RunContext, history: StepHistory | undefined): StepToolCall[] {
  const phase = run.state.phase;
  if (!history || phase.kind !== 'executing' || phase.step !== history.step_index) return [];
  const offered = new Set([...EXECUTION_TOOLS, ...run.mcpTools('all')].map((tool) => tool.name));
  return history.calls.filter((call) => offered.has(call.tool_name));
}

/** The command running when contact was lost may run twice; the calls before it do not run again. */
function logLeaseLoss(run: RunContext, message: string, earlier: readonly StepToolCall[], omitted: number): void {
  const phase = run.state.phase;
  const left = omitted > 0 ? ` (${omitted} older call${omitted === 1 ? ' is' : 's are'} left out of its context)` : '';
  const goesOn =
    earlier.length === 0
      ? 'The step starts again: it made no tool call before.'
      : `The step goes on after the ${earlier.length} tool call${earlier.length === 1 ? '' : 's'} it made before${left}, ` +
        `which do not run again: ${earlier.map((call) => call.tool_name).join(', ')}.`;
  run.log({
    step_index: phase.kind === 'executing' ? phase.step : null,
    tool_name: 'resume',
    tool_input: {},
    output: `${message}. ${goesOn}`,
    is_error: false,
  });
}
