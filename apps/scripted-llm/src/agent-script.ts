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

/** A step without scripted calls just advances. */
const stepCalls = (script: AgentScript, stepNumber: number | null): Call[] =>
  script.steps?.[stepNumber ?? 0] ?? [{ name: 'advance_step', arguments: { summary: `step ${stepNumber} done` } }];

type PhaseReply = (script: AgentScript, request: ScriptedRequest) => ScriptedReply;

/** The reply of each phase, by the prompt's marker line. */
const PHASE_REPLIES: ReadonlyMap<string, PhaseReply> = new Map<string, PhaseReply>([
  ['title', (script) => ({ content: script.title ?? 'A title' })],
  ['planning', (script, request) => reply(script.planning?.[request.turn])],
  ['revise', (script, request) => reply(script.revise?.[request.turn])],
  ['execution', (script, request) => reply(stepCalls(script, request.stepNumber)[request.turn])],
  ['report', (script) => ({ content: script.report ?? '# Report\n\nAll done.' })],
]);

/**
 * A ScriptedHandler playing the agent: it recognises the phase by the prompt's marker line and
 * the step by "Step N of M", and answers with the scripted tool call for that turn.
 */
export function scriptedAgent(script: AgentScript): ScriptedHandler {
  return (request) => PHASE_REPLIES.get(phaseOf(request))?.(script, request) ?? null;
}

export const plan = (...titles: string[]): Call => ({
  name: 'submit_plan',
  arguments: { steps: titles.map((title) => ({ title, description: `Do: ${title}.` })) },
});

export const advance = (summary = 'done'): Call => ({ name: 'advance_step', arguments: { summary } });
