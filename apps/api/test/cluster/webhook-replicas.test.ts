import type { DbHandle } from '@svc/db';
import { startWebhookReceiver, type WebhookReceiver } from '@svc/test-kit';
import { CLUSTER_TIMEOUT_MS, createWorkflow, eventually, openDb, startCluster, type Cluster } from './cluster';

/**
 * Outbound webhooks on two real API replicas (PostgreSQL) and a real HTTP receiver: every run event is
 * acknowledged once, through one delivery, although both replicas run the outbox and the delivery runner,
 * and although the replica holding a delivery is killed (SIGKILL) while the receiver holds its request.
 */
describe('webhooks across replicas', () => {
  let cluster: Cluster | undefined;
  let db: DbHandle | undefined;
  let receiver: WebhookReceiver | undefined;

  afterEach(async () => {
    await receiver?.close();
    await db?.close();
    await cluster?.close();
  }, CLUSTER_TIMEOUT_MS);

  it(
    'one delivery per event across replicas; a killed replica’s delivery is taken over when its lease ends',
    async () => {
      cluster = await startCluster({
        WEBHOOK_ALLOW_PRIVATE_TARGETS: 'true',
        WEBHOOK_RETRY_BASE_MS: '50',
        OUTBOX_POLL_MS: '100',
        OUTBOX_LEASE_SECONDS: '2',
      });
      db = await openDb(cluster);
      const { a, b } = cluster;
      // The first request is held open (never answered) until its sender is killed; the rest get 200.
      let held = false;
      receiver = await startWebhookReceiver(() => {
        if (held) return 200;
        held = true;
        return 'hold';
      });
      const hook = await cluster.aliceOn(a).json<{
        id: string;
        secret: string;
      }>(`/projects/${cluster.projectId}/webhooks`, { json: { url: receiver.url, events: ['run.created'] } });
      receiver.secret = hook.secret;

      const first = await createWorkflow(cluster.aliceOn(a), cluster.projectId, 'held');
      const holding = await receiver.next((d) => d.json.workflow_id === first);
      const row = await db.db.webhookDelivery.findUniqueOrThrow({ where: { id: holding.deliveryId } });
      const holder = row.locked_by!.startsWith('replica-1:') ? a : b;
      const survivor = holder === a ? b : a;
      await holder.stop('SIGKILL');

      // More runs through the survivor while the killed replica's lease runs out.
      const more: string[] = [];
      for (let i = 0; i < 5; i++)
        more.push(await createWorkflow(cluster.aliceOn(survivor), cluster.projectId, `r${i}`));
      const all = [first, ...more];
      await eventually(() => all.every((id) => receiver!.acknowledged().some((d) => d.json.workflow_id === id)));
      const delivered = await eventually(async () => {
        const rows = await db!.db.webhookDelivery.findMany({ where: { webhook_id: hook.id } });
        return rows.length === all.length && rows.every((r) => r.state === 'delivered') && rows;
      });

      // Each event: one delivery row, acknowledged exactly once, every request signed.
      const acked = receiver.acknowledged();
      expect(acked.map((d) => d.json.workflow_id).sort()).toEqual([...all].sort());
      expect(new Set(acked.map((d) => d.deliveryId)).size).toBe(all.length);
      expect(receiver.received.every((d) => d.signatureValid)).toBe(true);
      // The held one was sent twice (the killed replica's attempt, then the survivor's), as one delivery.
      const again = receiver.received.filter((d) => d.deliveryId === holding.deliveryId);
      expect(again.map((d) => d.answered)).toEqual([null, 200]);
      expect(delivered.find((r) => r.id === holding.deliveryId)!.attempts).toBe(2);
      const outboxClaims = await db.db.outboxClaim.findMany({ where: { consumer: 'webhooks' } });
      expect(outboxClaims.filter((c) => c.state !== 'done')).toEqual([]);
    },
    CLUSTER_TIMEOUT_MS,
  );
});
