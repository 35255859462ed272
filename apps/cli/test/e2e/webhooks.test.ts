import { plan, scriptedAgent } from '@svc/scripted-llm';
import { startWebhookReceiver, type WebhookReceiver } from '@svc/test-kit';
import { E2E_TIMEOUT_MS, startStack, type CliStack } from '../support/stack';

const agent = scriptedAgent({
  title: 'Webhooked run',
  planning: [plan('Say hello')],
  steps: {
    1: [
      { name: 'execute_on_worker', arguments: { command: 'printf "hello\\n" > hello.txt' } },
      { name: 'advance_step', arguments: { summary: 'said hello' } },
    ],
  },
});

// Issue 25: `svc webhook` manages a project's outbound webhooks; a run the real worker takes to its end is
// delivered, signed, to a real receiver; the deliveries are listed and one is redelivered.
describe('svc webhook with a real server, worker, scripted LLM and receiver', () => {
  let stack: CliStack;
  let receiver: WebhookReceiver;
  beforeAll(async () => {
    receiver = await startWebhookReceiver(({ nth }) => (nth === 0 ? 500 : 200));
    stack = await startStack(agent, {
      WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
      WEBHOOK_RETRY_BASE_MS: '20',
      OUTBOX_POLL_MS: '100',
    });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => {
    await stack?.close();
    await receiver?.close();
  });

  const svc = (args: string[]) => stack.svcExiting(args, 0);

  it(
    'creates a webhook, delivers a completed run (retried once), lists and redelivers, deletes',
    async () => {
      const created = JSON.parse(
        (
          await svc([
            'webhook',
            'create',
            receiver.url,
            '--event',
            'run.created',
            '--event',
            'run.completed',
            '-p',
            stack.projectId,
            '--json',
          ])
        ).stdout,
      ) as { id: string; secret: string; events: string[] };
      expect(created.secret).toMatch(/^whsec_/);
      expect(created.events).toEqual(['run.created', 'run.completed']);
      receiver.secret = created.secret;
      const listed = (await svc(['webhook', 'list', '-p', stack.projectId])).stdout;
      expect(listed).toContain(created.id);
      expect(listed).not.toContain(created.secret);

      const { id: runId } = await stack.alice.json<{ id: string }>(`/projects/${stack.projectId}/workflows`, {
        json: { requirement: 'Say hello' },
      });
      await stack.waitForStatus(runId, 'completed');
      const completed = await receiver.next(
        (d) => d.json.workflow_id === runId && d.event === 'run.completed' && d.answered === 200,
      );
      expect(completed.signatureValid).toBe(true);
      expect(completed.json).toMatchObject({ data: { status: 'completed', title: 'Webhooked run' } });

      const deliveries = JSON.parse((await svc(['webhook', 'deliveries', created.id, '--json'])).stdout) as {
        id: string;
        event_type: string;
        state: string;
      }[];
      const done = deliveries.find((d) => d.event_type === 'run.completed')!;
      expect(done).toMatchObject({ id: completed.deliveryId, state: 'delivered' });
      expect((await svc(['webhook', 'deliveries', created.id])).stdout).toContain('run.completed');

      await svc(['webhook', 'redeliver', created.id, done.id]);
      await receiver.next((d) => d.deliveryId === done.id && d !== completed && d.answered === 200);

      expect((await svc(['webhook', 'delete', created.id])).stdout).toContain(`deleted webhook ${created.id}`);
      expect(JSON.parse((await svc(['webhook', 'list', '-p', stack.projectId, '--json'])).stdout)).toEqual([]);
    },
    E2E_TIMEOUT_MS,
  );
});
