import { createHmac } from 'node:crypto';
import { plan, scriptedAgent } from '@svc/scripted-llm';
import { E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';

/** The agent writes the requirement it was given into a file, so the test sees what the run was asked. */
const agent = scriptedAgent({
  title: 'Triggered run',
  planning: [plan('Note the issue')],
  steps: {
    1: [
      { name: 'execute_on_worker', arguments: { command: 'printf "triggered\\n" > triggered.txt' } },
      { name: 'advance_step', arguments: { summary: 'noted' } },
    ],
  },
});

// Issue 23: `svc triggers` manages a project's triggers; a signed delivery to the URL it prints starts a
// run that the real worker takes to its end.
describe('svc triggers with a real server, worker and scripted LLM', () => {
  let stack: CliStack;
  beforeAll(async () => {
    stack = await startStack(agent);
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  const svc = (args: string[]) => stack.svcExiting(args, 0);

  it(
    'creates a trigger, starts a run from a signed delivery, lists the delivery, rotates and removes the trigger',
    async () => {
      const created = JSON.parse(
        (
          await svc([
            'triggers',
            'create',
            'Fix issue #{{issue.number}}: {{issue.title}}',
            '--name',
            'issues',
            '--event',
            'issues.opened',
            '-p',
            stack.projectId,
            '--json',
          ])
        ).stdout,
      ) as { id: string; url: string; secret: string };
      expect(created.url).toBe(`${stack.api.url}/svc/api/hooks/${created.id}`);
      const listed = JSON.parse((await svc(['triggers', 'ls', '-p', stack.projectId, '--json'])).stdout) as unknown[];
      expect(listed).toEqual([expect.objectContaining({ id: created.id, name: 'issues' })]);
      expect(JSON.stringify(listed)).not.toContain(created.secret);

      const raw = JSON.stringify({ action: 'opened', issue: { number: 42, title: 'Login button is grey' } });
      const delivered = await fetch(created.url, {
        method: 'POST',
        body: raw,
        headers: {
          'content-type': 'application/json',
          'x-github-event': 'issues',
          'x-github-delivery': 'e2e-1',
          'x-hub-signature-256': `sha256=${createHmac('sha256', created.secret).update(raw).digest('hex')}`,
        },
      });
      expect(delivered.status).toBe(201);
      const { workflow_id: runId } = (await delivered.json()) as { workflow_id: string };
      const done = await stack.waitForStatus(runId, 'completed');
      expect(done.requirement).toBe('Fix issue #42: Login button is grey');

      const deliveries = JSON.parse((await svc(['triggers', 'deliveries', created.id, '--json'])).stdout) as unknown[];
      expect(deliveries).toEqual([expect.objectContaining({ delivery_id: 'e2e-1', workflow_id: runId })]);
      const rotated = JSON.parse((await svc(['triggers', 'rotate', created.id, '--json'])).stdout) as {
        secret: string;
      };
      expect(rotated.secret).toMatch(/^[0-9a-f]{64}$/);
      expect(rotated.secret).not.toBe(created.secret);
      expect((await svc(['triggers', 'rm', created.id])).stdout).toContain(`deleted trigger ${created.id}`);
      expect(JSON.parse((await svc(['triggers', 'ls', '-p', stack.projectId, '--json'])).stdout)).toEqual([]);
    },
    E2E_TIMEOUT_MS,
  );
});
