import type { Db } from '@svc/db';

/** How often one replica prunes (its forge sweep runs more often; a prune is only due this long after its last). */
export const DELIVERY_LOG_PRUNE_INTERVAL_MS = 60 * 60_000;

/** Rows removed per statement: a large backlog is deleted in bounded steps, not one huge statement. */
const BATCH = 500;

const DAY_MS = 24 * 60 * 60_000;

export interface PrunedCounts {
  outboxClaims: number;
  outboxEvents: number;
  webhookDeliveries: number;
  webhookAttempts: number;
  forgeDeliveries: number;
}

/**
 * Deletes the delivery logs older than `retentionDays` (WEBHOOK_LOG_RETENTION_DAYS, decision 0048):
 * outbox claims done (delivered) since before then, outbox events with no claim left, webhook deliveries
 * that ended (`delivered`, `failed`) and were not touched since then with their attempts, and forge
 * deliveries received before then. Pending and dead claims and pending deliveries are kept whatever their
 * age. Idempotent: replicas may run it at the same time; a row deleted twice is deleted once.
 */
export async function pruneDeliveryLogs(db: Db, retentionDays: number, now = new Date()): Promise<PrunedCounts> {
  const cutoff = new Date(now.getTime() - retentionDays * DAY_MS);
  const outboxClaims = (await db.outboxClaim.deleteMany({ where: { state: 'done', updated_at: { lt: cutoff } } }))
    .count;
  const outboxEvents = await pruneOutboxEvents(db, cutoff);
  const webhooks = await pruneWebhookDeliveries(db, cutoff);
  const forgeDeliveries = (await db.forgeDelivery.deleteMany({ where: { received_at: { lt: cutoff } } })).count;
  return { outboxClaims, outboxEvents, ...webhooks, forgeDeliveries };
}

/** Events written before the cut-off whose claims are all gone (every consumer's was delivered and pruned). */
async function pruneOutboxEvents(db: Db, cutoff: Date): Promise<number> {
  let deleted = 0;
  let after: string | undefined;
  for (;;) {
    const old = await db.outboxEvent.findMany({
      where: { created_at: { lt: cutoff }, ...(after === undefined ? {} : { id: { gt: after } }) },
      orderBy: { id: 'asc' },
      take: BATCH,
      select: { id: true },
    });
    if (old.length === 0) return deleted;
    after = old.at(-1)!.id;
    const ids = old.map((row) => row.id);
    const claimed = await db.outboxClaim.findMany({
      where: { event_id: { in: ids } },
      distinct: ['event_id'],
      select: { event_id: true },
    });
    const kept = new Set(claimed.map((row) => row.event_id));
    const gone = ids.filter((id) => !kept.has(id));
    if (gone.length > 0) deleted += (await db.outboxEvent.deleteMany({ where: { id: { in: gone } } })).count;
  }
}

/** Ended deliveries not touched since the cut-off, their attempts first. */
async function pruneWebhookDeliveries(db: Db, cutoff: Date) {
  let webhookDeliveries = 0;
  let webhookAttempts = 0;
  for (;;) {
    const ended = await db.webhookDelivery.findMany({
      where: { state: { in: ['delivered', 'failed'] }, updated_at: { lt: cutoff } },
      take: BATCH,
      select: { id: true },
    });
    if (ended.length === 0) return { webhookDeliveries, webhookAttempts };
    const ids = ended.map((row) => row.id);
    webhookAttempts += (await db.webhookAttempt.deleteMany({ where: { delivery_id: { in: ids } } })).count;
    webhookDeliveries += (await db.webhookDelivery.deleteMany({ where: { id: { in: ids } } })).count;
  }
}
