import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createDb } from '@svc/db';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { buildRuntime, type Runtime } from '../../src/bootstrap';
import { startServer, type RunningServer } from '../../src/server';
import { TEST_PROVIDERS, testConfig } from '../support/server';
import { eventually, snapshot, TestWorker, workerToken } from '@svc/test-kit';
import { SETUP_TIMEOUT_MS } from '../ws/clients';

/** A real server on a database and data directory that outlive it (so another can start on them). */
async function serverOn(
  database: TestDatabase,
  dataDir: string,
): Promise<{ runtime: Runtime; running: RunningServer; url: string }> {
  const config = testConfig(database.url, dataDir);
  const runtime = await buildRuntime(config, pino({ level: 'silent' }));
  const running = await startServer(runtime, { port: 0, host: '127.0.0.1' });
  return { runtime, running, url: running.url };
}

/** A project with one workflow that a worker paused at step 1 (as `set_timer` does). */
async function pausedWorkflow(runtime: Runtime): Promise<string> {
  const { db } = runtime.deps;
  const user = await db.user.create({ data: { login: 'owner', provider: 'dev', provider_subject: 'owner' } });
  const project = await db.project.create({
    data: { name: 'P', created_by: user.id, members: { create: { user_id: user.id, role: 'owner' } } },
  });
  const workflow = await db.workflow.create({
    data: {
      project_id: project.id,
      created_by: user.id,
      requirement: 'deploy',
      title: 'deploy',
      status: 'pending',
      last_update_seq: 1,
    },
  });
  const data = snapshot('executing', 0, ['running', 'pending']).data as {
    phase: string;
    current_step: number;
    steps: object[];
    memo: string[];
  };
  await db.agentStateSnapshot.create({
    data: {
      workflow_id: workflow.id,
      seq: 1,
      phase: data.phase,
      current_step: data.current_step,
      steps: data.steps,
      memo: data.memo,
    },
  });
  return workflow.id;
}

describe.each(TEST_PROVIDERS)('timers across restarts on %s', (provider) => {
  let database: TestDatabase;
  let dataDir: string;

  beforeEach(async () => {
    database = await createTestDatabase(provider);
    dataDir = mkdtempSync(join(tmpdir(), 'svc-timer-restart-'));
  }, SETUP_TIMEOUT_MS);
  afterEach(async () => {
    await database.drop();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('fires a timer that came due while the server was down, once the next server starts', async () => {
    const before = await serverOn(database, dataDir);
    const id = await pausedWorkflow(before.runtime);
    const fireAt = new Date(Date.now() + 1500);
    await before.runtime.deps.db.timer.create({
      data: { workflow_id: id, fire_at: fireAt, reason: 'resume after the deploy window' },
    });
    await before.running.close();
    // A closed server's database handle is closed too: look on a handle of the test's own.
    const check = await createDb({ url: database.url });
    try {
      expect((await check.db.timer.findFirstOrThrow({ where: { workflow_id: id } })).status).toBe('pending');
    } finally {
      await check.close();
    }
    // The timer comes due while no server runs (waiting for the clock is the scenario here).
    const untilDue = fireAt.getTime() - Date.now() + 1;
    if (untilDue > 0) await new Promise((r) => setTimeout(r, untilDue));

    const after = await serverOn(database, dataDir);
    try {
      const token = await workerToken(after);
      const worker = await TestWorker.start(after, token, 'after-restart');
      const resume = await worker.dispatch(id, 'resume');
      expect(resume).toMatchObject({
        message: 'resume after the deploy window',
        last_seq: 1,
        snapshot: { phase: 'executing', current_step: 0 },
      });
      expect(await after.runtime.deps.db.timer.findFirstOrThrow({ where: { workflow_id: id } })).toMatchObject({
        status: 'fired',
        fired_at: expect.any(Date),
      });
      worker.close();
    } finally {
      await after.running.close();
    }
  }, 20_000);

  it('fires each timer once when two servers share the database', async () => {
    const one = await serverOn(database, dataDir);
    const two = await serverOn(database, dataDir);
    try {
      const id = await pausedWorkflow(one.runtime);
      const fired: string[] = [];
      for (const { runtime } of [one, two]) {
        const dispatcher = runtime.live.dispatcher;
        const original = dispatcher.timerFired.bind(dispatcher);
        dispatcher.timerFired = (workflowId, reason) => {
          fired.push(reason);
          return original(workflowId, reason);
        };
      }
      const at = new Date(Date.now() + 500);
      const reasons = Array.from({ length: 20 }, (_, i) => `timer ${i}`);
      await one.runtime.deps.db.timer.createMany({
        data: reasons.map((reason) => ({ workflow_id: id, fire_at: at, reason })),
      });
      one.runtime.live.timers.notify();
      two.runtime.live.timers.notify();
      await eventually(async () => (await one.runtime.deps.db.timer.count({ where: { status: 'pending' } })) === 0, {
        what: 'every timer to fire',
      });
      // Both schedulers finish the rounds they are in, so every fire they make is counted.
      await Promise.all([one.runtime.live.timers.stop(), two.runtime.live.timers.stop()]);
      expect([...fired].sort()).toEqual([...reasons].sort());
    } finally {
      await one.running.close();
      await two.running.close();
    }
  }, 20_000);
});
