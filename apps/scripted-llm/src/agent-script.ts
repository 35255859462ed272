// The svc agent as a script: replies by phase (title, planning, executing, revise, report), step and turn.
import type { ScriptedHandler } from './chat';
import type { ScriptedRequest } from './request';
import type { ScriptedReply } from './script';

export type Call = { name: string; arguments?: Record<string, unknown> | string };

/** What the scripted agent does: replies per phase, per step (1-based) and per turn of a context. */
export interface AgentScript {
  title?: string;
  planning?: Call[];
  /** step number -> tool calls, one per turn; a step without an entry just advances. */
  steps?: Record<number, Call[]>;
  revise?: Call[];
  report?: string;
}

const reply = (call: Call | undefined): ScriptedReply =>
  call ? { tool_calls: [{ name: call.name, arguments: call.arguments ?? {} }] } : { content: 'I am done thinking.' };

export function phaseOf(request: ScriptedRequest): string {
  return /# svc:(\w+)/.exec(request.system)?.[1] ?? 'unknown';
}

/**
 * A ScriptedHandler playing the agent: it recognises the phase by the prompt's marker line and
 * the step by "Step N of M", and answers with the scripted tool call for that turn.
 */
export function scriptedAgent(script: AgentScript): ScriptedHandler {
  return (request) => {
    switch (phaseOf(request)) {
      case 'title':
        return { content: script.title ?? 'A title' };
      case 'planning':
        return reply(script.planning?.[request.turn]);
      case 'revise':
        return reply(script.revise?.[request.turn]);
      case 'execution': {
        const calls = script.steps?.[request.stepNumber ?? 0] ?? [
          { name: 'advance_step', arguments: { summary: `step ${request.stepNumber} done` } },
        ];
        return reply(calls[request.turn]);
      }
      case 'report':
        return { content: script.report ?? '# Report\n\nAll done.' };
      default:
        return null;
    }
  };
}

export const plan = (...titles: string[]): Call => ({
  name: 'submit_plan',
  arguments: { steps: titles.map((title) => ({ title, description: `Do: ${title}.` })) },
});

export const advance = (summary = 'done'): Call => ({ name: 'advance_step', arguments: { summary } });
