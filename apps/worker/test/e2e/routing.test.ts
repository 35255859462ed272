import type { QueueDepth, Workflow } from '@svc/protocol';
import { advance, plan, scriptedAgent } from '@svc/scripted-llm';
import { eventually, EventStream, type ManagedProcess } from '@svc/test-kit';
import { E2E_TIMEOUT_MS, FIRST_WORKER, startStack, type Stack } from '../support/e2e-stack';
import { startWorkerProcess } from '../support/e2e-worker';

const GPU_WORKER = 'gpu-worker';

/** Label routing and `svc-worker --once` with real worker processes (issue 23). */
describe('label routing and one-shot workers', () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack({
      handler: scriptedAgent({ planning: [plan('Do it')], steps: { 1: [advance('done')] } }),
      workerConfig: { labels: ['linux'] },
    });
    await stack.startWorker(GPU_WORKER, { labels: ['gpu', 'linux'] });
  }, E2E_TIMEOUT_MS);
  afterAll(async () => stack?.close());

  const create = (requirement: string, requires?: string[]) =>
    stack.alice.json<Workflow>(`/projects/${stack.projectId}/workflows`, {
      json: { requirement, ...(requires ? { requires } : {}) },
    });

  /** A `--once` worker process with these labels, once the server lists it online. */
  const startOnceWorker = async (name: string, labels: string[]): Promise<ManagedProcess> => {
    const worker = startWorkerProcess({
      dir: stack.dir,
      serverUrl: stack.api.url,
      token: stack.workerToken,
      llmUrl: stack.llm.url,
      name,
      config: { labels },
      args: ['--once'],
    });
    stack.workers.push(worker);
    return worker;
  };

  it(
    'gives a run that requires gpu only to the gpu worker, and one that requires nothing to either',
    async () => {
      const gpuRuns = await Promise.all([1, 2, 3].map((n) => create(`Train model ${n}.`, ['gpu'])));
      const anyRun = await create('Write a note.');
      expect(gpuRuns[0]!.requires).toEqual(['gpu']);
      expect(anyRun.requires).toEqual([]);
      for (const run of gpuRuns) {
        const done = await stack.waitForStatus(run.id, 'completed');
        expect(done.worker_name).toBe(GPU_WORKER);
      }
      const done = await stack.waitForStatus(anyRun.id, 'completed');
      expect([FIRST_WORKER, GPU_WORKER]).toContain(done.worker_name);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'refuses a run for a named worker without its labels',
    async () => {
      const res = await stack.alice.fetch(`/projects/${stack.projectId}/workflows`, {
        json: { requirement: 'Train it here.', requires: ['gpu'], worker_id: FIRST_WORKER },
      });
      expect(res.status).toBe(400);
      expect(await res.text()).toContain('does not have the labels gpu');
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'says so when no online worker has the labels, and a --once worker takes one run, exits 0 and leaves the next',
    async () => {
      const { alice, root } = stack;
      const first = await create('Build for arm.', ['arm64']);
      const events = await EventStream.open(
        stack.api.url,
        `/svc/api/workflows/${first.id}/events?since_seq=0`,
        alice.cookie,
      );
      try {
        const notice = await events.next((e) => e.event === 'workflow_routing', 'the routing notice');
        expect(JSON.parse(notice.data).data).toEqual({
          requires: ['arm64'],
          waiting_reason: 'no online worker has the labels arm64',
        });
        expect((await alice.workflow(first.id)).waiting_reason).toBe('no online worker has the labels arm64');
        const second = await create('Build for arm again.', ['arm64']);
        await eventually(async () => (await alice.workflow(second.id)).waiting_reason !== null, {
          what: 'the second run to say it waits',
        });

        // The queue by label set, for autoscalers: administrators only.
        const queue = await root.json<QueueDepth>('/admin/queue');
        expect(queue.groups).toContainEqual(
          expect.objectContaining({ requires: ['arm64'], depth: 2, matching_online_workers: 0 }),
        );
        expect((await alice.fetch('/admin/queue')).status).toBe(403);

        const once = await startOnceWorker('arm-once-1', ['arm64']);
        const exit = await once.exited;
        expect(exit.code).toBe(0);
        const runs = await Promise.all([first, second].map((w) => alice.workflow(w.id)));
        const taken = runs.filter((w) => w.status === 'completed');
        expect(taken.map((w) => w.worker_name)).toEqual(['arm-once-1']);
        const left = runs.find((w) => w.status !== 'completed')!;
        expect(left).toMatchObject({ status: 'pending', worker_id: null });
        // The one-shot worker is gone: the run left says so again.
        await eventually(async () => (await alice.workflow(left.id)).waiting_reason !== null, {
          what: 'the run left to say it waits again',
          detail: stack.diagnostics,
        });
        await events.next(
          (e) => e.event === 'workflow_routing' && JSON.parse(e.data).data.waiting_reason === null,
          'the notice cleared once a matching worker came',
        );

        const next = await startOnceWorker('arm-once-2', ['arm64', 'linux']);
        expect((await next.exited).code).toBe(0);
        const last = await alice.workflow(left.id);
        expect(last).toMatchObject({ status: 'completed', worker_name: 'arm-once-2', waiting_reason: null });
        const after = await root.json<QueueDepth>('/admin/queue');
        expect(after.groups.find((g) => g.requires.includes('arm64'))).toBeUndefined();
      } finally {
        events.close();
      }
    },
    E2E_TIMEOUT_MS,
  );
});
