import { countTokens, type ScriptedHandler } from '@svc/scripted-llm';
import { phaseOf } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

const STEPS = 40;
const nn = (n: number) => String(n).padStart(2, '0');
const memoOf = (n: number) => `Task ${nn(n)} appended line ${nn(n)} to progress.txt.`;

/** Generator mode: a 40-step plan; each step runs a command, saves a memo and advances. */
const handler: ScriptedHandler = (request) => {
  const phase = phaseOf(request);
  if (phase === 'title') return { content: 'Forty small steps' };
  if (phase === 'report') return { content: '# Forty steps\n\nEvery line was appended.' };
  if (phase === 'planning') {
    const steps = Array.from({ length: STEPS }, (_, i) => ({
      title: `Task ${nn(i + 1)}`,
      description: `Append line ${nn(i + 1)} to progress.txt.`,
    }));
    return { tool_calls: [{ name: 'submit_plan', arguments: { steps } }] };
  }
  const n = request.stepNumber;
  if (phase !== 'execution' || n === null) return null;
  const turns = [
    { name: 'execute_on_worker', arguments: { command: `echo ${nn(n)} >> progress.txt` } },
    { name: 'save_memo', arguments: { note: memoOf(n) } },
    { name: 'advance_step', arguments: { summary: `line ${nn(n)} appended` } },
  ];
  const call = turns[request.turn];
  return call ? { tool_calls: [call] } : { content: 'done' };
};

describe('a 40-step plan', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ handler });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  it('keeps each step prompt bounded: it grows only by the memos, not by earlier steps', async () => {
    const { alice } = stack;
    const { id } = await alice.createWorkflow(
      stack.projectId,
      'Append forty numbered lines to progress.txt, one step each.',
    );
    await stack.waitForStatus(id, 'completed');
    expect(await alice.file(id, 'progress.txt')).toBe(
      Array.from({ length: STEPS }, (_, i) => `${nn(i + 1)}\n`).join(''),
    );

    const { items, totals } = await alice.llmCalls(id);
    const executing = items.filter((c) => c.phase === 'executing');
    expect(executing).toHaveLength(STEPS * 3);
    // The first call of a step is its fresh context: system prompt, requirement, plan outline, memos, the step.
    const opening: number[] = [];
    const largest: number[] = [];
    for (let step = 0; step < STEPS; step++) {
      const calls = executing.filter((c) => c.step_index === step).map((c) => c.prompt_tokens ?? NaN);
      opening.push(calls[0] ?? NaN);
      largest.push(Math.max(...calls));
    }
    const memoLine = (n: number) => countTokens(`- ${memoOf(n)}`);
    const growthBound = Array.from({ length: STEPS - 2 }, (_, i) => memoLine(i + 2)).reduce((a, b) => a + b, 0);
    console.log(
      [
        'prompt tokens per step (first call of the step / largest call of the step):',
        ...opening.map((p, i) => `  step ${nn(i + 1)}: ${p} / ${largest[i]}`),
        `step 2 -> step 40 growth: ${(opening[STEPS - 1] ?? 0) - (opening[1] ?? 0)} tokens; memo growth bound (38 memos): ${growthBound}`,
        `workflow totals: ${totals.calls} calls, ${totals.prompt_tokens} prompt tokens, ${totals.completion_tokens} completion tokens`,
      ].join('\n'),
    );

    // Step 40 carries 38 more memos than step 2 and nothing else that grows.
    expect(opening[STEPS - 1]).toBeLessThanOrEqual((opening[1] ?? 0) + growthBound + 8);
    expect(opening[STEPS - 1]).toBeGreaterThan(opening[1] ?? 0);
    for (let step = 2; step < STEPS; step++) {
      expect((opening[step] ?? 0) - (opening[step - 1] ?? 0)).toBeLessThanOrEqual(memoLine(step) + 2);
    }
    // Within a step the context holds only that step's own turns.
    expect(Math.max(...largest.map((l, i) => l - (opening[i] ?? 0)))).toBe(
      Math.min(...largest.map((l, i) => l - (opening[i] ?? 0))),
    );
  }, 180_000);
});
