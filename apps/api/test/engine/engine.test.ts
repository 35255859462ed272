import fc from 'fast-check';
import type { Db } from '@svc/db';
import { openTestDb, TEST_PROVIDERS, type TestDb } from '@svc/db/testing';
import type { UpdateBody, UpdateMessage } from '@svc/protocol';
import { decide, WorkflowEngine, type RunEvent, type RunState, type Transitioned } from '../../src/engine';
import { EventStore, LocalFanout, type NewEvent } from '../../src/events';
import { emptyRows, planUpdate, WorkflowPlan } from '../../src/ingest/plan';
import { batchTables } from '../../src/ingest/sql';
import { allowEventInserts, failEventInserts } from '../support/event-triggers';

const WORKER = 'worker-1';

/** A REST action's event, or a worker's status report stored through the ingest's planning and the engine. */
type Step = { user: RunEvent } | { worker: UpdateBody & { kind: 'status' } };

const stepArb: fc.Arbitrary<Step> = fc.oneof(
  fc
    .constantFrom<RunEvent>(
      { type: 'answered' },
      { type: 'cancelled' },
      { type: 'retried' },
      { type: 'timer_fired' },
      { type: 'feedback', hasPlan: true },
      { type: 'feedback', hasPlan: false },
    )
    .map((user) => ({ user })),
  fc
    .record({
      status: fc.constantFrom('pending', 'planning', 'running', 'waiting_user', 'completed', 'failed', 'cancelled'),
      question: fc.option(fc.constant('Which port?'), { nil: undefined }),
    })
    .map(({ status, question }) => ({
      worker: { kind: 'status', data: { status, ...(question && { question }) } } as UpdateBody & { kind: 'status' },
    })),
);

const action = (revision: number): NewEvent => ({ type: 'workflow_action', data: { revision } });

