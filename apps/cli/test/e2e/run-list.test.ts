import path from 'node:path';
import type { Worker, Workflow, WorkflowListItem } from '@svc/protocol';
import { plan, scriptedAgent } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, startStack, WORKER_NAME, type CliStack } from '../support/stack';

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

  it(
    'pauses, drains and resumes a worker for an administrator, and refuses anyone else',
    async () => {
      const root = { env: { SVC_CONFIG: path.join(stack.dir, 'root.json') } };
      await stack.svcExiting(['login', '--url', stack.api.url, '--dev-user', 'root'], 0, root);
      const res = await fetch(`${stack.api.url}/svc/api/workers`, {
        headers: { authorization: `Bearer ${stack.token}` },
      });
      const worker = ((await res.json()) as Worker[]).find((w) => w.name === WORKER_NAME)!;
      const change = async (what: string) =>
        JSON.parse((await stack.svcExiting(['workers', what, worker.id, '--json'], 0, root)).stdout) as Worker;
      expect((await change('pause')).admin_state).toBe('paused');
      expect(['draining', 'drained']).toContain((await change('drain')).admin_state);
      expect((await change('resume')).admin_state).toBe('active');
      const text = (await stack.svcExiting(['workers', 'pause', worker.id], 0, root)).stdout;
      expect(text).toMatch(new RegExp(`^${worker.id}\\s+${WORKER_NAME}\\s+paused\\s+`));
      await stack.svcExiting(['workers', 'resume', worker.id], 0, root);
      const refused = await stack.svcExiting(['workers', 'pause', worker.id], 1);
      expect(refused.stderr).toContain('not allowed: workers.manage');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'lists the runs a worker took, finished ones included, and refuses an unknown worker',
    async () => {
      const followed = (await stack.svcExiting(['--json', 'run', '-p', stack.projectId, 'Finish me.', '--follow'], 0))
        .stdout;
      // --follow --json prints the events, then a result line with the finished workflow
      const finished = (JSON.parse(followed.trim().split('\n').at(-1)!) as { workflow: Workflow }).workflow;
      expect(finished.status).toBe('completed');
      const res = await fetch(`${stack.api.url}/svc/api/workers`, {
        headers: { authorization: `Bearer ${stack.token}` },
      });
      const worker = ((await res.json()) as Worker[]).find((w) => w.name === WORKER_NAME)!;
      const page = JSON.parse((await stack.svcExiting(['workers', 'runs', worker.id, '--json'], 0)).stdout) as {
        items: { workflow_id: string; status: string }[];
      };
      expect(page.items).toContainEqual(expect.objectContaining({ workflow_id: finished.id, status: 'completed' }));
      const text = (await stack.svcExiting(['workers', 'runs', worker.id], 0)).stdout;
      expect(text).toMatch(new RegExp(`^${finished.id}\\s+completed\\s+\\S+\\s+.+ #${finished.number}\\s+`, 'm'));
      const unknown = await stack.svcExiting(['workers', 'runs', 'no-such-worker'], 1);
      expect(unknown.stderr).toContain('worker not found');
    },
    E2E_TIMEOUT_MS,
  );
});
