import { EventStream, TestWorker } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { body } from '../support/fixtures';
import { llmCall, workerSuite } from '../ws/clients';

// Issue 23, budgets: the project default, the create body, spend against the caps, and the server's own
// check on ingest (authoritative: a worker that does not check is stopped at the cap too).
describe.each(TEST_PROVIDERS)('run budgets on %s', (provider) => {
  const suite = workerSuite(provider);
  const api = (path: string, init: { method?: string; json?: unknown; as?: string } = {}) =>
    suite.server.request(`/svc/api${path}`, { as: init.as ?? suite.alice, method: init.method, json: init.json });
  const create = async (json: Record<string, unknown>) => {
    const res = await api(`/projects/${suite.projectId}/workflows`, { method: 'POST', json });
    expect(res.status).toBe(201);
    return body<{ id: string }>(res);
  };
  const budgetOf = async (id: string) => body(await api(`/workflows/${id}/budget`));
  /** Waits on the run's event stream for its `budget_exceeded` event; resolves with the event's data. */
  async function budgetExceeded(id: string): Promise<Record<string, unknown>> {
    const stream = await EventStream.open(suite.server.url, `/svc/api/workflows/${id}/events?since_seq=0`, suite.alice);
    try {
      const event = await stream.next((e) => e.event === 'budget_exceeded');
      return (JSON.parse(event.data) as { data: Record<string, unknown> }).data;
    } finally {
      stream.close();
    }
  }

  /** A run dispatched to a scripted worker that reports itself running. */
  async function running(name: string, json: Record<string, unknown>) {
    const worker = await suite.start(name);
    worker.keepAlive();
    const { id } = await create({ requirement: 'Count to three', ...json });
    const { last_seq, budget } = await worker.dispatch(id, 'start');
    const seq = { next: last_seq + 1 };
    await worker.store(id, seq.next++, { kind: 'status', data: { status: 'running' } });
    return { worker, id, seq, dispatched: budget };
  }

  const call = (worker: TestWorker, id: string, seq: number) =>
    worker.store(id, seq, llmCall({ phase: 'executing', step_index: 0 }));

  it('copies the project default onto a new run unless the create body names a budget', async () => {
    const refused = await api(`/projects/${suite.projectId}/budget`, {
      method: 'PUT',
      json: { budget: { max_tokens: -5 } },
    });
    expect(refused.status).toBe(400);
    const put = await api(`/projects/${suite.projectId}/budget`, {
      method: 'PUT',
      json: { budget: { max_llm_calls: 7 } },
    });
    expect(await body(put)).toEqual({ budget: { max_llm_calls: 7, on_exceed: 'pause' } });
    expect(await body(await api(`/projects/${suite.projectId}/budget`))).toEqual({
      budget: { max_llm_calls: 7, on_exceed: 'pause' },
    });
    const defaulted = await create({ requirement: 'Defaulted' });
    const own = await create({ requirement: 'Own', budget: { max_tokens: 100, on_exceed: 'fail' } });
    expect((await budgetOf(defaulted.id)).budget).toEqual({ max_llm_calls: 7, on_exceed: 'pause' });
    expect((await budgetOf(own.id)).budget).toEqual({ max_tokens: 100, on_exceed: 'fail' });
    await api(`/projects/${suite.projectId}/budget`, { method: 'PUT', json: { budget: null } });
    expect((await budgetOf((await create({ requirement: 'None' })).id)).budget).toBeNull();
  });

  it('sends the budget with the dispatch and counts the spend of the stored calls', async () => {
    const { worker, id, seq, dispatched } = await running('spend', { budget: { max_tokens: 1000 } });
    expect(dispatched).toMatchObject({ budget: { max_tokens: 1000 }, spend: { llm_calls: 0, tokens: 0 } });
    await call(worker, id, seq.next++);
    await call(worker, id, seq.next++);
    expect(await budgetOf(id)).toMatchObject({
      budget: { max_tokens: 1000, on_exceed: 'pause' },
      spend: { llm_calls: 2, tokens: 30, cost: 0 },
      reached: [],
      exceeded: false,
    });
  });

  it('pauses a run whose worker does not check at the first call past the cap, and a raise resumes it', async () => {
    const { worker, id, seq } = await running('unchecked', { budget: { max_llm_calls: 2 } });
    for (let i = 0; i < 3; i++) expect((await call(worker, id, seq.next++)).type).toBe('ack');
    const question = 'Budget reached: LLM calls 3/2. Raise the budget to continue.';
    expect(await budgetExceeded(id)).toEqual({
      policy: 'pause',
      reached: ['max_llm_calls'],
      message: question,
      by: 'server',
    });
    const paused = await body(await api(`/workflows/${id}`));
    expect(paused).toMatchObject({ status: 'waiting_user', question });
    expect(paused.question).toBe('Budget reached: LLM calls 3/2. Raise the budget to continue.');
    expect(await budgetOf(id)).toMatchObject({ reached: ['max_llm_calls'], exceeded: true });

    const still = await api(`/workflows/${id}/budget`, { method: 'PATCH', json: { max_llm_calls: 3 } });
    expect(await body(still)).toMatchObject({ budget: { max_llm_calls: 3 }, exceeded: true });
    expect((await body(await api(`/workflows/${id}`))).status).toBe('waiting_user');

    const raised = await api(`/workflows/${id}/budget`, { method: 'PATCH', json: { max_llm_calls: 10 } });
    expect(await body(raised)).toMatchObject({ reached: [], exceeded: false });
    expect(await body(await api(`/workflows/${id}`))).toMatchObject({ status: 'running', question: null });
    // The next call is within the raised budget: stored, and the run goes on.
    expect((await call(worker, id, seq.next++)).type).toBe('ack');
    expect(await budgetOf(id)).toMatchObject({ spend: { llm_calls: 4 }, reached: [], exceeded: false });
  });

  it('fails a run with the fail policy at the first call past the cap', async () => {
    const { worker, id, seq } = await running('failing', { budget: { max_tokens: 20, on_exceed: 'fail' } });
    // 15 tokens a call: the third starts with 30 spent, past the cap of 20.
    for (let i = 0; i < 3; i++) await call(worker, id, seq.next++);
    expect(await budgetExceeded(id)).toMatchObject({ policy: 'fail', by: 'server' });
    const failed = await body(await api(`/workflows/${id}`));
    expect(failed.status).toBe('failed');
    expect(failed.error).toBe('budget exceeded: tokens 45/20');
    expect(await budgetOf(id)).toMatchObject({ reached: ['max_tokens'], exceeded: true });
  });

  it('records a budget stop a worker reports, with its budget_exceeded event', async () => {
    const { worker, id, seq } = await running('checking', { budget: { max_llm_calls: 1 } });
    await call(worker, id, seq.next++);
    const question = 'Budget reached: LLM calls 1/1. Raise the budget to continue.';
    const stored = await worker.store(id, seq.next++, {
      kind: 'status',
      data: { status: 'waiting_user', question, budget_exceeded: ['max_llm_calls'] },
    });
    expect(stored.type).toBe('ack');
    expect(await budgetExceeded(id)).toEqual({
      policy: 'pause',
      reached: ['max_llm_calls'],
      message: question,
      by: 'worker',
    });
    expect(await budgetOf(id)).toMatchObject({ exceeded: true, reached: ['max_llm_calls'] });
    expect(await body(await api(`/workflows/${id}`))).toMatchObject({ status: 'waiting_user', question });
  });

  it('hides the budget of another project and refuses bad input', async () => {
    const { id } = await create({ requirement: 'Mine' });
    const bob = await suite.server.login('bob');
    expect((await api(`/workflows/${id}/budget`, { as: bob })).status).toBe(404);
    expect(
      (await api(`/workflows/${id}/budget`, { method: 'PATCH', as: bob, json: { max_llm_calls: 1 } })).status,
    ).toBe(404);
    expect((await api(`/workflows/${id}/budget`, { method: 'PATCH', json: { max_llm_calls: 0 } })).status).toBe(400);
    expect((await api(`/workflows/${id}/budget`, { method: 'PATCH', json: { other: 1 } })).status).toBe(400);
    expect((await budgetOf(id)).budget).toBeNull();
  });
});
