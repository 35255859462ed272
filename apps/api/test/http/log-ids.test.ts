import pino from 'pino';
import { logIdsOptions } from '@svc/observability';
import { logSink } from '@svc/test-kit';
import { startTestServer, type TestServer } from '../support/server';
import { createProject, createWorkflow } from '../support/fixtures';

/** Issue 26: every log line carries the request and run ids where they exist. */
describe('log lines carry request and run ids', () => {
  let server: TestServer;
  let alice: string;
  const sink = logSink();

  beforeAll(async () => {
    server = await startTestServer('sqlite', {}, {}, pino({ level: 'debug', ...logIdsOptions }, sink.stream));
    alice = await server.login('alice');
  });
  afterAll(async () => server?.close());

  const linesOf = (requestId: string) => sink.lines.filter((line) => line.request_id === requestId);

  it('gives a request on a run both ids, on the hot read path and the routed one', async () => {
    const project = (await createProject(server, alice, 'Logged')).id;
    const workflow = (await createWorkflow(server, alice, project)).id;
    for (const [requestId, path, method] of [
      ['hot-read-1', `/svc/api/workflows/${workflow}`, 'GET'],
      ['cancel-1', `/svc/api/workflows/${workflow}/cancel`, 'POST'],
    ] as const) {
      const res = await server.request(path, {
        method,
        as: alice,
        headers: { 'x-request-id': requestId },
        ...(method === 'POST' ? { json: {} } : {}),
      });
      expect(res.status).toBe(200);
      await res.arrayBuffer();
      const request = linesOf(requestId).find((line) => line.msg === 'request');
      expect(request).toMatchObject({ request_id: requestId, run_id: workflow, status: 200 });
    }
  });

  it('adds the request id to what a service logs while serving it, and only to that', async () => {
    const project = (await createProject(server, alice, 'Deleted')).id;
    const res = await server.request(`/svc/api/projects/${project}`, {
      method: 'DELETE',
      as: alice,
      headers: { 'x-request-id': 'delete-1' },
    });
    expect(res.status).toBe(204);
    // written by the lifecycle service with the server's logger, not the request's
    const archived = sink.lines.filter((line) => line.msg === 'project deleted and archived');
    expect(archived).toHaveLength(1);
    expect(archived[0]).toMatchObject({ request_id: 'delete-1', project_id: project });
    expect(sink.lines.filter((line) => line.msg === 'replica')[0]).not.toHaveProperty('request_id');
  });
});
