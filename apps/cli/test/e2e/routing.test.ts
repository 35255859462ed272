import path from 'node:path';
import type { QueueDepth, Workflow } from '@svc/protocol';
import { eventually } from '@svc/test-kit';
import { plan, scriptedAgent } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';

/** `svc run --requires` and `svc admin queue` against a real server whose one worker has no labels. */
describe('svc run --requires and svc admin queue', () => {
  let stack: CliStack;
  beforeAll(async () => {
    stack = await startStack(scriptedAgent({ planning: [plan('Do it')] }));
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  const svc = (args: string[], expected: number, env?: Record<string, string>) =>
    stack.svcExiting(args, expected, env ? { env } : undefined);

  it(
    'creates a run that only a gpu worker may take; it says it waits and the queue lists it for administrators',
    async () => {
      const created = JSON.parse(
        (await svc(['run', 'Train the model.', '--requires', 'gpu, linux', '--project', stack.projectId, '--json'], 0))
          .stdout,
      ) as Workflow;
      expect(created.requires).toEqual(['gpu', 'linux']);
      await eventually(async () => (await stack.workflow(created.id)).waiting_reason !== null, {
        what: 'the run to say it waits',
        detail: stack.diagnostics,
      });
      const status = await svc(['status', created.id], 0);
      expect(status.stdout).toContain('requires: gpu, linux');
      expect(status.stdout).toContain('waiting: no online worker has the labels gpu, linux');
      expect((await stack.workflow(created.id)).status).toBe('pending');

      const rootConfig = { SVC_CONFIG: path.join(stack.dir, 'root.json') };
      await svc(['login', '--url', stack.api.url, '--dev-user', 'root'], 0, rootConfig);
      const queue = JSON.parse((await svc(['admin', 'queue', '--json'], 0, rootConfig)).stdout) as QueueDepth;
      expect(queue.groups).toEqual([
        expect.objectContaining({ requires: ['gpu', 'linux'], depth: 1, matching_online_workers: 0 }),
      ]);
      expect(queue.online_workers).toBe(1);
      const table = (await svc(['admin', 'queue'], 0, rootConfig)).stdout;
      expect(table).toMatch(/^REQUIRES\s+DEPTH\s+OLDEST WAIT\s+MATCHING WORKERS$/m);
      expect(table).toMatch(/^gpu,linux\s+1\s+\d+s\s+0$/m);

      // Not an administrator: refused.
      const refused = await svc(['admin', 'queue', '--json'], 1);
      expect(refused.stderr).toContain('forbidden');
    },
    E2E_TIMEOUT_MS,
  );
});
