import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { createProject, createWorkflow } from '../support/fixtures';
import { TestWorker, workerToken } from '@svc/test-kit';
import { SETUP_TIMEOUT_MS } from './clients';

async function setup(server: TestServer): Promise<{ asker: TestWorker; target: TestWorker; workflowId: string }> {
  const token = await workerToken(server);
  const alice = await server.login('alice');
  const project = await createProject(server, alice);
  const asker = await TestWorker.start(server, token, 'asker');
  const { id } = await createWorkflow(server, alice, project.id);
  await asker.dispatch(id, 'start');
  const target = await TestWorker.start(server, token, 'gpu-box');
  return { asker, target, workflowId: id };
}

describe.each(TEST_PROVIDERS)('execute_on_worker relay on %s', (provider) => {
  let server: TestServer;
  let asker: TestWorker;
  let target: TestWorker;
  let workflowId: string;

  beforeAll(async () => {
    server = await startTestServer(provider);
    ({ asker, target, workflowId } = await setup(server));
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    asker?.close();
    target?.close();
    await server?.close();
  });

  it("sends exec to the target and relays its result to the asker under the asker's request id", async () => {
    asker.send({
      type: 'exec_request',
      request_id: 'req-1',
      target_worker: 'gpu-box',
      workflow_id: workflowId,
      command: 'nvidia-smi',
      timeout_seconds: 30,
    });
    const exec = await target.inbox.next((m) => m.type === 'exec');
    expect(exec).toMatchObject({ workflow_id: workflowId, command: 'nvidia-smi', timeout_seconds: 30 });
    expect(exec.request_id).not.toBe('req-1');
    target.send({
      type: 'exec_result',
      request_id: exec.request_id,
      exit_code: 0,
      output: 'GPU 0: ok',
      timed_out: false,
    });
    expect(await asker.inbox.next((m) => m.type === 'exec_result')).toEqual({
      type: 'exec_result',
      request_id: 'req-1',
      exit_code: 0,
      output: 'GPU 0: ok',
      timed_out: false,
    });
    // A second answer to the same request is not relayed again.
    target.send({ type: 'exec_result', request_id: exec.request_id, exit_code: 0, output: 'again', timed_out: false });
    expect((await target.inbox.next((m) => m.type === 'error')).error.code).toBe('not_found');
  });

  it('answers with an error result when the target is not connected or the asker does not hold the workflow', async () => {
    asker.send({
      type: 'exec_request',
      request_id: 'req-2',
      target_worker: 'nobody',
      workflow_id: workflowId,
      command: 'true',
    });
    expect(await asker.inbox.next((m) => m.type === 'exec_result' && m.request_id === 'req-2')).toMatchObject({
      exit_code: null,
      output: 'worker nobody is not connected',
    });
    target.send({
      type: 'exec_request',
      request_id: 'req-3',
      target_worker: 'asker',
      workflow_id: workflowId,
      command: 'rm -rf /',
    });
    expect(await target.inbox.next((m) => m.type === 'exec_result' && m.request_id === 'req-3')).toMatchObject({
      exit_code: null,
      output: expect.stringMatching(/not assigned/),
    });
    expect(asker.inbox.ofType('exec')).toHaveLength(0);
  });

  it('fails a pending request at once when the target disconnects', async () => {
    const token = await workerToken(server);
    const flaky = await TestWorker.start(server, token, 'flaky');
    asker.send({
      type: 'exec_request',
      request_id: 'req-4',
      target_worker: flaky.id,
      workflow_id: workflowId,
      command: 'sleep 100',
    });
    await flaky.inbox.next((m) => m.type === 'exec');
    flaky.close();
    expect(await asker.inbox.next((m) => m.type === 'exec_result' && m.request_id === 'req-4')).toMatchObject({
      exit_code: null,
      output: expect.stringMatching(/disconnected/),
    });
  });
});

describe('execute_on_worker relay time-out', () => {
  it('gives the asker a timed-out result when the target never answers', async () => {
    const server = await startTestServer('sqlite');
    try {
      const { asker, target, workflowId } = await setup(server);
      // Taken before the request leaves: the server's 1 s limit starts later, so this is a lower bound.
      const started = Date.now();
      asker.send({
        type: 'exec_request',
        request_id: 'slow',
        target_worker: 'gpu-box',
        workflow_id: workflowId,
        command: 'sleep 999',
        timeout_seconds: 1,
      });
      await target.inbox.next((m) => m.type === 'exec');
      const result = await asker.inbox.next((m) => m.type === 'exec_result' && m.request_id === 'slow', 15_000);
      expect(result).toMatchObject({
        exit_code: null,
        timed_out: true,
        output: expect.stringMatching(/no result from worker gpu-box within 1s/),
      });
      expect(Date.now() - started).toBeGreaterThanOrEqual(990);
      asker.close();
      target.close();
    } finally {
      await server.close();
    }
  }, 20_000);
});
