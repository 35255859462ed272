import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { createProject, createWorkflow } from '../support/fixtures';
import { TestWorker, workerToken } from '@svc/test-kit';
import { SETUP_TIMEOUT_MS } from './clients';
import type { ExecResultMessage } from '@svc/protocol';
import { joinResultParts, resultParts } from '../../src/ws/exec-relay';

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

  it("relays the target's whole-output object and line times with the result (decision 0081)", async () => {
    asker.send({
      type: 'exec_request',
      request_id: 'req-whole',
      target_worker: 'gpu-box',
      workflow_id: workflowId,
      command: 'make',
    });
    const exec = await target.inbox.next((m) => m.type === 'exec' && m.command === 'make');
    const result = {
      type: 'exec_result' as const,
      request_id: exec.request_id,
      exit_code: 0,
      output: 'a\nb',
      timed_out: false,
      output_object: { name: 'o-1', total_bytes: 90_000 },
      output_line_times: {
        started_at: '2026-01-02T03:04:05.678Z',
        lines: [
          [0, null],
          [1, 3],
        ] as [number, number | null][],
      },
    };
    target.send(result);
    expect(await asker.inbox.next((m) => m.type === 'exec_result' && m.request_id === 'req-whole')).toEqual({
      ...result,
      request_id: 'req-whole',
    });
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

describe('an exec result between replicas, in bus messages', () => {
  const lines = Array.from({ length: 400 }, (_, i): [number, number | null] => [i, i === 0 ? null : i * 7]);
  const result: ExecResultMessage = {
    type: 'exec_result',
    request_id: 'r',
    exit_code: 0,
    output: Array.from({ length: 300 }, (_, i) => `line ${i}: "ok" \u00e9\n`).join(''),
    timed_out: false,
    output_object: { name: 'o-1', total_bytes: 123_456 },
    output_line_times: { started_at: '2026-01-02T03:04:05.678Z', lines },
  };
  const shuffled = <T>(items: T[]) => [...items.slice(1), items[0]!].reverse();

  it('carries the output, then the whole-output fields, each part small enough for NOTIFY', () => {
    const parts = resultParts('x', 'replica-a', result);
    expect(parts.length).toBeGreaterThan(8);
    for (const part of parts) expect(Buffer.byteLength(JSON.stringify(part))).toBeLessThan(7_000);
    // arrival order does not matter: parts are put back by their number
    const byNumber: typeof parts = [];
    for (const part of shuffled(parts)) byNumber[part.part] = part;
    expect({ type: 'exec_result', request_id: 'r', ...joinResultParts(byNumber) }).toEqual(result);
  });

  it('gives an older replica, which joins only the outputs, the output as before', () => {
    const parts = resultParts('x', 'replica-a', result);
    expect(parts.map((p) => p.output).join('')).toBe(result.output);
  });

  it('has no extra parts for an older worker’s result, and leaves out extra fields that do not parse', () => {
    const { output_object: _o, output_line_times: _t, ...plain } = result;
    const parts = resultParts('x', 'replica-a', plain);
    expect(parts.every((p) => p.extra === undefined)).toBe(true);
    expect({ type: 'exec_result', request_id: 'r', ...joinResultParts(parts) }).toEqual(plain);
    const broken = [
      ...parts,
      { ...parts[0]!, part: parts.length, output: '', extra: '{"output_object":{"name":"../x"' },
    ];
    expect(joinResultParts(broken)).toEqual({ exit_code: 0, output: result.output, timed_out: false });
  });

  it('sends an empty output as one part', () => {
    const parts = resultParts('x', 'replica-a', { ...result, output: '', output_line_times: undefined });
    expect(parts[0]).toMatchObject({ part: 0, output: '' });
    expect(joinResultParts(parts)).toEqual({
      exit_code: 0,
      output: '',
      timed_out: false,
      output_object: result.output_object,
    });
  });
});
