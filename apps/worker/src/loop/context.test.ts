import { advanceStep, initialState, saveMemo, submitPlan, type AgentState } from '@svc/agent-core';
import type { ChatCompletionMessageParam } from 'openai/resources/chat/completions';
import { planningMessages, stepMessages } from './context';

const requirement = 'Build a URL shortener\nwith statistics per link.';
const plan = Array.from({ length: 40 }, (_, i) => ({
  title: `Step title number ${i + 1}`,
  description: `Detailed description of what step ${i + 1} has to do, including paths and checks. `.repeat(3),
}));

function bytes(messages: ChatCompletionMessageParam[]): number {
  return messages.reduce(
    (sum, m) => sum + Buffer.byteLength(typeof m.content === 'string' ? m.content : JSON.stringify(m.content)),
    0,
  );
}

function stateAt(stepIndex: number, memos: string[]): AgentState {
  let state = submitPlan(initialState(), plan).state;
  for (let i = 0; i < stepIndex; i++) {
    // a long summary per finished step: it must not leak into later contexts
    state = advanceStep(state, `Summary of step ${i + 1}: `.padEnd(2000, 'x')).state;
  }
  for (const note of memos) state = saveMemo(state, note).state;
  return state;
}

function promptFor(state: AgentState, stepIndex: number) {
  return stepMessages({
    systemPrompt: '# svc:execution\nYou execute steps.',
    requirement,
    steps: state.steps,
    memo: state.memo,
    stepIndex,
  });
}

describe('stepMessages', () => {
  it('holds system prompt, requirement, outline, memos and the current step', () => {
    const state = stateAt(1, ['Port is 8080']);
    const [system, user] = promptFor(state, 1);
    expect(system).toEqual({ role: 'system', content: '# svc:execution\nYou execute steps.' });
    const text = String(user?.content);
    expect(text).toContain(requirement);
    expect(text).toContain('1. [done] Step title number 1');
    expect(text).toContain('2. [running] Step title number 2');
    expect(text).toContain('40. [pending] Step title number 40');
    expect(text).toContain('- Port is 8080');
    expect(text).toContain('# Current task: Step 2 of 40\n\n## Step title number 2\n\n' + plan[1]?.description);
    // other steps' descriptions and finished steps' summaries stay out
    expect(text).not.toContain(plan[2]?.description);
    expect(text).not.toContain('Summary of step 1');
  });

  it('keeps the prompt for step 40 of 40 no larger than for step 2 plus the memos', () => {
    const step2 = bytes(promptFor(stateAt(1, []), 1));
    const step40 = bytes(promptFor(stateAt(39, []), 39));
    expect(step40).toBeLessThanOrEqual(step2);

    const memos = Array.from({ length: 10 }, (_, i) => `Memo ${i}: the API listens on port ${8000 + i}`);
    const memoBytes = memos.reduce((sum, m) => sum + Buffer.byteLength(`- ${m}\n`), 0);
    const step40WithMemos = bytes(promptFor(stateAt(39, memos), 39));
    expect(step40WithMemos).toBeLessThanOrEqual(step2 + memoBytes);
  });

  it('adds a one-off note when given and refuses a step outside the plan', () => {
    const state = stateAt(0, []);
    const [, user] = stepMessages({
      systemPrompt: 's',
      requirement,
      steps: state.steps,
      memo: [],
      stepIndex: 0,
      note: 'Resumed after timer: deploy finished',
    });
    expect(String(user?.content)).toContain('# Note\n\nResumed after timer: deploy finished');
    expect(() => stepMessages({ systemPrompt: 's', requirement, steps: state.steps, memo: [], stepIndex: 40 })).toThrow(
      RangeError,
    );
  });

  it('replays the calls a step made before it was cut off, each answered by its output, then the note', () => {
    const state = stateAt(0, []);
    const messages = stepMessages({
      systemPrompt: 's',
      requirement,
      steps: state.steps,
      memo: [],
      stepIndex: 0,
      note: 'This step was interrupted and is resumed now: resumed after lease loss',
      earlier: [
        { tool_name: 'execute_on_worker', tool_input: { command: 'npm init -y' }, output: 'ok', is_error: false },
        { tool_name: 'save_memo', tool_input: { note: 'uses npm' }, output: 'saved', is_error: false },
      ],
    });
    expect(messages.slice(2)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          {
            id: 'replayed-1',
            type: 'function',
            function: { name: 'execute_on_worker', arguments: '{"command":"npm init -y"}' },
          },
        ],
      },
      { role: 'tool', tool_call_id: 'replayed-1', content: 'ok' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'replayed-2', type: 'function', function: { name: 'save_memo', arguments: '{"note":"uses npm"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'replayed-2', content: 'saved' },
      { role: 'user', content: expect.stringMatching(/^This step was interrupted .*do not repeat them/s) },
    ]);
    // The note follows the calls it is about, not the step's opening.
    expect(String(messages[1]?.content)).not.toContain('# Note');
  });
});

describe('planningMessages', () => {
  it('lists the template and workspace files', () => {
    const [, user] = planningMessages({
      systemPrompt: 's',
      requirement,
      template: 'react-vite',
      workspaceFiles: ['package.json', 'src/main.tsx'],
    });
    expect(String(user?.content)).toContain('template "react-vite"');
    expect(String(user?.content)).toContain('- src/main.tsx');
  });
});
