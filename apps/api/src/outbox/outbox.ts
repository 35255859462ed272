import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import type pg from 'pg';
import {
  autocommitClient,
  encodeParameter,
  executeQuery,
  isAnyOf,
  prepare,
  queryBuilder,
  rowDecoder,
  selectRows,
  sql,
  type Db,
  type DbProvider,
  type Prepared,
  type RawClient,
  type SqlReader,
} from '@svc/db';
import type { ClusterBus } from '../cluster/bus';
import type { TableRows } from '../events/event-sql';
import type { NewEvent, StoredEvent, WorkflowRef } from '../events/types';
import { outboxEventOf } from './map';
import { backoffMs, dueMoment, keepLeased, nudgeOnClusterEvents, Poller } from './poller';
import { outboxBatch, type OutboxEvent, type OutboxEventType, type OutboxHandler } from './types';

export interface OutboxSettings {
  /** how soon to look for work another replica announced (its events crossed the bus) */
  pollMs: number;
  /** how long to sleep when nothing was announced or is due (default: pollMs) */
  idlePollMs?: number;
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
  /** the claims' statements on the pool itself (PostgreSQL; null on SQLite) */
  pgPool: pg.Pool | null;
  /** the batch's events and when the next claim is due, on the driver */
  reader: SqlReader;
  provider: DbProvider;
  logger: Logger;
  /** this replica (the lease holder's name) */
  replicaId: string;
  /** PUBLIC_URL (read when an event is handed out): the run's links in the events */
  publicUrl: () => string;
  settings: OutboxSettings;
  /** other replicas' events nudge the poller (absent: one process) */
  bus?: ClusterBus;
}

type Group = { workflow: WorkflowRef; events: readonly NewEvent[] };

interface Consumer {
  handle: OutboxHandler;
  wants(type: string): boolean;
}

/**
 * The durable outbox of public run events (issue 25, decision 0044). The event store asks it, for every
 * append, which outbox rows commit with the workflow events (`rowsFor`): one `outbox_events` row per public
 * event and one `outbox_claims` row per registered consumer, in the same transaction. A dispatcher on every
 * replica then claims due rows (a lease: compare-and-set on `locked_until`, so one replica at a time holds
 * a (consumer, event)), runs the consumer's handler, and marks the row done, or schedules a retry with
 * exponential backoff. A replica that dies holding a lease leaves it to expire; another takes it then.
 *
 * A consumer names the event types it handles, and only those get a claim row for it. Due claims are
 * taken a batch at a time in one statement, their events read in one, and the handled ones marked done in
 * one (decision 0083): a job's events cost a few statements per batch, not several per event.
 */
export class Outbox {
  private readonly consumers = new Map<string, Consumer>();
  private readonly poller: Poller;
  private readonly holder: string;
  private readonly logger: Logger;
  private readonly stopNudges: () => void;

  private readonly raw: RawClient;
  private readonly statements: ReturnType<typeof outboxStatements>;
  private readonly decodeEvent: <R>(row: unknown) => R;
  private readonly decodeClaim: <R>(row: unknown) => R;

  constructor(private readonly deps: OutboxDeps) {
    this.raw = autocommitClient(deps);
    this.statements = outboxStatements(deps.provider);
    this.decodeEvent = rowDecoder(deps.provider, 'outbox_events');
    this.decodeClaim = rowDecoder(deps.provider, 'outbox_claims');
    this.logger = deps.logger.child({ component: 'outbox' });
    this.holder = `${deps.replicaId}:${process.pid}:${randomUUID().slice(0, 8)}`;
    this.poller = new Poller(
      () => this.pass(),
      () => this.nextDue(),
      deps.settings.pollMs,
      (err) => this.logger.error({ err }, 'outbox pass failed'),
      deps.settings.idlePollMs,
    );
    this.stopNudges = deps.bus ? nudgeOnClusterEvents(deps.bus, this.poller) : () => undefined;
  }

  /**
   * Registers a consumer (at start-up, before events are written): every event written from then on of
   * one of `types` (default: every type) gets a claim row for it. The handler must be idempotent (key on
   * `event.id`).
   */
  register(consumer: string, handle: OutboxHandler, types?: readonly OutboxEventType[]): void {
    if (!/^[a-z][a-z0-9_.-]{0,63}$/.test(consumer)) throw new Error(`outbox consumer name ${consumer}`);
    if (this.consumers.has(consumer)) throw new Error(`outbox consumer ${consumer} is registered twice`);
    const wanted = types ? new Set<string>(types) : null;
    this.consumers.set(consumer, { handle, wants: (type) => wanted === null || wanted.has(type) });
  }

  /** The registered consumers' names. */
  consumerNames(): string[] {
    return [...this.consumers.keys()];
  }

