import { rawTransaction, type Db, type DbProvider, type Prisma, type SqliteWriter } from '@svc/db';
import type pg from 'pg';
import type { BrowserCommandOutputMessage, ProjectChangedEventData, Worker } from '@svc/protocol';
import type { EventFanout } from './fanout';
import { EventSql, type EventRow, type RawClient, type TableRows } from './event-sql';
import { toStoredEvent, type NewEvent, type StoredEvent, type WorkflowRef } from './types';
import { eventsOfRow } from './stored-rows';

/** One workflow's events in an append, and the highest worker-update seq stored with them (0: none). */
export interface EventGroup {
  workflow: WorkflowRef;
  events: readonly NewEvent[];
  maxUpdateSeq?: number;
}

/** What an append writes: the events of some workflows and other rows that commit with them. */
export interface EventBatch {
  groups: EventGroup[];
  tables?: TableRows[];
  /** when it happened (every row's created_at); now by default */
  at?: Date;
}

export interface EventStoreDeps {
  db: Db;
  provider: DbProvider;
  fanout: EventFanout;
  /** SQLite: what a batch outside a caller's transaction is written through (DbHandle.sqliteWriter) */
  sqliteWriter: SqliteWriter | null;
  /** PostgreSQL: the pool raw transactions run on (`appendInRawTransaction`); Prisma's otherwise */
  pgPool?: pg.Pool | null;
  /** the outbox of public run events: its rows commit with the events that cause them (issue 25) */
  outbox?: OutboxRows;
}

/** What the event store needs of the outbox (apps/api/src/outbox). */
export interface OutboxRows {
  rowsFor(groups: readonly EventGroup[], at: Date): TableRows[];
  committed(stored: readonly StoredEvent[]): void;
}

/**
 * The event stream and its only writer. Every workflow event, whether a REST action's or a worker
 * update's, is appended here: the seq is allocated in the same statement that stores the event, the
 * event is mapped to its wire form once, and it is published to browsers only after its commit.
 * Project and installation-wide notices are not stored (seq 0) and go through here too.
 */
export class EventStore {
  private readonly sql: EventSql;

  constructor(private readonly deps: EventStoreDeps) {
    this.sql = new EventSql(deps.provider, deps.sqliteWriter);
  }

  /** Appends events of one workflow, seqs in order, and publishes them. */
  async append(workflow: WorkflowRef, events: readonly NewEvent[]): Promise<StoredEvent[]> {
    if (events.length === 0) return [];
    return this.appendWith(async () => ({ groups: [{ workflow, events }] }), { interactive: false });
  }

  /**
   * Appends a batch atomically and publishes its events after the commit. `prepare` builds the batch;
   * with `interactive` it runs inside a transaction first (its writes decide what the batch holds) and
   * gets the transaction, otherwise it gets null and the batch is written on its own (one statement on
   * PostgreSQL). `publish: false` leaves publishing to the caller (`publish`), e.g. to order the events
   * with notices that are not stored.
   */
  async appendWith(
    prepare: (tx: Prisma.TransactionClient | null) => Promise<EventBatch>,
    /** `client`: what a non-interactive batch is written through (the ingest's raw pool); the db by default */
    options: { interactive: boolean; client?: RawClient; publish?: boolean },
  ): Promise<StoredEvent[]> {
    const { db } = this.deps;
    const stored = options.interactive
      ? await db.$transaction(async (tx) => this.write(tx, await prepare(tx), true))
      : await this.write(options.client ?? db, await prepare(null), false);
    return this.committed(stored, options.publish);
  }

  /**
   * As an interactive `appendWith` whose `prepare` writes raw statements only: on PostgreSQL the
   * transaction runs on a connection of the pool, not through Prisma (rawTransaction, decision 0085).
   */
  async appendInRawTransaction(
    prepare: (tx: RawClient) => Promise<EventBatch>,
    options: { publish?: boolean } = {},
  ): Promise<StoredEvent[]> {
    const handle = { db: this.deps.db, pgPool: this.deps.pgPool ?? null };
    const stored = await rawTransaction(handle, async (tx) => this.write(tx, await prepare(tx), true));
    return this.committed(stored, options.publish);
  }

  private committed(stored: StoredEvent[], publish: boolean | undefined): StoredEvent[] {
    this.deps.outbox?.committed(stored);
    if (publish !== false) this.publish(stored);
    return stored;
  }

  /** Publishes committed events to browsers (every replica). */
  publish(stored: StoredEvent[]): void {
    if (stored.length > 0) this.deps.fanout.publish(stored);
  }

