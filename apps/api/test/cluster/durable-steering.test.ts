import {
  eventually,
  Session,
  startApiProcess,
  TEST_PROVIDERS,
  TestWorker,
  workerToken,
  type ApiProcess,
} from '@svc/test-kit';
import { CLUSTER_TIMEOUT_MS, createWorkflow, snapshot } from './cluster';

/** Finding 6: steering for a workflow no worker holds is stored, so a restart does not lose it. */
describe.each(TEST_PROVIDERS)('steering survives a restart of the only server, on %s', (provider) => {
  let api: ApiProcess;
  const workers: TestWorker[] = [];

  beforeAll(async () => {
    // Lease 0: a lost worker's workflows go back to the queue at once, so nobody holds the workflow.
    api = await startApiProcess({ provider, env: { LOG_LEVEL: 'warn', WORKER_LEASE_SECONDS: '0' } });
  }, CLUSTER_TIMEOUT_MS);

  afterAll(async () => {
    for (const worker of workers) worker.close();
    await api?.close();
  }, CLUSTER_TIMEOUT_MS);

  it(
    'an answer sent while no worker holds the workflow reaches the worker that takes it after the restart',
    async () => {
      const token = await workerToken(api);
      const alice = await Session.signIn(api.url, 'alice');
      const { id: projectId } = await alice.json<{ id: string }>('/projects', { json: { name: 'restart' } });
      const asker = await TestWorker.start(api, token, 'asker');
      workers.push(asker);
      const id = await createWorkflow(alice, projectId);
      const { last_seq: last } = await asker.dispatch(id, 'start');
      await asker.store(id, last + 1, snapshot('executing', 0, ['running', 'pending']));
      await asker.store(id, last + 2, { kind: 'status', data: { status: 'waiting_user', question: 'Which port?' } });
      asker.close();
      // Handed back: still waiting for the user, held by nobody.
      await eventually(
        async () => (await alice.json<{ worker_id: string | null }>(`/workflows/${id}`)).worker_id === null,
        { what: 'the lost worker to hand the workflow back' },
      );
      await alice.json(`/workflows/${id}/answer`, { json: { answer: '8080' } });
      await api.restart();

      const taker = await TestWorker.start(api, token, 'taker');
      workers.push(taker);
      expect(await taker.dispatch(id, 'answer')).toMatchObject({
        message: '8080',
        last_seq: last + 2,
        snapshot: { phase: 'executing' },
      });
    },
    CLUSTER_TIMEOUT_MS,
  );
});
