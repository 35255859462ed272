import type { DbHandle } from '@svc/db';
import {
  CLUSTER_TIMEOUT_MS,
  createWorkflow,
  keepBeating,
  logEntry,
  openDb,
  receivedSeqs,
  receivedUpTo,
  snapshot,
  startCluster,
  subscribeBrowser,
  type Cluster,
} from './cluster';
import { storedStream } from '../support/events';

/** One replica dies (SIGKILL): the other goes on with its workers, browsers and timers. */
describe('losing an API replica', () => {
  let cluster: Cluster | undefined;
  let db: DbHandle | undefined;

  afterEach(async () => {
    await db?.close();
    await cluster?.close();
  }, CLUSTER_TIMEOUT_MS);

  it(
    'a worker of the killed replica goes on through the other: no acknowledged update lost, no event twice',
    async () => {
      cluster = await startCluster();
      db = await openDb(cluster);
      const { a, b } = cluster;
      const before = await cluster.worker(a, 'survivor');
      const id = await createWorkflow(cluster.aliceOn(b), cluster.projectId);
      const { last_seq: last } = await before.dispatch(id, 'start');
      const stopBefore = keepBeating(before, () => [id]);
      const onB = await subscribeBrowser(b, cluster.alice, id);
      const onA = await subscribeBrowser(a, cluster.alice, id);
      for (let seq = last + 1; seq <= last + 10; seq++)
        expect(await before.store(id, seq, logEntry(`before ${seq}`))).toMatchObject({ type: 'ack' });
      // Sent, maybe stored, never acknowledged: the worker sends them again after reconnecting.
      before.update(id, last + 11, logEntry('in flight 11'));
      before.update(id, last + 12, logEntry('in flight 12'));
      await a.stop('SIGKILL');
      stopBefore();
      before.close();

      // The worker reconnects to the surviving replica (as through a load balancer) and resends its outbox.
      const after = await cluster.worker(b, 'survivor');
      const stopAfter = keepBeating(after, () => [id]);
      for (let seq = last + 11; seq <= last + 20; seq++)
        expect(await after.store(id, seq, logEntry(`after ${seq}`))).toMatchObject({ type: 'ack' });
      expect(await after.store(id, last + 21, { kind: 'status', data: { status: 'completed' } })).toMatchObject({
        type: 'ack',
      });
      stopAfter();

      const stored = await db.db.workerUpdate.findMany({ where: { workflow_id: id }, orderBy: { seq: 'asc' } });
      expect(stored.map((u) => u.seq)).toEqual(Array.from({ length: 21 }, (_, i) => last + i + 1));
      const { last_event_seq: lastEvent, status } = await db.db.workflow.findUniqueOrThrow({ where: { id } });
      expect(status).toBe('completed');
      const events = await storedStream(db.db, db.provider, id);
      expect(events.map((e) => e.seq)).toEqual(Array.from({ length: lastEvent }, (_, i) => i + 1));

      // The browser on B saw every event live, once and in order.
      await receivedUpTo(onB.inbox, id, lastEvent);
      const fromB = onB.subscribed.last_seq as number;
      expect(receivedSeqs(onB.inbox, id)).toEqual(Array.from({ length: lastEvent - fromB }, (_, i) => fromB + i + 1));
      // The browser on A lost its socket; it reconnects to B with since_seq and the stream has no gap.
      await onA.inbox.whenClosed();
      const seenOnA = receivedSeqs(onA.inbox, id);
      const resumeFrom = seenOnA.at(-1) ?? (onA.subscribed.last_seq as number);
      const again = await subscribeBrowser(b, cluster.alice, id, resumeFrom);
      await receivedUpTo(again.inbox, id, lastEvent);
      const fromA = onA.subscribed.last_seq as number;
      expect([...seenOnA, ...receivedSeqs(again.inbox, id)]).toEqual(
        Array.from({ length: lastEvent - fromA }, (_, i) => fromA + i + 1),
      );
      onB.close();
      again.close();
    },
    CLUSTER_TIMEOUT_MS,
  );

  it(
    'a timer due while its replica is dead fires once, on the other replica',
    async () => {
      cluster = await startCluster({ LOG_LEVEL: 'info' });
      db = await openDb(cluster);
      const { a, b } = cluster;
      const worker = await cluster.worker(b, 'sleeper');
      const stop = keepBeating(worker, () => []);
      const id = await createWorkflow(cluster.aliceOn(b), cluster.projectId);
      const { last_seq: last } = await worker.dispatch(id, 'start');
      await worker.store(id, last + 1, snapshot('executing', 0, ['running', 'pending']));
      await cluster
        .aliceOn(a)
        .json(`/workflows/${id}/timers`, { json: { seconds: 3, reason: 'wake after the outage' } });
      await a.stop('SIGKILL');
      await worker.store(id, last + 2, { kind: 'status', data: { status: 'pending' } });
      expect(await worker.dispatch(id, 'resume')).toMatchObject({ message: 'wake after the outage' });
      const timers = await db.db.timer.findMany({ where: { workflow_id: id } });
      expect(timers.map((t) => t.status)).toEqual(['fired']);
      expect(b.process.output).toContain('"msg":"timer fired"');
      expect(worker.inbox.ofType('dispatch').filter((d) => d.workflow_id === id && d.action === 'resume')).toHaveLength(
        1,
      );
      stop();
    },
    CLUSTER_TIMEOUT_MS,
  );
});
