import type { TestWorker } from '@svc/test-kit';
import { TEST_PROVIDERS } from '../support/server';
import { workerSuite } from '../ws/clients';

describe.each(TEST_PROVIDERS)('worker heartbeats on %s', (provider) => {
  // A long offline limit: the liveness sweep's own writes (a sixth of it apart) stay out of these tests.
  const suite = workerSuite(provider, { WORKER_OFFLINE_AFTER_SECONDS: '600' });
  const row = (id: string) => suite.server.deps.db.worker.findUniqueOrThrow({ where: { id } });

  /** Sends a heartbeat and returns once the server has handled it (the error of a later bad frame follows it). */
  async function heartbeat(worker: TestWorker): Promise<void> {
    const before = worker.inbox.messages.length;
    worker.send({ type: 'heartbeat', active_workflows: [] });
    worker.send({ type: 'no_such_message' });
    await worker.inbox.next((m) => m.type === 'error' && worker.inbox.messages.indexOf(m) >= before);
    await suite.server.runtime.live.background.settle();
  }

  it('keeps heartbeats in memory and writes every due row in one statement', async () => {
    const { registry } = suite.server.runtime.live;
    const [first, second] = [await suite.start('beat-1'), await suite.start('beat-2')];
    const workers = [first, second];
    const registered = await Promise.all(workers.map(async (w) => (await row(w.id)).last_seen_at));
    for (const worker of workers) await heartbeat(worker);

    // No write per heartbeat: the rows still say when the workers registered.
    for (const [i, worker] of workers.entries()) expect((await row(worker.id)).last_seen_at).toEqual(registered[i]);
    // Not due before the interval has passed since the rows were written.
    expect(await registry.persistHeartbeats(60 * 60 * 1000)).toBe(0);

    // Another replica took one for silent meanwhile: the write says online, held here, again.
    await suite.server.deps.db.worker.update({
      where: { id: first.id },
      data: { status: 'offline', replica_id: null },
    });
    expect(await registry.persistHeartbeats(0)).toBe(2);
    for (const [i, worker] of workers.entries()) {
      const written = await row(worker.id);
      expect(written.last_seen_at.getTime()).toBeGreaterThan(registered[i]!.getTime());
      expect(written).toMatchObject({ status: 'online', replica_id: suite.server.runtime.live.bus.replicaId });
    }
    // Nothing heard since: nothing to write.
    expect(await registry.persistHeartbeats(0)).toBe(0);
    await heartbeat(second);
    expect(await registry.persistHeartbeats(0)).toBe(1);
  });

  it('counts a worker silent by its last heartbeat, not by its row', async () => {
    const { registry } = suite.server.runtime.live;
    const worker = await suite.start('beat-silent');
    await heartbeat(worker);
    const heard = Date.now();
    const offlineAfterMs = suite.server.deps.config.workers.offlineAfterSeconds * 1000;
    // Its row is old (not written since registration), yet it is silent only once the limit has passed
    // since its heartbeat.
    await suite.server.deps.db.worker.update({
      where: { id: worker.id },
      data: { last_seen_at: new Date(heard - 10 * offlineAfterMs) },
    });
    expect(registry.silent(offlineAfterMs, heard).map((s) => s.workerId)).not.toContain(worker.id);
    expect(registry.silent(offlineAfterMs, heard + offlineAfterMs + 1).map((s) => s.workerId)).toContain(worker.id);
    // A replica reading rows does not mark a worker connected here offline.
    expect(await registry.markSilentOffline(offlineAfterMs)).not.toContain(worker.id);
    expect((await row(worker.id)).status).toBe('online');
  });
});
