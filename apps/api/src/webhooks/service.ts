import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  classifyDbError,
  isAnyOf,
  prepare,
  queryBuilder,
  rowDecoder,
  sql,
  type Db,
  type DbProvider,
  type Prepared,
  type Prisma,
  type SqlReader,
  type Webhook,
  type WebhookDelivery,
} from '@svc/db';
import {
  backoffMs,
  dueMoment,
  keepLeased,
  nudgeOnClusterEvents,
  outboxBatch,
  Poller,
  type OutboxBatch,
  type OutboxEvent,
} from '../outbox';
import type { ClusterBus } from '../cluster/bus';
import type { SecretKeyring } from '../secrets/keyring';
import { putWebhookSecret, webhookSecret } from './secret';
import { targetProblem } from './targets';
import { sendDelivery, type SendResult } from './sender';

export interface WebhookSettings {
  /** first retry delay; doubles per attempt, at most `retryMaxMs` */
  retryBaseMs: number;
  retryMaxMs?: number;
  /** a delivery is retried until this long after it was made (or redelivered) */
  retryHours: number;
  timeoutMs: number;
  allowPrivateTargets: boolean;
  /** how soon to look for deliveries another replica announced; idle, at most `idlePollMs` (default pollMs) */
  pollMs: number;
  idlePollMs?: number;
  leaseSeconds: number;
}

export interface WebhookServiceDeps {
  db: Db;
  provider: DbProvider;
  /** the outbox consumer's hot read (the subscribed hooks of every event's project) */
  reader: SqlReader;
  keyring: SecretKeyring;
  logger: Logger;
  replicaId: string;
  settings: WebhookSettings;
  /** other replicas' events nudge the delivery runner (absent: one process) */
  bus?: ClusterBus;
  userAgent?: string;
}

type LiveHook = Pick<Webhook, 'id' | 'project_id' | 'events' | 'created_at'>;

/** Requests one replica has open at once. */
const MAX_IN_FLIGHT = 16;

/** The JSON body of a delivery: the outbox event as it is documented in the OpenAPI `webhooks`. */
export const payloadOf = (event: OutboxEvent) =>
  JSON.stringify({
    id: event.id,
    type: event.type,
    created_at: event.created_at,
    project_id: event.project_id,
    workflow_id: event.workflow_id,
    data: event.data,
  });

/** Whether a webhook's event filter (a JSON array; empty: every type) takes this type. */
export const subscribes = (events: string, type: string) => {
  const list = JSON.parse(events) as string[];
  return list.length === 0 || list.includes(type);
};

/**
 * Outbound webhooks (issue 25, decision 0044). As the outbox consumer `webhooks` it turns each public
 * event into one delivery row per subscribed webhook (unique per webhook and event, so a re-run of the
 * consumer makes no second delivery). The delivery runner, on every replica, takes due deliveries with a
 * lease (compare-and-set on `locked_until`), POSTs them signed, logs each attempt, and retries failures
 * with exponential backoff until the delivery is `retryHours` old; then it is `failed`.
 */
export class WebhookService {
  private readonly poller: Poller;
  private readonly holder: string;
  private readonly stopNudges: () => void;
  private readonly inFlight = new Map<string, Promise<void>>();

  /** The active hooks of a batch's projects: one look-up per outbox batch, not per event. */
  private readonly liveHooks: Prepared<{ projectIds: readonly string[] }>;
  private readonly decodeHook: <R>(row: unknown) => R;
  /** The due deliveries not in flight here, oldest first (every pass, busy or idle, on the driver). */
  private readonly dueDeliveries: Prepared<{ inFlight: readonly string[]; now: Date; take: number }>;
  /** The earliest pending delivery (asked before the poller sleeps). */
  private readonly earliestPending: Prepared<Record<string, never>>;
  private readonly decodeDelivery: <R>(row: unknown) => R;