  /** The rows the event store writes with an append (none when no consumer handles any appended event). */
  rowsFor(groups: readonly Group[], at: Date): TableRows[] {
    if (this.consumers.size === 0) return [];
    const stamp = encodeParameter(this.deps.provider, at);
    const events: { id: string; type: OutboxEventType; project_id: string; workflow_id: string; data: string }[] = [];
    const claims: Record<string, unknown>[] = [];
    for (const { workflow, events: appended } of groups)
      for (const event of appended) {
        const mapped = outboxEventOf(event);
        const takers = mapped ? this.takersOf(mapped.type) : [];
        if (!mapped || takers.length === 0) continue;
        const id = randomUUID();
        events.push({
          id,
          type: mapped.type,
          project_id: workflow.project_id,
          workflow_id: workflow.id,
          data: JSON.stringify(mapped.data),
        });
        for (const consumer of takers)
          claims.push({
            consumer,
            event_id: id,
            state: 'pending',
            attempts: 0,
            available_at: stamp,
            updated_at: stamp,
          });
      }
    if (events.length === 0) return [];
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

  /** After a commit: wake the dispatcher when an event some consumer handles was among the appended ones. */
  committed(stored: readonly StoredEvent[]): void {
    if (this.consumers.size === 0) return;
    const handled = (event: StoredEvent) => {
      const mapped = outboxEventOf(event);
      return mapped !== null && this.takersOf(mapped.type).length > 0;
    };
    if (stored.some(handled)) this.poller.kick();
  }

  /** Wakes the dispatcher (e.g. after a retry was requested). */
  kick(): void {
    this.poller.kick();
  }

  start(): void {
    if (this.consumers.size > 0) this.poller.start();
  }

  stop(): Promise<void> {
    this.stopNudges();
    return this.poller.stop();
  }

  private takersOf(type: string): string[] {
    return [...this.consumers].filter(([, consumer]) => consumer.wants(type)).map(([name]) => name);
  }

  /** One pass over every consumer: handles what is due. */
  private async pass(): Promise<void> {
    for (const [consumer, { handle }] of this.consumers) while (await this.passOf(consumer, handle));
  }

  /** The earliest moment a consumer's pending claim is due (or its lease runs out). */
  private async nextDue(): Promise<Date | null> {
    let next: Date | null = null;
    for (const consumer of this.consumers.keys()) {
      const raw = await this.deps.reader.row(this.statements.nextDue.bind({ consumer }));
      if (!raw) continue;
      const due = this.decodeClaim<{ available_at: Date; locked_until: Date | null }>(raw);
      const at = dueMoment(due.available_at, due.locked_until);
      if (!next || at < next) next = at;
    }
    return next;
  }

  /** Claims and handles one batch of a consumer's due events; true when the batch was full (more may be due). */
  private async passOf(consumer: string, handle: OutboxHandler): Promise<boolean> {
    const { db, settings } = this.deps;
    const batch = settings.batch ?? 20;
    const claimed = await this.claimDue(consumer, batch);
    if (claimed.length === 0) return false;
    // Renewed until the batch is marked done: a handled event stays claimed until then.
    const held = new Set(claimed);
    const mine = (ids: readonly string[]) => ({ consumer, event_id: { in: [...ids] }, locked_by: this.holder });
    const stopRenewing = keepLeased(
      settings.leaseSeconds,
      () =>
        db.outboxClaim.updateMany({
          where: mine([...held]),
          data: { locked_until: new Date(Date.now() + settings.leaseSeconds * 1000) },
        }),
      (err) => this.logger.warn({ err }, 'outbox lease renewal failed'),
    );
    const handled: string[] = [];
    try {
      const events = await this.loadMany(claimed);
      const batch = outboxBatch(claimed.flatMap((eventId) => events.get(eventId) ?? []));
      for (const eventId of claimed) {
        const event = events.get(eventId);
        try {
          if (event) await handle(event, batch);
          handled.push(eventId);
        } catch (err) {
          held.delete(eventId);
          await this.failed(consumer, eventId, err);
        }
      }
    } finally {
      stopRenewing();
      if (handled.length > 0) await this.markDone(consumer, handled);
    }
    return claimed.length === batch;
  }

  /**
   * Leases up to `limit` due claims of the consumer in one statement (their ids, oldest first). On
   * PostgreSQL the rows are locked and others' locked rows skipped, so replicas take disjoint batches.
   */
  private async claimDue(consumer: string, limit: number): Promise<string[]> {
    const { provider, settings } = this.deps;
    const qb = queryBuilder(provider);
    const now = new Date();
    let due = qb
      .selectFrom('outbox_claims')
      .select('event_id')
      .where('consumer', '=', consumer)
      .where('state', '=', 'pending')
      .where('available_at', '<=', now)
      .where((eb) => eb.or([eb('locked_until', 'is', null), eb('locked_until', '<', now)]))
      .orderBy('available_at')
      .limit(limit);
    if (provider === 'postgresql') due = due.forUpdate().skipLocked();
    const claim = qb
      .updateTable('outbox_claims')
      .set({
        locked_by: this.holder,
        locked_until: new Date(now.getTime() + settings.leaseSeconds * 1000),
        attempts: sql<number>`attempts + 1`,
        updated_at: now,
      })
      .where('consumer', '=', consumer)
      .where('event_id', 'in', due)
      .returning(['event_id', 'available_at']);
    const rows = await selectRows<{ event_id: string; available_at: Date | string }>(this.raw, provider, claim);
    const at = (row: { available_at: Date | string }) => new Date(row.available_at).getTime();
    return rows.sort((a, b) => at(a) - at(b)).map((row) => row.event_id);
  }

  /** Marks the handled claims done in one statement (Prisma's updateMany would open a transaction for it). */
  private async markDone(consumer: string, eventIds: readonly string[]): Promise<void> {
    const { provider } = this.deps;
    const done = queryBuilder(provider)
      .updateTable('outbox_claims')
      .set({ state: 'done', locked_by: null, locked_until: null, last_error: null, updated_at: new Date() })
      .where('consumer', '=', consumer)
      .where('locked_by', '=', this.holder)
      .where(({ ref }) => isAnyOf(provider, ref('event_id'), eventIds));
    await executeQuery(this.raw, provider, done);
  }

  /** A failed handling: retried after a backoff, or given up (`dead`) after the last attempt. */
  private async failed(consumer: string, eventId: string, err: unknown): Promise<void> {
    const { db, settings } = this.deps;
    const row = await db.outboxClaim.findUnique({
      where: { consumer_event_id: { consumer, event_id: eventId } },
      select: { attempts: true },
    });
    const attempts = row?.attempts ?? 1;
    const dead = attempts >= (settings.maxAttempts ?? 25);
    const delay = backoffMs(attempts, settings.retryBaseMs, settings.retryMaxMs ?? 600_000);
    this.logger.warn({ err, consumer, event_id: eventId, attempts, dead }, 'outbox consumer failed');
    await db.outboxClaim.updateMany({
      where: { consumer, event_id: eventId, locked_by: this.holder },
      data: {
        state: dead ? 'dead' : 'pending',
        available_at: new Date(Date.now() + delay),
        locked_by: null,
        locked_until: null,
        last_error: String((err as Error)?.message ?? err).slice(0, 1000),
        updated_at: new Date(),
      },
    });
  }

  /** The events as consumers get them, with their run's title, number, status and links (one read for the batch). */
  private async loadMany(eventIds: readonly string[]): Promise<Map<string, OutboxEvent>> {
    const publicUrl = this.deps.publicUrl();
    const rows = (await this.deps.reader.rows(this.statements.eventsWithRuns.bind({ eventIds }))).map((raw) =>
      this.decodeEvent<EventWithRun>(raw),
    );
    return new Map(
      rows.map((row) => {
        const run = row.run_id === null ? undefined : row;
        const event: OutboxEvent = {
          id: row.id,
          type: row.type as OutboxEventType,
          project_id: row.project_id,
          workflow_id: row.workflow_id,
          created_at: row.created_at.toISOString(),
          data: {
            title: run?.title ?? null,
            number: run?.number ?? null,
            status: run?.status ?? null,
            run_url: `${publicUrl}/projects/${row.project_id}/workflows/${row.workflow_id}`,
            report_url: `${publicUrl}/svc/api/workflows/${row.workflow_id}/report`,
            ...(JSON.parse(row.data) as Record<string, unknown>),
          },
        };
        return [row.id, event];
      }),
    );
  }
}

/** An outbox event row with its run's title, number and status (null when the run is gone). */
interface EventWithRun {
  id: string;
  type: string;
  project_id: string;
  workflow_id: string;
  data: string;
  created_at: Date;
  run_id: string | null;
  title: string | null;
  number: number | null;
  status: string | null;
}

function outboxStatements(provider: DbProvider): {
  nextDue: Prepared<{ consumer: string }>;
  eventsWithRuns: Prepared<{ eventIds: readonly string[] }>;
} {
  const q = queryBuilder(provider);
  return {
    // The consumer's earliest pending claim: when the dispatcher must look again.
    nextDue: prepare(provider, (arg) =>
      q
        .selectFrom('outbox_claims')
        .select(['available_at', 'locked_until'])
        .where('consumer', '=', arg('consumer'))
        .where('state', '=', 'pending')
        .orderBy('available_at')
        .limit(sql.lit(1)),
    ),
    eventsWithRuns: prepare(provider, (arg) =>
      q
        .selectFrom('outbox_events as e')
        .leftJoin('workflows as w', 'w.id', 'e.workflow_id')
        .select(['e.id', 'e.type', 'e.project_id', 'e.workflow_id', 'e.data', 'e.created_at'])
        .select(['w.id as run_id', 'w.title', 'w.number', 'w.status'])
        .where((eb) => isAnyOf(provider, eb.ref('e.id'), arg('eventIds'))),
    ),
  };
}
