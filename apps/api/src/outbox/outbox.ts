import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import { encodeParameter, type Db, type DbProvider } from '@svc/db';
import type { TableRows } from '../events/event-sql';
import type { NewEvent, StoredEvent, WorkflowRef } from '../events/types';
import { outboxEventOf } from './map';
import { backoffMs, keepLeased, Poller } from './poller';
import type { OutboxEvent, OutboxEventType, OutboxHandler } from './types';

export interface OutboxSettings {
  /** how often to look for work written by other replicas */
  pollMs: number;
  /** how long a claim is held */
  leaseSeconds: number;
  /** first retry delay; doubles per attempt */
  retryBaseMs: number;
  /** the longest retry delay */
  retryMaxMs?: number;
  /** attempts before a consumer's event is given up (state `dead`) */
  maxAttempts?: number;
  /** events handled per consumer and pass */
  batch?: number;
}

export interface OutboxDeps {
  db: Db;
  provider: DbProvider;
  logger: Logger;
  /** this replica (the lease holder's name) */
  replicaId: string;
  /** PUBLIC_URL (read when an event is handed out): the run's links in the events */
  publicUrl: () => string;
  settings: OutboxSettings;
}

type Group = { workflow: WorkflowRef; events: readonly NewEvent[] };

/**
 * The durable outbox of public run events (issue 25, decision 0044). The event store asks it, for every
 * append, which outbox rows commit with the workflow events (`rowsFor`): one `outbox_events` row per public
 * event and one `outbox_claims` row per registered consumer, in the same transaction. A dispatcher on every
 * replica then claims due rows (a lease: compare-and-set on `locked_until`, so one replica at a time holds
 * a (consumer, event)), runs the consumer's handler, and marks the row done, or schedules a retry with
 * exponential backoff. A replica that dies holding a lease leaves it to expire; another takes it then.
 */
export class Outbox {
  private readonly consumers = new Map<string, OutboxHandler>();
  private readonly poller: Poller;
  private readonly holder: string;
  private readonly logger: Logger;

