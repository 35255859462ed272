import { advance, phaseOf, plan, scriptedAgent, type ScriptedHandler } from '@svc/scripted-llm';
import { HttpError } from '../support/e2e-client';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

const QUESTION = 'Which colour should the heading have?';
const CHOICES = ['teal', 'navy'];

const agent = scriptedAgent({
  title: 'Coloured heading',
  planning: [plan('Choose the colour', 'Write the page')],
  steps: { 2: [advance('page written')] },
});

/**
 * Step 1 first asks with a default that is not a choice (a tool error comes back), then asks properly
 * with choices, then writes the answer it was given to colour.txt.
 */
const handler: ScriptedHandler = (request) => {
  if (phaseOf(request) !== 'execution' || request.stepNumber !== 1) return agent(request);
  const ask = (fallback: string) => ({
    tool_calls: [
      {
        name: 'ask_user',
        arguments: { question: QUESTION, choices: CHOICES, default: fallback, timeout_seconds: 600 },
      },
    ],
  });
  if (request.turn === 0) return ask('red');
  if (request.turn === 1) return ask('navy');
  if (request.turn === 2) {
    const answer = /The user answered: (.*)$/s.exec(request.lastMessage)?.[1] ?? 'NO ANSWER SEEN';
    return { tool_calls: [{ name: 'write_file', arguments: { path: 'colour.txt', content: answer } }] };
  }
  return { tool_calls: [{ name: 'advance_step', arguments: { summary: 'colour chosen' } }] };
};

describe('ask_user with choices over the real server', () => {
  let stack: Stack;

  beforeAll(async () => {
    stack = await startStack({ handler });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  it(
    'tells the LLM of an invalid call, shows the choices and deadline, refuses other text and takes a choice',
    async () => {
      const { alice } = stack;
      const { id } = await alice.createWorkflow(stack.projectId, 'Make a page with a coloured heading.');
      const waiting = await stack.waitForStatus(id, 'waiting_user');
      const shown = await alice.json<{
        question: string;
        question_choices: string[] | null;
        question_default: string | null;
        question_deadline: string | null;
      }>(`/workflows/${id}`);
      expect(shown).toMatchObject({ question: QUESTION, question_choices: CHOICES, question_default: 'navy' });
      expect(waiting.question).toBe(QUESTION);
      expect(Date.parse(shown.question_deadline!)).toBeGreaterThan(Date.now());

      const refused = await alice.json(`/workflows/${id}/answer`, { json: { answer: 'red' } }).catch((e: unknown) => e);
      expect((refused as HttpError).status).toBe(400);
      await alice.json(`/workflows/${id}/answer`, { json: { answer: 'teal' } });

      await stack.waitForStatus(id, 'completed');
      expect(await alice.file(id, 'colour.txt')).toBe('teal');
      const asks = (await alice.log(id)).filter((e) => e.tool_name === 'ask_user');
      expect(asks.map((e) => [e.is_error, e.output])).toEqual([
        [true, 'invalid arguments for ask_user: default: default must be one of the choices'],
        [false, 'The user answered: teal'],
      ]);
    },
    E2E_TIMEOUT_MS,
  );
});