  /** A change to a project or its workflow list (not stored: project subscribers re-read). */
  publishProject(projectId: string, data: ProjectChangedEventData): StoredEvent {
    return this.publishUnstored({ type: 'project_changed', project_id: projectId, data });
  }

  /** Installation-wide: a worker's row changed; every connected browser gets it. */
  publishWorkerStatus(worker: Worker): StoredEvent {
    return this.publishUnstored({ type: 'worker_status', data: worker });
  }

  /**
   * Live output of a running command, for the workflow's subscribers on every replica. Not stored, no
   * seq; each replica keeps the running commands' output in memory for pages that subscribe mid-command.
   */
  publishCommandOutput(message: BrowserCommandOutputMessage): void {
    this.deps.fanout.publishCommandOutput(message);
  }

  subscribeCommandOutput(listener: (message: BrowserCommandOutputMessage) => void): () => void {
    return this.deps.fanout.subscribeCommandOutput(listener);
  }

  runningCommandOutput(workflowId: string): BrowserCommandOutputMessage[] {
    return this.deps.fanout.runningCommandOutput(workflowId);
  }

  /**
   * Events of one workflow after `sinceSeq`, in order, for replay: at least `limit` unless there are no
   * more (a row may stand for two events, so there may be a few more).
   */
  since(workflow: WorkflowRef, sinceSeq: number, limit = 1000): Promise<StoredEvent[]> {
    return eventsSince(this.deps.db, workflow, sinceSeq, limit);
  }

  subscribe(listener: (event: StoredEvent) => void): () => void {
    return this.deps.fanout.subscribe(listener);
  }

  /** A subscriber here follows the workflow (other replicas' events of it are brought here); see EventFanout. */
  watchWorkflow(workflowId: string, resync: () => void): () => void {
    return this.deps.fanout.watchWorkflow(workflowId, resync);
  }

  /** A subscriber here follows the project's channel. */
  watchProject(projectId: string): () => void {
    return this.deps.fanout.watchProject(projectId);
  }

  private async write(client: RawClient, batch: EventBatch, inTransaction: boolean): Promise<StoredEvent[]> {
    const groups = batch.groups.filter((g) => g.events.length > 0 || (g.maxUpdateSeq ?? 0) > 0);
    if (groups.length === 0 && !batch.tables?.some((t) => t.rows.length > 0)) return [];
    const at = batch.at ?? new Date();
    // Every event takes a seq; a derived one has no row of its own (see stored-rows.ts).
    const all = groups.flatMap(({ workflow, events }) =>
      events.map((e, i) => ({ workflow_id: workflow.id, ord: i + 1, n: events.length, event: e })),
    );
    const rows: EventRow[] = all
      .filter(({ event }) => !event.derived)
      .map(({ event, ...at }) => ({ ...at, type: event.type, data: event.stored ?? event.data }));
    const counters = groups.map((g) => ({ id: g.workflow.id, n: g.events.length, max_seq: g.maxUpdateSeq ?? 0 }));
    const tables = [...(batch.tables ?? []), ...(this.deps.outbox?.rowsFor(groups, at) ?? [])];
    const last = await this.sql.write(client, counters, tables, rows, at, inTransaction);
    const projectOf = new Map(groups.map((g) => [g.workflow.id, g.workflow.project_id]));
    return all.map(({ workflow_id, n, ord, event }) =>
      toStoredEvent(
        { workflow_id, seq: last.get(workflow_id)! - n + ord, type: event.type, data: event.data, created_at: at },
        projectOf.get(workflow_id)!,
      ),
    );
  }

  private publishUnstored(event: Pick<StoredEvent, 'type' | 'project_id' | 'data'>): StoredEvent {
    const published: StoredEvent = { ...event, seq: 0, ts: new Date().toISOString() };
    this.deps.fanout.publish([published]);
    return published;
  }
}

/** The stored events of one workflow after `sinceSeq` (see EventStore.since); the cluster fan-out reads them too. */
export async function eventsSince(
  db: Db,
  workflow: WorkflowRef,
  sinceSeq: number,
  limit = 1000,
): Promise<StoredEvent[]> {
  // From the row at sinceSeq itself (one more row): its second event may come after sinceSeq.
  const rows = await db.event.findMany({
    where: { workflow_id: workflow.id, seq: { gte: sinceSeq } },
    orderBy: { seq: 'asc' },
    take: limit + 1,
  });
  return rows.flatMap((row) => eventsOfRow(row, workflow.project_id)).filter((event) => event.seq > sinceSeq);
}
