import fc from 'fast-check';
import { projectPlan } from '@svc/agent-core';
import type { PlanStepInfo, StepStatus, WorkflowListItem, WorkflowStatus } from '@svc/protocol';
import { startTestServer, TEST_PROVIDERS, type TestServer } from '../support/server';
import { body, createProject, createWorkflow, storeSnapshot } from '../support/fixtures';
import { actionEvent } from '../../src/workflows/actor';

/** What a workflow's event log holds, in seq order: feedback, a plan (snapshot), or something else. */
type Happening = 'feedback' | 'snapshot' | 'answered' | 'log';
interface Case {
  status: WorkflowStatus;
  happenings: Happening[];
  /** per snapshot: its number of steps and the running one (-1 planning, steps: completed) */
  plans: { steps: number; running: number }[];
}

const STATUSES: WorkflowStatus[] = [
  'pending',
  'planning',
  'running',
  'waiting_user',
  'paused',
  'completed',
  'failed',
  'cancelled',
];
const caseArb: fc.Arbitrary<Case> = fc.record({
  status: fc.constantFrom(...STATUSES),
  happenings: fc.array(fc.constantFrom<Happening>('feedback', 'snapshot', 'answered', 'log'), { maxLength: 6 }),
  plans: fc.array(
    fc
      .integer({ min: 1, max: 3 })
      .chain((steps) => fc.record({ steps: fc.constant(steps), running: fc.integer({ min: -1, max: steps }) })),
    { minLength: 6, maxLength: 6 },
  ),
});

/** The revising rule the projector is given: the latest feedback has no snapshot after it. */
const revisingOf = (happenings: readonly Happening[]) =>
  happenings.lastIndexOf('feedback') > happenings.lastIndexOf('snapshot');

const stepStatus = (index: number, running: number, steps: number): StepStatus => {
  if (running === -1) return 'pending';
  if (index < running || running === steps) return 'done';
  return index === running ? 'running' : 'pending';
};
const snapshotOf = ({ steps, running }: { steps: number; running: number }) => ({
  phase: running === -1 ? 'planning' : running === steps ? 'completed' : 'executing',
  current_step: running === -1 || running === steps ? null : running,
  steps: Array.from({ length: steps }, (_, i) => ({
    title: `S${i}`,
    description: `do ${i}`,
    status: stepStatus(i, running, steps),
  })),
});

// The list progress and GET /plan read "is a revised plan awaited" (workflows.plan_revising) and "the
// latest snapshot" with SQL (reads/hot-reads.ts). Their answers must be what the plan projector gives.
describe.each(TEST_PROVIDERS)('the SQL plan reads against the plan projector on %s', (provider) => {
  let server: TestServer;
  let ann: string;
  beforeAll(async () => {
    server = await startTestServer(provider);
    ann = await server.login('ann');
  });
  afterAll(async () => server?.close());

  async function store(projectId: string, c: Case): Promise<string> {
    const workflow = await createWorkflow(server, ann, projectId);
    const actor = { id: 'u1', login: 'ann', name: 'Ann' };
    let plans = 0;
    for (const happening of c.happenings) {
      if (happening === 'feedback' || happening === 'answered') {
        await server.deps.events.append(workflow, [actionEvent(happening, actor, 0, 'text')]);
      } else if (happening === 'log') {
        await server.deps.events.append(workflow, [{ type: 'workflow_update', data: { kind: 'log_entry', data: {} } }]);
      } else {
        const snapshot = snapshotOf(c.plans[plans++]!);
        const [event] = await server.deps.events.append(workflow, [
          { type: 'workflow_update', data: { kind: 'snapshot', data: snapshot } },
        ]);
        await storeSnapshot(server.deps.db, workflow.id, event!.seq, snapshot);
      }
    }
    const feedbacks = c.happenings.filter((h) => h === 'feedback').length;
    await server.deps.db.workflow.update({
      where: { id: workflow.id },
      // The flag feedback sets and a snapshot clears (their writes: plan-times.test.ts).
      data: { status: c.status, plan_revision: feedbacks, plan_revising: revisingOf(c.happenings) },
    });
    return workflow.id;
  }

  /** The plan the projector shows for a case: its latest snapshot's plan, untimed (no step events stored). */
  function projected(c: Case): PlanStepInfo[] {
    const snapshots = c.happenings.filter((h) => h === 'snapshot').length;
    if (snapshots === 0) return [];
    const latest = snapshotOf(c.plans[snapshots - 1]!);
    const steps = latest.steps.map((s, index) => ({ index, ...s, started_at: null, finished_at: null }));
    return projectPlan(steps, c.status, revisingOf(c.happenings));
  }

  it('agree for random event logs and statuses', async () => {
    const edges: Case[] = [
      { status: 'running', happenings: [], plans: [] },
      { status: 'pending', happenings: ['feedback'], plans: [] },
      { status: 'running', happenings: ['snapshot', 'feedback'], plans: [{ steps: 2, running: 2 }] },
      {
        status: 'running',
        happenings: ['snapshot', 'feedback', 'log', 'snapshot'],
        plans: [
          { steps: 2, running: 2 },
          { steps: 3, running: 0 },
        ],
      },
      { status: 'failed', happenings: ['snapshot', 'feedback'], plans: [{ steps: 2, running: 1 }] },
    ];
    const cases = [...edges, ...fc.sample(caseArb, { numRuns: 25, seed: 22 })];
    const project = await createProject(server, ann, `projection ${provider}`);
    const ids = [];
    for (const c of cases) ids.push(await store(project.id, c));

    const list = await body(await server.request(`/svc/api/projects/${project.id}/workflows?limit=100`, { as: ann }));
    const listed = new Map((list.items as WorkflowListItem[]).map((w) => [w.id, w]));
    for (const [i, c] of cases.entries()) {
      const expected = projected(c);
      const plan = await body(await server.request(`/svc/api/workflows/${ids[i]}/plan`, { as: ann }));
      expect({ case: c, plan }).toEqual({ case: c, plan: expected });
      const progress = c.happenings.includes('snapshot')
        ? { done: expected.filter((s) => s.status === 'done').length, total: expected.length }
        : null;
      expect({ case: c, progress: listed.get(ids[i]!)!.progress }).toEqual({ case: c, progress });
    }
    // Thirty stored cases and sixty reads, one after another: minutes on a loaded 2-core machine.
  }, 180_000);
});
