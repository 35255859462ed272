import WebSocket from 'ws';
import type { BrowserEvent, Project, Workflow } from '@svc/protocol';
import { LiveSocket, type SocketLike } from '../src/lib/ws';
import { eventually } from '@svc/test-kit';
import { expectJson, snapshot, startWebServer, startWorker, type TestServer, type TestWorker } from './support/server';

describe('LiveSocket against the real server', () => {
  let server: TestServer;
  let cookie: string;
  let project: Project;
  let worker: TestWorker;
  const sockets: { ws: WebSocket; sent: unknown[] }[] = [];
  let live: LiveSocket;

  beforeAll(async () => {
    server = await startWebServer();
    cookie = await server.login('alice');
    project = await expectJson<Project>(
      await server.request('/svc/api/projects', { method: 'POST', as: cookie, json: { name: 'Live' } }),
      201,
    );
    ({ worker } = await startWorker(server, 'live-worker', 10));
    // The browser's WebSocket sends the page's cookie and Origin; the ws package is told to do the same.
    live = new LiveSocket({
      url: `${server.url.replace(/^http/, 'ws')}/svc/ws`,
      retryDelayMs: () => 300,
      createSocket: (url) => {
        const ws = new WebSocket(url, { headers: { cookie, origin: server.url } });
        const record = { ws, sent: [] as unknown[] };
        const send = ws.send.bind(ws);
        ws.send = ((data: string) => (record.sent.push(JSON.parse(data)), send(data))) as typeof ws.send;
        sockets.push(record);
        return ws as unknown as SocketLike;
      },
    });
    await eventually(() => expect(live.state).toBe('open'));
  });

  afterAll(async () => {
    live?.close();
    worker?.close();
    await server?.close();
  });

  async function startedWorkflow(requirement: string): Promise<Workflow> {
    const workflow = await expectJson<Workflow>(
      await server.request(`/svc/api/projects/${project.id}/workflows`, {
        method: 'POST',
        as: cookie,
        json: { requirement },
      }),
      201,
    );
    await worker.dispatch(workflow.id, 'start');
    return workflow;
  }

  it('tells a project listener about a new workflow', async () => {
    const anchor = await startedWorkflow('Anchor');
    const seen: BrowserEvent[] = [];
    const stop = live.subscribeProject(project.id, (event) => seen.push(event));
    // The server handles a socket's frames in order: once a later subscribe is confirmed, the project one is in place.
    const confirmed = new Promise<void>((resolve) =>
      live.subscribeWorkflow(anchor.id, { onEvent: () => undefined, onSubscribed: () => resolve() }),
    );
    await confirmed;
    const workflow = await startedWorkflow('Project news');
    await eventually(() =>
      expect(seen).toContainEqual(
        expect.objectContaining({
          type: 'project_changed',
          data: { change: 'workflow_created', workflow_id: workflow.id },
        }),
      ),
    );
    stop();
  });

  it('replays what happened while the socket was down, each seq once and in order', async () => {
    const workflow = await startedWorkflow('Replay me');
    const seqs: number[] = [];
    const steps: string[] = [];
    const confirmations: number[] = [];
    const stop = live.subscribeWorkflow(workflow.id, {
      onEvent: (event) => {
        seqs.push(event.seq);
        if (event.type === 'plan_step_status') steps.push(`${event.data.index}:${event.data.status}`);
      },
      onSubscribed: (lastSeq) => confirmations.push(lastSeq),
    });
    await eventually(() => expect(confirmations).toHaveLength(1));

    expect((await worker.store(workflow.id, 1, snapshot('executing', 0, ['running', 'pending']))).type).toBe('ack');
    await eventually(() => expect(steps).toEqual(['0:running', '1:pending']));
    const seenBeforeDrop = live.lastSeq(workflow.id)!;

    // The network drops; the worker carries on meanwhile.
    const first = sockets.at(-1)!;
    first.ws.terminate();
    await eventually(() => expect(live.state).toBe('reconnecting'));
    expect((await worker.store(workflow.id, 2, snapshot('executing', 1, ['done', 'running']))).type).toBe('ack');
    expect((await worker.store(workflow.id, 3, snapshot('completed', null, ['done', 'done']))).type).toBe('ack');

    await eventually(() => expect(steps).toEqual(['0:running', '1:pending', '0:done', '1:running', '1:done']));
    const second = sockets.at(-1)!;
    expect(second).not.toBe(first);
    expect(second.sent).toContainEqual({ type: 'subscribe', workflow_id: workflow.id, since_seq: seenBeforeDrop });
    // every seq exactly once, ascending, no gaps
    expect(seqs).toEqual(seqs.map((_, i) => seqs[0]! + i));
    expect(confirmations.length).toBe(2);
    stop();
    await eventually(() => expect(second.sent).toContainEqual({ type: 'unsubscribe', workflow_id: workflow.id }));
  });

  it('reports a subscription the server refuses (a workflow the user may not see)', async () => {
    const errors: string[] = [];
    const other = await server.login('mallory');
    const otherProject = await expectJson<Project>(
      await server.request('/svc/api/projects', { method: 'POST', as: other, json: { name: 'Private' } }),
      201,
    );
    const secret = await expectJson<Workflow>(
      await server.request(`/svc/api/projects/${otherProject.id}/workflows`, {
        method: 'POST',
        as: other,
        json: { requirement: 'secret' },
      }),
      201,
    );
    const refused = new LiveSocket({
      url: `${server.url.replace(/^http/, 'ws')}/svc/ws`,
      createSocket: (url) => new WebSocket(url, { headers: { cookie, origin: server.url } }) as unknown as SocketLike,
      onServerError: (error) => errors.push(error.code),
    });
    const events: BrowserEvent[] = [];
    refused.subscribeWorkflow(secret.id, { onEvent: (e) => events.push(e) });
    await eventually(() => expect(errors).toEqual(['not_found']));
    expect(events).toEqual([]);
    refused.close();
    expect(refused.state).toBe('closed');
  });
});
