import { EventStream, logEntry, snapshot, TestWorker, type SseEvent } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../../support/server';
import { storedStream } from '../../support/events';
import { addMember, body, createProject, createWorkflow } from '../../support/fixtures';
import { workerSuite } from '../../ws/clients';

/** The control messages: they carry no id, so they leave the client's last event id where it was. */
const CONTROL = new Set(['subscribed', 'error']);
const stored = (events: SseEvent[]) => events.filter((e) => !CONTROL.has(e.event));
const seqs = (events: SseEvent[]) => stored(events).map((e) => Number(e.lastEventId));

describe.each(TEST_PROVIDERS)('Server-Sent Events on %s', (provider) => {
  const suite = workerSuite(provider);
  const streams: EventStream[] = [];
  afterEach(() => {
    for (const stream of streams.splice(0)) stream.close();
  });

  async function open(path: string, credential?: string, headers?: Record<string, string>): Promise<EventStream> {
    const stream = await EventStream.open(suite.server.url, `/svc/api${path}`, credential ?? suite.alice, headers);
    streams.push(stream);
    return stream;
  }

  async function running(name: string): Promise<{ worker: TestWorker; id: string; seq: { next: number } }> {
    const worker = await suite.start(name);
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const { last_seq } = await worker.dispatch(id, 'start');
    return { worker, id, seq: { next: last_seq + 1 } };
  }

  const storedEvents = async (id: string) => storedStream(suite.server.deps.db, suite.server.deps.dbProvider, id);

  it('replays after Last-Event-ID mid-stream, then delivers live events once, in seq order, with no gap', async () => {
    const { worker, id, seq } = await running('sse-replay');
    for (let i = 0; i < 5; i++) await worker.store(id, seq.next++, logEntry(`before ${i}`));

    // The whole history first (?since_seq=0): id = seq, event = type, data = the socket's envelope.
    const first = await open(`/workflows/${id}/events?since_seq=0`);
    expect(first.response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    expect(first.response.headers.get('cache-control')).toContain('no-cache');
    const subscribedEvent = await first.next((e) => e.event === 'subscribed');
    const subscribed = JSON.parse(subscribedEvent.data);
    const history = await storedEvents(id);
    expect(seqs(first.events)).toEqual(history.map((e) => e.seq));
    expect(subscribedEvent.lastEventId).toBe(String(history.at(-1)!.seq));
    expect(subscribed).toEqual({ type: 'subscribed', workflow_id: id, last_seq: history.at(-1)!.seq });
    const entry = first.events.find((e) => e.event === 'workflow_update')!;
    expect(JSON.parse(entry.data)).toEqual({
      type: 'workflow_update',
      workflow_id: id,
      project_id: suite.projectId,
      seq: Number(entry.lastEventId),
      ts: expect.any(String),
      data: { kind: 'log_entry', data: expect.objectContaining({ output: expect.stringMatching(/^before/) }) },
    });
    first.close();

    // A client that had seq 3 reconnects (what EventSource does); updates keep coming meanwhile.
    for (let i = 0; i < 3; i++) await worker.store(id, seq.next++, logEntry(`away ${i}`));
    const second = await open(`/workflows/${id}/events?since_seq=0`, undefined, { 'Last-Event-ID': '3' });
    const burst = Array.from({ length: 20 }, () => seq.next++);
    for (const s of burst) worker.update(id, s, logEntry(`during ${s}`));
    await second.next((e) => e.event === 'subscribed');
    await worker.inbox.next((m) => m.type === 'ack' && m.seq === burst.at(-1));
    const all = await storedEvents(id);
    const expected = all.filter((e) => e.seq > 3);
    await second.until(() => seqs(second.events).length >= expected.length, 'every stored event after seq 3');
    expect(seqs(second.events)).toEqual(expected.map((e) => e.seq));
    expect(stored(second.events).map((e) => e.event)).toEqual(expected.map((e) => e.type));

    // Live from here on: a snapshot gives plan_step_status events, still in order.
    await worker.store(id, seq.next++, snapshot('executing', 0, ['running', 'pending']));
    const steps = await second.until(() => {
      const found = second.dataOf('plan_step_status');
      return found.length === 2 && found;
    }, 'two plan_step_status events');
    expect(steps.map((s) => s.data)).toEqual([
      { index: 0, title: 'Step 1', status: 'running' },
      { index: 1, title: 'Step 2', status: 'pending' },
    ]);
    const final = await storedEvents(id);
    await second.until(() => seqs(second.events).at(-1) === final.at(-1)!.seq, 'the last stored seq');
    expect(seqs(second.events)).toEqual(final.filter((e) => e.seq > 3).map((e) => e.seq));
  });

  it('starts from now without a starting point, and keeps the stream open after the final status', async () => {
    const { worker, id, seq } = await running('sse-live');
    await worker.store(id, seq.next++, logEntry('old'));
    const now = await open(`/workflows/${id}/events`);
    const subscribed = JSON.parse((await now.next((e) => e.event === 'subscribed')).data);
    expect(seqs(now.events)).toEqual([]);
    expect(subscribed.last_seq).toBe((await storedEvents(id)).at(-1)!.seq);

    // A bearer api token works like the cookie; a future Last-Event-ID also starts from now.
    const token = (
      await body(await suite.server.request('/svc/api/token', { method: 'POST', as: suite.alice, json: {} }))
    ).token as string;
    const viaToken = await open(`/workflows/${id}/events`, token, { 'Last-Event-ID': '999999' });
    await viaToken.next((e) => e.event === 'subscribed');

    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'completed' } });
    for (const stream of [now, viaToken]) {
      const status = await stream.next((e) => e.event === 'workflow_status' && e.data.includes('completed'));
      expect(JSON.parse(status.data)).toMatchObject({ type: 'workflow_status', data: { status: 'completed' } });
    }
    // The stream stays open after a finished workflow (it may be retried): the client decides to stop.
    suite.server.deps.config.sse.heartbeatMs = 20;
    try {
      const beat = await open(`/workflows/${id}/events`);
      await beat.until(() => beat.comments.includes('keep-alive'), 'a heartbeat comment');
      expect(beat.ended).toBe(false);
    } finally {
      suite.server.deps.config.sse.heartbeatMs = 15_000;
    }
    expect(now.ended).toBe(false);
  });

  it("streams a project's list-level events: created workflows, status and title changes", async () => {
    const project = await createProject(suite.server, suite.alice, 'Streamed');
    const stream = await open(`/projects/${project.id}/events`);
    expect(JSON.parse((await stream.next((e) => e.event === 'subscribed')).data)).toEqual({
      type: 'subscribed',
      project_id: project.id,
    });
    const worker = await suite.start('sse-project');
    const { id } = await createWorkflow(suite.server, suite.alice, project.id);
    const { last_seq } = await worker.dispatch(id, 'start');
    await worker.store(id, last_seq + 1, { kind: 'title', data: { title: 'Todo app' } });
    await worker.store(id, last_seq + 2, logEntry('not a project event'));
    await worker.store(id, last_seq + 3, { kind: 'status', data: { status: 'waiting_user', question: 'Which port?' } });
    await stream.next((e) => e.event === 'workflow_status');
    expect(stream.dataOf('workflow_title').map((e) => e.data)).toEqual([{ title: 'Todo app' }]);
    const changed = stream.dataOf('project_changed');
    expect(changed).toContainEqual(
      expect.objectContaining({ project_id: project.id, data: { change: 'workflow_created', workflow_id: id } }),
    );
    expect(stream.dataOf('workflow_status').map((e) => e.data)).toEqual([
      expect.objectContaining({ status: 'waiting_user', question: 'Which port?' }),
    ]);
    expect(new Set(stream.events.map((e) => e.event))).toEqual(
      new Set(['subscribed', 'project_changed', 'workflow_status', 'workflow_title']),
    );
    // no ids: a project stream is not replayable
    expect(stream.events.every((e) => e.lastEventId === '')).toBe(true);
  });

  it('answers bad input and callers without access with the contract error body, before any stream', async () => {
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const cases: [string, Record<string, string>, string | undefined, number, string][] = [
      [`/workflows/${id}/events?since_seq=abc`, {}, suite.alice, 400, 'invalid_input'],
      [`/workflows/${id}/events?since_seq=-1`, {}, suite.alice, 400, 'invalid_input'],
      [`/workflows/${id}/events`, { 'Last-Event-ID': 'x1' }, suite.alice, 400, 'invalid_input'],
      [`/workflows/${id}/events`, {}, undefined, 401, 'unauthenticated'],
      [`/workflows/${id}/events`, {}, await suite.server.login('stranger'), 404, 'not_found'],
      [`/workflows/no-such-workflow/events`, {}, suite.alice, 404, 'not_found'],
      [`/projects/${suite.projectId}/events`, {}, await suite.server.login('stranger'), 404, 'not_found'],
      // A worker token sees nothing project-wide (issue 21, finding 5).
      [`/projects/${suite.projectId}/events`, {}, suite.token, 404, 'not_found'],
    ];
    for (const [path, headers, as, status, code] of cases) {
      const res = await suite.server.request(`/svc/api${path}`, { as, headers });
      expect([path, res.status]).toEqual([path, status]);
      expect(await body(res)).toEqual({ error: { code, message: expect.any(String), request_id: expect.any(String) } });
    }
  });

  it('ends a stream with an error event when its session is revoked or its user loses access', async () => {
    const { id } = await createWorkflow(suite.server, suite.alice, suite.projectId);
    const leaving = await suite.server.login('leaving');
    await addMember(suite.server, suite.alice, suite.projectId, 'leaving');
    const session = await suite.server.login('alice');
    const [revoked, removed, bystander] = await Promise.all([
      open(`/workflows/${id}/events`, session),
      open(`/projects/${suite.projectId}/events`, leaving),
      open(`/workflows/${id}/events`),
    ]);
    await Promise.all([revoked, removed, bystander].map((s) => s.next((e) => e.event === 'subscribed')));

    expect((await suite.server.request('/svc/auth/logout', { method: 'POST', as: session })).status).toBe(204);
    await revoked.closed();
    expect(revoked.dataOf('error')).toEqual([
      { type: 'error', error: { code: 'unauthenticated', message: expect.stringMatching(/revoked/) } },
    ]);

    const users = await suite.server.deps.db.user.findFirstOrThrow({ where: { login: 'leaving' } });
    const res = await suite.server.request(`/svc/api/projects/${suite.projectId}/members/${users.id}`, {
      method: 'DELETE',
      as: suite.alice,
    });
    expect(res.status).toBe(204);
    await removed.closed();
    expect(removed.dataOf('error')).toEqual([
      { type: 'error', error: { code: 'not_found', message: expect.any(String) } },
    ]);
    expect(bystander.ended).toBe(false);
  });
});
