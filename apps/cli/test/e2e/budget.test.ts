import type { WorkflowBudget } from '@svc/protocol';
import { plan, scriptedAgent } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';

const handler = scriptedAgent({
  title: 'Counting',
  planning: [plan('Count')],
  steps: {
    1: [
      { name: 'execute_on_worker', arguments: { command: 'echo one >> ran.txt' } },
      { name: 'execute_on_worker', arguments: { command: 'echo two >> ran.txt' } },
      { name: 'advance_step', arguments: { summary: 'counted' } },
    ],
  },
});

// Issue 23, budgets from the CLI: `svc run --budget-*`, `svc budget show|set`, and a raise that resumes.
describe('svc budget against a real server, worker and scripted LLM', () => {
  let stack: CliStack;

  beforeAll(async () => {
    stack = await startStack(handler);
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
  });

  const svc = (args: string[], expected: number) => stack.svcExiting(args, expected);

  it(
    'runs with a budget, stops at it (exit 3 while following), shows the spend and resumes after budget set',
    async () => {
      const ran = await svc(
        ['--json', 'run', '-p', 'ci', 'Count', '--budget-max-llm-calls', '2', '--follow', '--no-input'],
        3,
      );
      const result = JSON.parse(ran.stdout.trim().split('\n').at(-1)!) as {
        workflow: { id: string; question: string };
      };
      const id = result.workflow.id;
      expect(result.workflow.question).toBe('Budget reached: LLM calls 2/2. Raise the budget to continue.');

      const shown = JSON.parse((await svc(['--json', 'budget', 'show', id], 0)).stdout) as WorkflowBudget;
      expect(shown).toMatchObject({
        budget: { max_llm_calls: 2, on_exceed: 'pause' },
        spend: { llm_calls: 2 },
        reached: ['max_llm_calls'],
        exceeded: true,
      });
      expect((await svc(['budget', 'show', id], 0)).stdout).toContain('LLM calls    2 / 2');
      expect((await stack.svc(['budget', 'set', id, '--max-llm-calls', 'lots'])).code).toBe(2);

      const raised = JSON.parse((await svc(['--json', 'budget', 'set', id, '--max-llm-calls', '10'], 0)).stdout);
      expect(raised).toMatchObject({ budget: { max_llm_calls: 10 }, exceeded: false });
      await stack.waitForStatus(id, 'completed');
      expect((await svc(['files', 'get', id, 'ran.txt', '-o', '-'], 0)).stdout).toBe('one\ntwo\n');
    },
    E2E_TIMEOUT_MS,
  );
});