  constructor(private readonly deps: OutboxDeps) {
    this.logger = deps.logger.child({ component: 'outbox' });
    this.holder = `${deps.replicaId}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.poller = new Poller(
      () => this.pass(),
      deps.settings.pollMs,
      (err) => this.logger.error({ err }, 'outbox pass failed'),
    );
  }

  /**
   * Registers a consumer (at start-up, before events are written): every event written from then on gets
   * a claim row for it. The handler must be idempotent (key on `event.id`).
   */
  register(consumer: string, handle: OutboxHandler): void {
    if (!/^[a-z][a-z0-9_.-]{0,63}$/.test(consumer)) throw new Error(`outbox consumer name ${consumer}`);
    if (this.consumers.has(consumer)) throw new Error(`outbox consumer ${consumer} is registered twice`);
    this.consumers.set(consumer, handle);
  }

  /** The registered consumers' names. */
  consumerNames(): string[] {
    return [...this.consumers.keys()];
  }

  /** The rows the event store writes with an append (none when no event is public or no consumer is registered). */
  rowsFor(groups: readonly Group[], at: Date): TableRows[] {
    if (this.consumers.size === 0) return [];
    const events: { id: string; type: OutboxEventType; project_id: string; workflow_id: string; data: string }[] = [];
    for (const { workflow, events: appended } of groups)
      for (const event of appended) {
        const mapped = outboxEventOf(event);
        if (mapped)
          events.push({
            id: randomUUID(),
            type: mapped.type,
            project_id: workflow.project_id,
            workflow_id: workflow.id,
            data: JSON.stringify(mapped.data),
          });
      }
    if (events.length === 0) return [];
    const stamp = encodeParameter(this.deps.provider, at);
    const claims = events.flatMap((event) =>
      [...this.consumers.keys()].map((consumer) => ({
        consumer,
        event_id: event.id,
        state: 'pending',
        attempts: 0,
        available_at: stamp,
        updated_at: stamp,
      })),
    );
    const eventRows: TableRows<'outbox_events'> = {
      table: 'outbox_events',
      columns: ['id', 'type', 'project_id', 'workflow_id', 'data', 'created_at'],
      rows: events,
    };
    const claimRows: TableRows<'outbox_claims'> = {
      table: 'outbox_claims',
      columns: ['consumer', 'event_id', 'state', 'attempts', 'available_at', 'updated_at', 'created_at'],
      rows: claims,
    };
    return [eventRows, claimRows] as TableRows[];
  }

  /** After a commit: wake the dispatcher when a public event was among the appended ones. */
  committed(stored: readonly StoredEvent[]): void {
    if (this.consumers.size > 0 && stored.some((event) => outboxEventOf(event) !== null)) this.poller.kick();
  }

  /** Wakes the dispatcher (e.g. after a retry was requested). */
  kick(): void {
    this.poller.kick();
  }

  start(): void {
    if (this.consumers.size > 0) this.poller.start();
  }

  stop(): Promise<void> {
    return this.poller.stop();
  }

  /** One pass over every consumer: handles what is due; returns the next due moment it knows of. */
  private async pass(): Promise<Date | null> {
    let next: Date | null = null;
    for (const [consumer, handle] of this.consumers) {
      for (;;) {
        const handled = await this.passOf(consumer, handle);
        if (!handled) break;
      }
      const due = await this.deps.db.outboxClaim.findFirst({
        where: { consumer, state: 'pending' },
        orderBy: { available_at: 'asc' },
        select: { available_at: true, locked_until: true },
      });
      if (due) {
        const at = due.locked_until && due.locked_until > due.available_at ? due.locked_until : due.available_at;
        if (!next || at < next) next = at;
      }
    }
    return next;
  }

  /** Claims and handles one batch of a consumer's due events; false when none was due. */
  private async passOf(consumer: string, handle: OutboxHandler): Promise<boolean> {
    const { db, settings } = this.deps;
    const now = new Date();
    const due = await db.outboxClaim.findMany({
      where: {
        consumer,
        state: 'pending',
        available_at: { lte: now },
        OR: [{ locked_until: null }, { locked_until: { lt: now } }],
      },
      orderBy: { available_at: 'asc' },
      take: settings.batch ?? 20,
      select: { event_id: true, locked_until: true },
    });
    if (due.length === 0) return false;
    for (const row of due) {
      const lease = new Date(Date.now() + settings.leaseSeconds * 1000);
      // Compare-and-set on the lease seen: of two replicas racing for it, one updates the row.
      const { count } = await db.outboxClaim.updateMany({
        where: { consumer, event_id: row.event_id, state: 'pending', locked_until: row.locked_until },
        data: { locked_by: this.holder, locked_until: lease, attempts: { increment: 1 }, updated_at: new Date() },
      });
      if (count === 1) await this.handleClaimed(consumer, handle, row.event_id);
    }
    return true;
  }

  private async handleClaimed(consumer: string, handle: OutboxHandler, eventId: string): Promise<void> {
    const { db, settings } = this.deps;
    const mine = { consumer, event_id: eventId, locked_by: this.holder };
    const stopRenewing = keepLeased(
      settings.leaseSeconds,
      () =>
        db.outboxClaim.updateMany({
          where: mine,
          data: { locked_until: new Date(Date.now() + settings.leaseSeconds * 1000) },
        }),
      (err) => this.logger.warn({ err }, 'outbox lease renewal failed'),
    );
    try {
      const event = await this.load(eventId);
      if (event) await handle(event);
      await db.outboxClaim.updateMany({
        where: mine,
        data: { state: 'done', locked_by: null, locked_until: null, last_error: null, updated_at: new Date() },
      });
    } catch (err) {
      const row = await db.outboxClaim.findUnique({
        where: { consumer_event_id: { consumer, event_id: eventId } },
        select: { attempts: true },
      });
      const attempts = row?.attempts ?? 1;
      const dead = attempts >= (settings.maxAttempts ?? 25);
      const delay = backoffMs(attempts, settings.retryBaseMs, settings.retryMaxMs ?? 600_000);
      this.logger.warn({ err, consumer, event_id: eventId, attempts, dead }, 'outbox consumer failed');
      await db.outboxClaim.updateMany({
        where: mine,
        data: {
          state: dead ? 'dead' : 'pending',
          available_at: new Date(Date.now() + delay),
          locked_by: null,
          locked_until: null,
          last_error: String((err as Error)?.message ?? err).slice(0, 1000),
          updated_at: new Date(),
        },
      });
    } finally {
      stopRenewing();
    }
  }

  /** The event as consumers get it, with the run's title, number, status and links. */
  async load(eventId: string): Promise<OutboxEvent | null> {
    const { db } = this.deps;
    const publicUrl = this.deps.publicUrl();
    const row = await db.outboxEvent.findUnique({ where: { id: eventId } });
    if (!row) return null;
    const run = await db.workflow.findUnique({
      where: { id: row.workflow_id },
      select: { title: true, number: true, status: true },
    });
    const runUrl = `${publicUrl}/projects/${row.project_id}/workflows/${row.workflow_id}`;
    return {
      id: row.id,
      type: row.type as OutboxEventType,
      project_id: row.project_id,
      workflow_id: row.workflow_id,
      created_at: row.created_at.toISOString(),
      data: {
        title: run?.title ?? null,
        number: run?.number ?? null,
        status: run?.status ?? null,
        run_url: runUrl,
        report_url: `${publicUrl}/svc/api/workflows/${row.workflow_id}/report`,
        ...(JSON.parse(row.data) as Record<string, unknown>),
      },
    };
  }
}
