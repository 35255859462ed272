import { advance, phaseOf, plan, scriptedAgent, type Call } from '@svc/scripted-llm';
import { requestsSince } from '../support/e2e-requests';
import { E2E_TIMEOUT_MS, startStack, type Stack } from '../support/e2e-stack';

const TITLES = ['Create the folder', 'Write the page', 'Write the styles', 'Check the links', 'Package the site'];
const REVISED = ['Create the folder', 'Write the page', 'Write a README', 'Check the links', 'Package the site'];

/** Each step appends its title to progress.txt, so the file shows which steps ran, in order. */
const stepCalls = (titles: string[]): Record<number, Call[]> =>
  Object.fromEntries(
    titles.map((title, i) => [
      i + 1,
      [{ name: 'execute_on_worker', arguments: { command: `echo '${title}' >> progress.txt` } }, advance(title)],
    ]),
  );

const agent = scriptedAgent({ planning: [plan(...TITLES)], revise: [plan(...REVISED)], steps: stepCalls(TITLES) });
const reviseAgent = scriptedAgent({ steps: stepCalls(REVISED) });

describe('feedback that changes step 3 of 5', () => {
  let stack: Stack;
  let revised = false;

  beforeAll(async () => {
    stack = await startStack({
      handler: (request) => (revised && phaseOf(request) === 'execution' ? reviseAgent(request) : agent(request)),
    });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  it(
    'revises the plan and re-runs steps 3 to 5 only',
    async () => {
      const { alice } = stack;
      const { id } = await alice.createWorkflow(stack.projectId, 'Build a small static site in five steps.');
      await stack.waitForStatus(id, 'completed');
      expect(await alice.file(id, 'progress.txt')).toBe(`${TITLES.join('\n')}\n`);
      const logBefore = await alice.log(id);

      const before = stack.llm.requests.length;
      revised = true;
      await alice.json(`/workflows/${id}/feedback`, {
        json: { message: 'Step 3 should write a README instead of styles.' },
      });
      await stack.waitForStatus(id, 'completed');

      const after = requestsSince(stack.llm.requests, before);
      expect(after.filter((r) => r.phase === 'revise').length).toBeGreaterThanOrEqual(1);
      expect(after.filter((r) => r.phase === 'planning')).toEqual([]);
      const executed = after.filter((r) => r.phase === 'execution').map((r) => r.step);
      expect([...new Set(executed)]).toEqual([3, 4, 5]);
      expect(after.some((r) => r.phase === 'report')).toBe(true);

      const plan = await alice.plan(id);
      expect(plan.map((s) => [s.title, s.status])).toEqual(REVISED.map((t) => [t, 'done']));
      // Steps 1 and 2 kept their single run; 3 to 5 ran again, 3 with its new content.
      expect(await alice.file(id, 'progress.txt')).toBe(`${[...TITLES, ...REVISED.slice(2)].join('\n')}\n`);
      const log = await alice.log(id);
      const newEntries = log.slice(logBefore.length).filter((e) => e.step_index !== null);
      expect([...new Set(newEntries.map((e) => e.step_index))]).toEqual([2, 3, 4]);
      expect(log.filter((e) => e.step_index === 0 || e.step_index === 1)).toHaveLength(4);
    },
    E2E_TIMEOUT_MS,
  );
});