describe.each(TEST_PROVIDERS)('the workflow engine on %s', (provider) => {
  let testDb: TestDb;
  let db: Db;
  let engine: WorkflowEngine;
  let projectId: string;
  const announced: Transitioned[] = [];

  beforeAll(async () => {
    testDb = await openTestDb(provider);
    db = testDb.handle.db;
    const events = new EventStore({
      db,
      provider,
      fanout: new LocalFanout(),
      sqliteWriter: testDb.handle.sqliteWriter,
      pgPool: testDb.handle.pgPool,
    });
    engine = new WorkflowEngine({ db, provider, events, pgPool: testDb.handle.pgPool });
    engine.on('transitioned', (change) => announced.push(change));
    projectId = (await db.project.create({ data: { name: 'engine', created_by: 'ann' } })).id;
  });
  afterAll(async () => testDb?.close());

  let number = 0;
  async function workflowIn(status: string) {
    return db.workflow.create({
      data: {
        project_id: projectId,
        created_by: 'ann',
        requirement: 'r',
        title: 't',
        status,
        number: ++number,
        assigned_worker_id: WORKER,
      },
    });
  }
  const rowOf = (id: string) => db.workflow.findUniqueOrThrow({ where: { id } });
  const eventsOf = async (id: string) =>
    (await db.event.findMany({ where: { workflow_id: id }, orderBy: { seq: 'asc' } })).map((e) => e.type);

  /** A worker's status report, planned and committed as the ingest does; the refusal when there is one. */
  async function report(id: string, body: UpdateBody) {
    const row = await rowOf(id);
    const plan = new WorkflowPlan(row, null);
    const rows = emptyRows();
    const update = { type: 'update', workflow_id: id, seq: row.last_update_seq + 1, ...body } as UpdateMessage;
    const error = planUpdate(plan, rows, WORKER, update, new Date(), false);
    if (!error) await engine.applyWorkerUpdates({ runs: [plan], tables: batchTables(provider, rows), at: new Date() });
    return error;
  }

  it('commits a transition with its events in one transaction: a failing event insert leaves the status as it was', async () => {
    const workflow = await workflowIn('waiting_user');
    await failEventInserts(db, provider, 'workflow_action');
    announced.length = 0;
    try {
      await expect(engine.apply(workflow, { type: 'answered' }, { action })).rejects.toThrow(/refused by the test/);
    } finally {
      await allowEventInserts(db, provider);
    }
    const after = await rowOf(workflow.id);
    expect(after).toMatchObject({ status: 'waiting_user', last_event_seq: 0, finished_at: null });
    expect(await eventsOf(workflow.id)).toEqual([]);
    expect(announced).toEqual([]);
    // Without the failure the same transition commits, with both events.
    expect(await engine.apply(workflow, { type: 'answered' }, { action })).toMatchObject({
      kind: 'applied',
      current: { status: 'running' },
    });
    expect(await eventsOf(workflow.id)).toEqual(['workflow_status', 'workflow_action']);
  });

  it('creates a run with its created event in one transaction: a failing event insert leaves no run', async () => {
    const data = { project_id: projectId, created_by: 'ann', requirement: 'r', title: 't' };
    const lastNumber = async () =>
      (await db.project.findUniqueOrThrow({ where: { id: projectId } })).last_workflow_number;
    // Past the numbers this file's runs were inserted with.
    await db.project.update({ where: { id: projectId }, data: { last_workflow_number: 9_998 } });
    const before = await lastNumber();
    await failEventInserts(db, provider, 'workflow_action');
    try {
      await expect(engine.create(data, action)).rejects.toThrow(/refused by the test/);
    } finally {
      await allowEventInserts(db, provider);
    }
    expect(await db.workflow.count({ where: { project_id: projectId, number: before + 1 } })).toBe(0);
    // SQLite numbers inside the transaction: the rolled-back create gave its number back. PostgreSQL
    // numbers before it (decision 0088): the number is spent, never given twice.
    const spent = provider === 'postgresql' ? 1 : 0;
    expect(await lastNumber()).toBe(before + spent);
    const { workflow, stored } = await engine.create(data, action);
    expect(workflow).toMatchObject({ status: 'pending', number: before + spent + 1 });
    // The row returned is the row stored, as Prisma reads it (PostgreSQL inserts it raw: decision 0085).
    expect({ ...workflow, last_event_seq: 1 }).toEqual(await rowOf(workflow.id));
    expect(stored.map((e) => [e.type, e.seq])).toEqual([['workflow_action', 1]]);
    expect(await eventsOf(workflow.id)).toEqual(['workflow_action']);
  });

  it('commits a worker batch with its events in one transaction: a failing event insert stores nothing', async () => {
    const workflow = await workflowIn('running');
    await failEventInserts(db, provider, 'workflow_status');
    try {
      await expect(report(workflow.id, { kind: 'status', data: { status: 'completed' } })).rejects.toThrow(
        /refused by the test/,
      );
    } finally {
      await allowEventInserts(db, provider);
    }
    expect(await rowOf(workflow.id)).toMatchObject({ status: 'running', last_update_seq: 0, finished_at: null });
    expect(await db.workerUpdate.count({ where: { workflow_id: workflow.id } })).toBe(0);
  });

  it('refuses a worker report the table does not declare and stores nothing of it', async () => {
    const workflow = await workflowIn('running');
    const error = await report(workflow.id, { kind: 'status', data: { status: 'cancelled' } });
    expect(error).toEqual({ code: 'conflict', message: expect.stringMatching(/^update 1: a worker cannot cancel/) });
    expect(await rowOf(workflow.id)).toMatchObject({ status: 'running', last_update_seq: 0, last_event_seq: 0 });
  });

  it('stamps started_at at the first working report and keeps it; a final report clears the steering and title grant', async () => {
    const workflow = await workflowIn('pending');
    expect(await report(workflow.id, { kind: 'status', data: { status: 'planning' } })).toBeNull();
    const started = (await rowOf(workflow.id)).started_at;
    expect(started).toBeInstanceOf(Date);
    // Steering and a title job's grant wait for a worker while the run is unfinished.
    const steering = {
      steer_action: 'feedback',
      steer_message: 'm',
      title_worker_id: 'w2',
      title_first_seq: 40,
      title_last_seq: 55,
    };
    await db.workflow.update({ where: { id: workflow.id }, data: steering });
    expect(await report(workflow.id, { kind: 'status', data: { status: 'running' } })).toBeNull();
    expect(await rowOf(workflow.id)).toMatchObject({ ...steering, started_at: started, finished_at: null });
    expect(await report(workflow.id, { kind: 'status', data: { status: 'completed' } })).toBeNull();
    const finished = await rowOf(workflow.id);
    expect(finished).toMatchObject({
      status: 'completed',
      started_at: started,
      steer_action: null,
      steer_message: null,
      title_worker_id: null,
      title_first_seq: null,
      title_last_seq: null,
    });
    expect(finished.finished_at!.getTime()).toBeGreaterThanOrEqual(started!.getTime());
    expect(finished.updated_at.getTime()).toBeGreaterThanOrEqual(finished.finished_at!.getTime());
  });

  it('under random sequences of actions and reports, stores only declared states, with the events of each applied step', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(stepArb, { minLength: 1, maxLength: 6 }), async (steps) => {
        const workflow = await workflowIn('running');
        let model: RunState = 'running';
        for (const step of steps) {
          const before = await rowOf(workflow.id);
          const beforeEvents = await eventsOf(workflow.id);
          const event: RunEvent = 'user' in step ? step.user : { type: 'worker_reported', ...step.worker.data };
          const decision = decide(model, event);
          const refused =
            'user' in step
              ? (await engine.apply(workflow, step.user, { action })).kind === 'refused'
              : (await report(workflow.id, step.worker)) !== null;
          expect(refused).toBe(decision.kind === 'refuse');
          const after = await rowOf(workflow.id);
          const added = (await eventsOf(workflow.id)).slice(beforeEvents.length);
          if (decision.kind === 'refuse') {
            expect(after).toEqual(before);
            expect(added).toEqual([]);
            continue;
          }
          if (decision.kind === 'move') model = decision.to;
          expect(after.status).toBe(model);
          const statusEvent = decision.kind === 'move' ? ['workflow_status'] : [];
          expect(added).toEqual(
            'user' in step ? [...statusEvent, 'workflow_action'] : ['workflow_update', ...statusEvent],
          );
        }
      }),
      { numRuns: 12 },
    );
  });
});