  constructor(private readonly deps: WebhookServiceDeps) {
    this.liveHooks = prepare(deps.provider, (arg) =>
      queryBuilder(deps.provider)
        .selectFrom('webhooks')
        .select(['id', 'project_id', 'events', 'created_at'])
        .where((eb) => isAnyOf(deps.provider, eb.ref('project_id'), arg('projectIds')))
        .where('deleted_at', 'is', null)
        .where('active', '=', true),
    );
    this.decodeHook = rowDecoder(deps.provider, 'webhooks');
    const q = queryBuilder(deps.provider);
    this.dueDeliveries = prepare(deps.provider, (arg) =>
      q
        .selectFrom('webhook_deliveries')
        .select(['id', 'locked_until'])
        .where((eb) => eb.not(isAnyOf(deps.provider, eb.ref('id'), arg('inFlight'))))
        .where('state', '=', 'pending')
        .where('next_attempt_at', '<=', arg('now'))
        .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', arg('now'))]))
        .orderBy('next_attempt_at')
        .limit(arg('take')),
    );
    this.earliestPending = prepare(deps.provider, () =>
      q
        .selectFrom('webhook_deliveries')
        .select(['next_attempt_at', 'locked_until'])
        .where('state', '=', 'pending')
        .orderBy('next_attempt_at')
        .limit(sql.lit(1)),
    );
    this.decodeDelivery = rowDecoder(deps.provider, 'webhook_deliveries');
    this.holder = `${deps.replicaId}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.poller = new Poller(
      () => this.pass(),
      () => this.nextDue(),
      deps.settings.pollMs,
      (err) => deps.logger.error({ err }, 'webhook delivery pass failed'),
      deps.settings.idlePollMs,
    );
    this.stopNudges = deps.bus ? nudgeOnClusterEvents(deps.bus, this.poller) : () => undefined;
  }

  start(): void {
    this.poller.start();
  }

  async stop(): Promise<void> {
    this.stopNudges();
    await this.poller.stop();
    await Promise.all(this.inFlight.values());
  }

  /**
   * Runs one attempt without holding up the pass (a slow receiver delays nobody else), its lease renewed
   * while the request runs, however long the receiver takes.
   */
  private begin(id: string): void {
    const { db, settings, logger } = this.deps;
    const stopRenewing = keepLeased(
      settings.leaseSeconds,
      () =>
        db.webhookDelivery.updateMany({
          where: { id, locked_by: this.holder },
          data: { locked_until: new Date(Date.now() + settings.leaseSeconds * 1000) },
        }),
      (err) => logger.warn({ err }, 'webhook lease renewal failed'),
    );
    const work = this.attempt(id)
      .catch((err: unknown) => logger.error({ err, delivery_id: id }, 'webhook delivery attempt failed'))
      .finally(() => {
        stopRenewing();
        this.inFlight.delete(id);
        this.kick();
      });
    this.inFlight.set(id, work);
  }

  kick(): void {
    this.poller.kick();
  }

  /** Stores (or replaces) a webhook's secret in the caller's transaction. */
  storeSecret(tx: Prisma.TransactionClient, hook: { id: string; project_id: string }, value: string, actorId: string) {
    return putWebhookSecret(tx, this.deps.keyring, hook, value, actorId);
  }

  /** The active hooks of the events' projects, by project. */
  private async hooksOf(events: readonly OutboxEvent[]): Promise<Map<string, LiveHook[]>> {
    const projectIds = [...new Set(events.map((event) => event.project_id))];
    const rows = await this.deps.reader.rows(this.liveHooks.bind({ projectIds }));
    const byProject = new Map<string, LiveHook[]>();
    for (const row of rows) {
      const hook = this.decodeHook<LiveHook>(row);
      byProject.set(hook.project_id, [...(byProject.get(hook.project_id) ?? []), hook]);
    }
    return byProject;
  }

  /** Whether (and why not) a URL may be a target under this server's settings. */
  targetProblem(url: string): string | null {
    return targetProblem(url, this.deps.settings.allowPrivateTargets);
  }

  /**
   * The outbox consumer: one delivery per subscribed webhook of the event's project that was made before
   * the event (idempotent). The hooks of all the batch's projects are read once.
   */
  async enqueue(event: OutboxEvent, batch: OutboxBatch = outboxBatch([event])): Promise<void> {
    const { db, settings } = this.deps;
    const createdAt = new Date(event.created_at);
    const hooks = (await batch.shared('webhooks', (events) => this.hooksOf(events))).get(event.project_id) ?? [];
    const now = new Date();
    let made = 0;
    for (const hook of hooks) {
      if (hook.created_at > createdAt || !subscribes(hook.events, event.type)) continue;
      try {
        await db.webhookDelivery.create({
          data: {
            webhook_id: hook.id,
            event_id: event.id,
            event_type: event.type,
            payload: payloadOf(event),
            next_attempt_at: now,
            expires_at: new Date(now.getTime() + settings.retryHours * 3_600_000),
          },
        });
        made++;
      } catch (error) {
        // Made by an earlier run of this consumer for the same event.
        if (classifyDbError(error) !== 'conflict') throw error;
      }
    }
    if (made > 0) this.kick();
  }

  /**
   * Asks for a delivery again (a member, from the API or the web app): it goes back to `pending`, due now,
   * with a fresh retry window; its later attempts are marked redeliveries. The body is the same bytes.
   */
  async redeliver(deliveryId: string): Promise<WebhookDelivery> {
    const { db, settings } = this.deps;
    const now = new Date();
    const row = await db.webhookDelivery.update({
      where: { id: deliveryId },
      data: {
        state: 'pending',
        next_attempt_at: now,
        expires_at: new Date(now.getTime() + settings.retryHours * 3_600_000),
        redelivered_at: now,
        locked_by: null,
        locked_until: null,
        updated_at: now,
      },
    });
    this.kick();
    return row;
  }

  private async pass(): Promise<void> {
    while (await this.passOnce()) {
      /* until nothing is due */
    }
  }

  /** When the earliest pending delivery is due (or its lease runs out). */
  private async nextDue(): Promise<Date | null> {
    const raw = await this.deps.reader.row(this.earliestPending.bind({}));
    if (!raw) return null;
    const next = this.decodeDelivery<Pick<WebhookDelivery, 'next_attempt_at' | 'locked_until'>>(raw);
    return dueMoment(next.next_attempt_at, next.locked_until);
  }

  private async passOnce(): Promise<boolean> {
    const { db, settings } = this.deps;
    const now = new Date();
    const room = MAX_IN_FLIGHT - this.inFlight.size;
    if (room <= 0) return false;
    const due = (
      await this.deps.reader.rows(this.dueDeliveries.bind({ inFlight: [...this.inFlight.keys()], now, take: room }))
    ).map((raw) => this.decodeDelivery<Pick<WebhookDelivery, 'id' | 'locked_until'>>(raw));
    if (due.length === 0) return false;
    let started = 0;
    for (const row of due) {
      const { count } = await db.webhookDelivery.updateMany({
        where: { id: row.id, state: 'pending', locked_until: row.locked_until },
        data: {
          locked_by: this.holder,
          locked_until: new Date(Date.now() + settings.leaseSeconds * 1000),
          attempts: { increment: 1 },
          updated_at: new Date(),
        },
      });
      if (count === 1) {
        this.begin(row.id);
        started++;
      }
    }
    // Nothing taken (others were faster): the pass ends; the next one comes with a kick or the poll.
    if (started === 0) return false;
    return true;
  }

  /** One attempt of a delivery this replica holds: send, log, then delivered, retried later or failed. */
  private async attempt(id: string): Promise<void> {
    const { db, settings, logger } = this.deps;
    const delivery = await db.webhookDelivery.findUnique({ where: { id } });
    if (!delivery || delivery.locked_by !== this.holder) return;
    const hook = await db.webhook.findUnique({ where: { id: delivery.webhook_id } });
    const gone = !hook || hook.deleted_at !== null;
    const result = gone ? refusedResult('the webhook was deleted') : await this.send(hook, delivery);
    const now = new Date();
    const { ok, state, retryAt } = outcomeOf(result, delivery, gone, settings, now);
    await db.$transaction([
      db.webhookAttempt.create({
        data: {
          delivery_id: delivery.id,
          attempt: delivery.attempts,
          status_code: result.statusCode,
          duration_ms: result.durationMs,
          response_excerpt: result.responseExcerpt,
          error: result.error,
          redelivery: delivery.redelivered_at !== null,
          at: now,
        },
      }),
      db.webhookDelivery.updateMany({
        where: { id: delivery.id, locked_by: this.holder },
        data: {
          state,
          next_attempt_at: state === 'pending' ? retryAt : delivery.next_attempt_at,
          last_status_code: result.statusCode,
          last_error: ok ? null : (result.error ?? `answered ${result.statusCode}`),
          delivered_at: ok ? now : delivery.delivered_at,
          locked_by: null,
          locked_until: null,
          updated_at: now,
        },
      }),
    ]);
    logger.info(
      { delivery_id: delivery.id, webhook_id: delivery.webhook_id, status: result.statusCode, state },
      'webhook delivery attempt',
    );
  }

  private async send(hook: Webhook, delivery: WebhookDelivery): Promise<SendResult> {
    const { db, keyring, settings, logger } = this.deps;
    const secret = await webhookSecret(db, keyring, hook).catch((err: unknown) => {
      logger.error({ err, webhook_id: hook.id }, 'webhook secret does not open');
      return null;
    });
    if (secret === null) return refusedResult('the webhook secret is missing');
    return sendDelivery(
      {
        url: hook.url,
        secret,
        webhookId: hook.id,
        deliveryId: delivery.id,
        event: delivery.event_type,
        body: delivery.payload,
        userAgent: this.deps.userAgent ?? 'svc-webhooks',
      },
      { timeoutMs: settings.timeoutMs, allowPrivate: settings.allowPrivateTargets },
    );
  }
}

/** After an attempt: delivered (2xx), pending again (retry at backoff) or failed (past its window, or no webhook). */
function outcomeOf(result: SendResult, delivery: WebhookDelivery, gone: boolean, settings: WebhookSettings, now: Date) {
  const ok = result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300;
  const retryAt = new Date(
    now.getTime() + backoffMs(delivery.attempts, settings.retryBaseMs, settings.retryMaxMs ?? 3_600_000),
  );
  const state = ok ? 'delivered' : gone || retryAt > delivery.expires_at ? 'failed' : 'pending';
  return { ok, state, retryAt };
}

const refusedResult = (error: string): SendResult => ({ statusCode: null, durationMs: 0, responseExcerpt: '', error });
