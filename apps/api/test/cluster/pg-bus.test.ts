import { Client } from 'pg';
import pino from 'pino';
import { createTestDatabase, type TestDatabase } from '@svc/db/testing';
import { PgBus } from '../../src/cluster/pg-bus';
import type { ClusterMessage } from '../../src/cluster/messages';
import { ClusterFanout } from '../../src/events/cluster-fanout';
import { EngineBus } from '../../src/engine/bus';
import { forgetStaleRuns, type WorkflowEngine } from '../../src/engine';
import type { StoredEvent } from '../../src/events/types';
import { eventually } from '@svc/test-kit';

const storedEvent = (workflowId: string, projectId: string, seq: number): StoredEvent => ({
  type: 'log_entry',
  workflow_id: workflowId,
  project_id: projectId,
  seq,
  ts: new Date(0).toISOString(),
  data: {},
});

/** Collects what a bus hears; `next` waits for the n-th message. */
function listen(bus: PgBus) {
  const heard: ClusterMessage[] = [];
  const waiters: { count: number; resolve: () => void }[] = [];
  bus.subscribe((message) => {
    heard.push(message);
    for (const waiter of waiters.filter((w) => heard.length >= w.count)) waiter.resolve();
  });
  return {
    heard,
    until: (count: number) =>
      heard.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve })),
  };
}

describe('the PostgreSQL cluster bus', () => {
  let database: TestDatabase;
  let one: PgBus;
  let two: PgBus;
  const logger = pino({ level: 'silent' });

  beforeAll(async () => {
    database = await createTestDatabase('postgresql', { migrate: false });
    one = await PgBus.connect(database.url, 'one', logger);
    two = await PgBus.connect(database.url, 'two', logger);
  });

  afterAll(async () => {
    await one?.close();
    await two?.close();
    await database?.drop();
  });

  it('reaches the other replicas, never the sender, in publish order and in NOTIFY-sized payloads', async () => {
    const atTwo = listen(two);
    const atOne = listen(one);
    // Far more than one 8000-byte NOTIFY holds.
    const ids = Array.from({ length: 400 }, (_, i) => `workflow-${i}-${'x'.repeat(40)}`);
    for (const id of ids) one.publish({ type: 'forget', workflow_ids: [id] });
    await atTwo.until(ids.length);
    expect(atTwo.heard.map((m) => (m.type === 'forget' ? m.workflow_ids[0] : null))).toEqual(ids);
    await one.flush();
    two.publish({ type: 'wake' });
    await atOne.until(1);
    expect(atOne.heard).toEqual([{ type: 'wake' }]);
  });

  it("announces one batch of many runs' events to the other replicas whole, in messages that fit a payload", async () => {
    const fanout = new ClusterFanout(one, async () => [], logger);
    try {
      const atTwo = listen(two);
      const runs = Array.from({ length: 300 }, (_, i) => `cmworkflow${String(i).padStart(15, '0')}`);
      fanout.publish(
        runs.flatMap((id, i) => [1, 2].map((seq) => storedEvent(id, `cmproject${String(i).padStart(16, '0')}`, seq))),
      );
      await one.flush();
      const announced = () =>
        atTwo.heard.flatMap((m) => (m.type === 'events' ? m.hints.map((h) => [h.workflow_id, h.from, h.to]) : []));
      await eventually(() => announced().length === runs.length);
      expect(announced()).toEqual(runs.map((id) => [id, 1, 2]));
    } finally {
      fanout.close();
    }
  });

  it('tells the other replicas to forget every run of a large hand-back, in messages that fit a payload', async () => {
    const engineBus = new EngineBus();
    const forgotten: string[] = [];
    const engine = { on: engineBus.on.bind(engineBus) } as unknown as WorkflowEngine;
    const stopOne = forgetStaleRuns(engine, one, () => undefined);
    const stopTwo = forgetStaleRuns({ on: () => () => undefined } as unknown as WorkflowEngine, two, (ids) =>
      forgotten.push(...ids),
    );
    try {
      const runs = Array.from({ length: 700 }, (_, i) => `cmworkflow${String(i).padStart(15, '0')}`);
      engineBus.emit('stale', { workflowIds: runs });
      await one.flush();
      await eventually(() => forgotten.length === runs.length);
      expect(forgotten).toEqual(runs);
    } finally {
      stopOne();
      stopTwo();
    }
  });

  it('reconnects after losing its connection, resyncs, and delivers what was published meanwhile', async () => {
    const resynced = new Promise<void>((resolve) => two.onResync(resolve));
    const atTwo = listen(two);
    const admin = new Client({ connectionString: database.url });
    await admin.connect();
    try {
      // Cuts every bus connection of the database (both replicas' LISTEN sessions).
      await admin.query(
        `SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND pid <> pg_backend_pid()`,
      );
    } finally {
      await admin.end();
    }
    await resynced;
    one.publish({ type: 'timers' });
    await atTwo.until(1);
    expect(atTwo.heard).toEqual([{ type: 'timers' }]);
  });
});
