import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { BrowserSocket } from '../support/e2e-browser';
import { HttpError } from '../support/e2e-client';
import { writingTheAnswer } from '../support/answer-writer';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';
import { eventually } from '@svc/test-kit';

const QUESTION = 'Which colour should the heading have?';

const agent = scriptedAgent({
  title: 'Coloured heading',
  planning: [plan('Choose the colour', 'Write the page')],
  steps: {
    1: [{ name: 'ask_user', arguments: { question: QUESTION } }],
    2: [
      {
        name: 'execute_on_worker',
        arguments: { command: 'printf "<h1 style=color:%s>Hi</h1>" "$(cat colour.txt)" > index.html' },
      },
      advance('page written'),
    ],
  },
});

/** Step 1 asks; once answered, it writes the answer it was given (its tool result) to colour.txt. */
const handler = writingTheAnswer(agent);

describe('ask_user over the real server', () => {
  let stack: Stack;
  let browser: BrowserSocket | undefined;

  beforeAll(async () => {
    stack = await startStack({ handler });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    browser?.close();
    await stack?.close();
  });

  it(
    'waits for the user, takes the answer from POST /answer and continues to completion',
    async () => {
      const { alice } = stack;
      const { id } = await alice.createWorkflow(stack.projectId, 'Make a page with a coloured heading.');
      browser = await BrowserSocket.open(stack.api.url, alice.cookie);
      await browser.subscribe(id, 0);

      const waiting = await stack.waitForStatus(id, 'waiting_user');
      expect(waiting.question).toBe(QUESTION);
      // a step paused for a question is not running: pending, and not interrupted either
      const paused = await alice.plan(id);
      expect(paused.map((s) => [s.status, s.interrupted])).toEqual([
        ['pending', undefined],
        ['pending', undefined],
      ]);
      await eventually(
        () =>
          browser!
            .events('workflow_status', id)
            .some((e) => e.data.status === 'waiting_user' && e.data.question === QUESTION),
        {
          what: 'the question on the browser socket',
        },
      );
      const answered = await alice.json<{ status: string; question: string | null }>(`/workflows/${id}/answer`, {
        json: { answer: 'teal' },
      });
      expect(answered).toMatchObject({ status: 'running', question: null });

      await stack.waitForStatus(id, 'completed');
      expect(await alice.file(id, 'colour.txt')).toBe('teal');
      expect(await alice.file(id, 'index.html')).toBe('<h1 style=color:teal>Hi</h1>');
      const asked = (await alice.log(id)).find((e) => e.tool_name === 'ask_user');
      expect(asked).toMatchObject({
        step_index: 0,
        tool_input: `question: ${QUESTION}\n`,
        output: 'The user answered: teal',
        is_error: false,
      });
      expect((await alice.plan(id)).map((s) => s.status)).toEqual(['done', 'done']);
      // Nothing moved while the question was open: every LLM call made after the question (its
      // conversation carries it) already knew the answer, which exists only once POST /answer ran.
      const afterQuestion = stack.llm.requests
        .map((r) => JSON.stringify((r.body as { messages?: unknown }).messages ?? []))
        .filter((messages) => messages.includes(QUESTION));
      expect(afterQuestion.length).toBeGreaterThan(0);
      expect(afterQuestion.filter((messages) => !messages.includes('teal'))).toEqual([]);

      // An answer to a workflow that is not waiting is refused.
      const late = await alice
        .json(`/workflows/${id}/answer`, { json: { answer: 'red' } })
        .catch((err: unknown) => err);
      expect(late).toBeInstanceOf(HttpError);
      expect((late as HttpError).status).toBe(409);
    },
    E2E_TIMEOUT_MS,
  );
});
