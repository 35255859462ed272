import type { Workflow, WorkflowListItem } from '@svc/protocol';
import { plan, scriptedAgent } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';

/** `svc list` with the run list's filters (issue 29) against a real server. */
describe('svc list filters', () => {
  let stack: CliStack;
  beforeAll(async () => {
    stack = await startStack(scriptedAgent({ planning: [plan('Do it')] }));
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  const listed = async (args: string[]) =>
    (
      JSON.parse(
        (await stack.svcExiting(['list', '-p', stack.projectId, '--json', ...args], 0)).stdout,
      ) as WorkflowListItem[]
    ).map((w) => w.id);

  it(
    'sends the author, status, worker and date filters, prints the count, and refuses a bad date',
    async () => {
      const created = JSON.parse(
        (await stack.svcExiting(['run', 'List me.', '--requires', 'nowhere', '-p', stack.projectId, '--json'], 0))
          .stdout,
      ) as Workflow;
      expect(await listed(['--author', 'alice', '--status', 'pending'])).toEqual([created.id]);
      expect(await listed(['--since', created.created_at.slice(0, 10), '-q', 'list me'])).toEqual([created.id]);
      expect(await listed(['--author', 'nobody'])).toEqual([]);
      expect(await listed(['--until', '2000-01-01'])).toEqual([]);
      expect(await listed(['--worker', 'no-such-worker'])).toEqual([]);
      const text = (await stack.svcExiting(['list', '-p', stack.projectId, '--author', 'alice'], 0)).stdout;
      expect(text).toMatch(new RegExp(`^${created.id}\\s+pending\\s+alice\\s+-\\s+-\\s+`, 'm'));
      expect(text).toMatch(/^1-\d+ of \d+$/m);
      const refused = await stack.svcExiting(['list', '-p', stack.projectId, '--since', 'yesterday'], 1);
      expect(refused.stderr).toContain('since');
    },
    E2E_TIMEOUT_MS,
  );
});
