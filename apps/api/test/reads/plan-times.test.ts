import type { PlanStepInfo, UpdateBody, WorkflowListItem } from '@svc/protocol';
import { snapshot, TestWorker, workerToken } from '@svc/test-kit';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject, createWorkflow } from '../support/fixtures';
import { SETUP_TIMEOUT_MS } from '../ws/clients';

/**
 * GET /plan reads its step times from plan_step_times and "a revised plan is awaited" from
 * workflows.plan_revising (decision 0067). Its answers must be what the stored events say: each step
 * started when its last `running` event came, finished at its `done` event after that; while the latest
 * feedback has no snapshot after it, the done steps stay done and timed and the others are pending.
 */
describe.each(TEST_PROVIDERS)('the plan kept as state, against the events, on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  let projectId: string;
  let worker: TestWorker;
  beforeAll(async () => {
    server = await startTestServer(provider);
    ann = await server.login('ann');
    projectId = (await createProject(server, ann)).id;
    worker = await TestWorker.start(server, await workerToken(server), 'planner', 5);
  }, SETUP_TIMEOUT_MS);
  afterAll(async () => {
    worker?.close();
    await server?.close();
  });

  /** Each step's times as the workflow's plan_step_status events give them (the reads before 0067). */
  async function timesFromEvents(workflowId: string) {
    const events = await server.deps.events.since({ id: workflowId, project_id: projectId }, 0);
    const times = new Map<number, { started_at: string | null; finished_at: string | null }>();
    for (const event of events.filter((e) => e.type === 'plan_step_status')) {
      const { index, status } = event.data as { index: number; status: string };
      const step = times.get(index) ?? { started_at: null, finished_at: null };
      if (status === 'running') [step.started_at, step.finished_at] = [event.ts, null];
      else if (status === 'done') step.finished_at = event.ts;
      times.set(index, step);
    }
    return times;
  }

  const planOf = async (id: string): Promise<PlanStepInfo[]> =>
    body(await server.request(`/svc/api/workflows/${id}/plan`, { as: ann }));
  const progressOf = async (id: string) => {
    const list = await body(await server.request(`/svc/api/projects/${projectId}/workflows`, { as: ann }));
    return (list.items as WorkflowListItem[]).find((w) => w.id === id)!.progress;
  };

  /** The plan's times are the events' (a pending step shows none: it has not run in this plan). */
  async function expectTimesOfEvents(id: string) {
    const times = await timesFromEvents(id);
    const plan = await planOf(id);
    const expected = (step: PlanStepInfo) =>
      step.status === 'pending' ? { started_at: null, finished_at: null } : times.get(step.index);
    expect(plan.map((s) => [s.index, s.started_at, s.finished_at])).toEqual(
      plan.map((s) => [s.index, expected(s)?.started_at ?? null, expected(s)?.finished_at ?? null]),
    );
    return plan;
  }

  it('times each step as its events did across a run and a plan revision, and awaits the revised plan', async () => {
    const { id } = await createWorkflow(server, ann, projectId);
    await worker.dispatch(id, 'start');
    let seq = 0;
    const report = async (update: UpdateBody) =>
      expect(await worker.store(id, ++seq, update)).toEqual(expect.objectContaining({ type: 'ack', seq }));

    await report({ kind: 'status', data: { status: 'running' } });
    await report(snapshot('executing', 0, ['running', 'pending']));
    await report(snapshot('executing', 1, ['done', 'running']));
    let plan = await expectTimesOfEvents(id);
    expect(plan.map((s) => s.status)).toEqual(['done', 'running']);
    expect(plan.map((s) => [s.started_at !== null, s.finished_at !== null])).toEqual([
      [true, true],
      [true, false],
    ]);
    const before = plan;

    expect(
      (
        await server.request(`/svc/api/workflows/${id}/feedback`, {
          method: 'POST',
          as: ann,
          json: { message: 'more' },
        })
      ).status,
    ).toBe(200);
    plan = await planOf(id);
    // awaiting the revised plan: the finished step stays done with its times, the running one is pending
    expect(plan.map((s) => [s.status, s.finished_at])).toEqual([
      ['done', before[0]!.finished_at],
      ['pending', null],
    ]);
    expect(await progressOf(id)).toEqual({ done: 1, total: 2 });

    // The revised plan adds a step and runs steps 0 and 1 again: their times are the latest ones.
    await report(snapshot('executing', 1, ['done', 'running', 'pending']));
    plan = await expectTimesOfEvents(id);
    expect(plan[0]).toEqual(before[0]);
    await report(snapshot('executing', 0, ['running', 'pending', 'pending']));
    plan = await expectTimesOfEvents(id);
    expect(plan.map((s) => [s.status, s.finished_at])).toEqual([
      ['running', null],
      ['pending', null],
      ['pending', null],
    ]);
    await report(snapshot('executing', 1, ['done', 'running', 'pending']));
    plan = await expectTimesOfEvents(id);
    expect(plan.map((s) => s.status)).toEqual(['done', 'running', 'pending']);
    expect(await progressOf(id)).toEqual({ done: 1, total: 3 });

    await report(snapshot('completed', null, ['done', 'done', 'done']));
    plan = await expectTimesOfEvents(id);
    expect(plan.map((s) => s.finished_at !== null)).toEqual([true, true, true]);
  });
});
