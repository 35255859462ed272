import { ingestCommitDuration, ingestUpdates } from '../metrics/registry';
import { countStoredLlmCalls, type StoredLlmCall } from '../metrics/llm';
import type pg from 'pg';
import type { Logger } from 'pino';
import { classifyAnyDbError, isTransientDbError, type Db, type DbProvider } from '@svc/db';
import {
  maskUpdate,
  type CommandOutputMessage,
  type RepositoryUpdateData,
  type UpdateMessage,
  type WorkflowStatus,
  type WsErrorInfo,
} from '@svc/protocol';
import type { EventStore, RawClient } from '../events';
import { decide, type WorkflowEngine } from '../engine';
import { workerReported } from '../engine/worker-updates';
import type { IngestLock } from './ingest-lock';
import { SnapshotCache } from './snapshots';
import { emptyRows, planUpdate, WorkflowPlan, type IngestWorkflow, type PlanContext } from './plan';
import { LLM_DETAIL_RETENTION_KEY, retentionDays } from './detail-retention';
import { batchTables, IngestSql } from './sql';
import { IngestWorkflows } from './workflows';
import { GroupCommitQueue, type Batch } from './queue';
import { WriteLane } from './write-lane';
import { mayStoreForTitle } from '../engine/intents';
import { PgRawClient } from './raw-pg';
import type { RunSecrets } from '../secrets/run-secrets';
import { maskCommandOutput } from '../secrets/mask-update';

/** What became of one update: acknowledge `stored` and `duplicate`; answer `refused` with the error. */
export type IngestOutcome = { kind: 'stored' } | { kind: 'duplicate' } | { kind: 'refused'; error: WsErrorInfo };

export interface UpdateIngestDeps {
  db: Db;
  provider: DbProvider;
  events: EventStore;
  /** decides and commits the batches' status and column changes, and announces them */
  engine: WorkflowEngine;
  logger: Logger;
  lock: IngestLock;
  /** who holds which workflow (forgotten when the engine announces a run stale) */
  workflows: IngestWorkflows;
  /** the latest snapshot of each workflow, to diff the next one against (forgotten with `workflows`) */
  snapshots: SnapshotCache;
  /** most updates stored in one transaction */
  maxBatch?: number;
  /** PostgreSQL: the database handle's pool, through which batches of plain progress updates are written */
  pgPool?: pg.Pool | null;
  /** after a commit that stored LLM calls of these runs (the server's budget check); rejections are logged */
  onLlmCalls?: (workflowIds: string[]) => Promise<void>;
  /**
   * push reports (`repository` updates) of a batch, recorded in workflow_repositories (decision 0046) just
   * before the batch commits, so a run's `completed` status never commits before its push is recorded
   * (the worker reports the push first). Idempotent: a batch retried writes the same values again.
   */
  onRepository?: (reports: { workflowId: string; data: RepositoryUpdateData }[]) => Promise<void>;
  /** each run's masker of its secret values: updates and live output are masked before they are stored or relayed */
  maskers?: Pick<RunSecrets, 'maskerFor'>;
}

/** Batches committing side by side on PostgreSQL (SQLite has one writer). */
const PG_CONCURRENCY = 4;
/**
 * Kinds whose batch writes only rows and counters (no column changes, no snapshot to diff against):
 * on PostgreSQL their next batch is prepared and sent while one commits (pipelined commits, issue 11).
 */
const PIPELINED_KINDS = new Set<UpdateMessage['kind']>(['log_entry', 'llm_call', 'step_diff', 'file_changed']);

interface Pending {
  workerId: string;
  update: UpdateMessage;
  resolve(outcome: IngestOutcome): void;
}

const key = (workflowId: string, seq: number) => `${workflowId}\u0000${seq}`;

/**
 * Stores worker updates with group commit: updates that arrive while a transaction runs are collected
 * and stored together in the next one. Each (workflow, seq) is stored once; an update is acknowledged
 * only after its transaction committed, and its events are announced once, after the commit.
 */
export class UpdateIngest {
  private readonly queue: GroupCommitQueue<Pending>;
  private readonly snapshots: SnapshotCache;
  private readonly sql: IngestSql;
  private readonly workflows: IngestWorkflows;
  private readonly raw: RawClient | undefined;

  constructor(private readonly deps: UpdateIngestDeps) {
    this.snapshots = deps.snapshots;
    this.sql = new IngestSql(deps.provider);
    this.workflows = deps.workflows;
    const pool = deps.provider === 'postgresql' ? deps.pgPool : null;
    if (pool) this.raw = new PgRawClient(pool);
    const lanes = new WeakMap<Batch<Pending>, WriteLane>();
    this.queue = new GroupCommitQueue<Pending>({
      keyOf: (item) => item.update.workflow_id,
      concurrency: pool ? PG_CONCURRENCY : 1,
      maxBatch: deps.maxBatch ?? 500,
      ...(pool && { mayFollow: (item: Pending) => PIPELINED_KINDS.has(item.update.kind) }),
      run: async (batch) => {
        if (!pool) return deps.lock.shared(() => this.store(batch.items, undefined));
        // A batch and its followers write through one connection, in order (see WriteLane).
        const lane = (batch.follows && lanes.get(batch.follows)) || new WriteLane(pool);
        lanes.set(batch, lane);
        const turn = lane.join();
        try {
          await deps.lock.shared(() => this.store(batch.items, turn.client));
        } finally {
          turn.end();
        }
      },
    });
  }

  /** Queues an update, masked first; a masker known already masks at once, so a run's updates keep their order. */
  submit(workerId: string, update: UpdateMessage): Promise<IngestOutcome> {
    const masker = this.deps.maskers?.maskerFor(update.workflow_id) ?? null;
    if (masker instanceof Promise) return masker.then((known) => this.enqueue(workerId, maskUpdate(known, update)));
    return this.enqueue(workerId, maskUpdate(masker, update));
  }

  private enqueue(workerId: string, update: UpdateMessage): Promise<IngestOutcome> {
    return new Promise((resolve) => this.queue.push({ workerId, update, resolve }));
  }

  /**
   * Relays a worker's live command output to the workflow's browsers (every replica), if the worker
   * holds the workflow (checked like its updates: the cache, and the database before a refusal).
   * `runsExec`: the worker runs an `execute_on_worker` command for the workflow's worker now. Returns
   * the refusal, null when relayed. Nothing is stored.
   */
  async relayCommandOutput(
    workerId: string,
    message: CommandOutputMessage,
    runsExec = false,
  ): Promise<WsErrorInfo | null> {
    const id = message.workflow_id;
    let row = (await this.workflows.load([id])).get(id);
    if (row?.assigned_worker_id !== workerId) row = (await this.workflows.load([id], true)).get(id);
    if (!row) return { code: 'not_found', message: `command output: no workflow ${id}` };
    if (row.assigned_worker_id !== workerId && !runsExec)
      return { code: 'forbidden', message: `command output: workflow ${id} is not assigned to this worker` };
    const masker = (await this.deps.maskers?.maskerFor(id)) ?? null;
    const { type, workflow_id, ...data } = maskCommandOutput(masker, message);
    this.deps.events.publishCommandOutput({ type, workflow_id, data });
    return null;
  }

  /** Another replica changed who holds these workflows: the cached rows and snapshots are read again. */
  forgetCached(workflowIds: readonly string[]): void {
    this.workflows.forgetHere(workflowIds);
    for (const id of workflowIds) this.snapshots.delete(id);
  }

  /**
   * A worker (re)connected here: what this replica cached of its workflows may be stale (it may have
   * run them through another replica meanwhile), so its next updates read them again.
   */
  workerAttached(workerId: string): void {
    this.forgetCached(this.workflows.heldBy(workerId));
  }

  /** Resolves when everything submitted so far is stored (or refused). */
  flush(): Promise<void> {
    return this.queue.flush();
  }

  /**
   * Stores a batch; when its transaction fails, each update is retried alone so one cannot sink the rest.
   * `client`: what plain progress updates are written through (a PostgreSQL lane; Prisma when undefined).
   */
  private async store(batch: Pending[], client: RawClient | undefined): Promise<void> {
    try {
      await this.commit(batch, client);
    } catch (err) {
      if (batch.length > 1) {
        for (const item of batch) await this.store([item], client);
        return;
      }
      const kind = classifyAnyDbError(err);
      const { workflow_id, seq } = batch[0]!.update;
      const transient = isTransientDbError(kind);
      // a database that cannot answer now is the outage's warning, not an error per refused update
      this.deps.logger[transient ? 'warn' : 'error']({ err, workflow_id, seq }, 'worker update not stored');
      const code = transient ? 'unavailable' : kind === 'invalid_input' ? 'invalid_input' : 'internal';
      const why = kind === 'storage_full' ? ' (the server is out of storage space)' : '';
      batch[0]!.resolve({
        kind: 'refused',
        error: { code, message: `update ${seq} of workflow ${workflow_id} was not stored${why}; send it again later` },
      });
    }
  }

  private async commit(batch: Pending[], client: RawClient | undefined): Promise<void> {
    const outcomes = new Map<Pending, IngestOutcome>();
    const { byId, owned } = await this.owned(batch, outcomes);
    const stored = await this.storedKeys(owned, byId);
    const plans = new Map<string, WorkflowPlan>();
    const planned = emptyRows();
    const now = new Date();
    const fresh = owned
      .filter((item) => {
        const k = key(item.update.workflow_id, item.update.seq);
        if (!stored.has(k)) {
          stored.add(k); // a second copy within the batch is a duplicate too
          return true;
        }
        outcomes.set(item, { kind: 'duplicate' });
        return false;
      })
      .sort((a, b) => a.update.seq - b.update.seq);
    const context = await this.planContext(fresh);
    // Only a new snapshot is diffed against the latest stored one: other runs' batches need no read of it.
    const withSnapshot = new Set(
      fresh.filter((item) => item.update.kind === 'snapshot').map((item) => item.update.workflow_id),
    );
    for (const item of fresh) {
      const row = byId.get(item.update.workflow_id)!;
      let plan = plans.get(row.id);
      if (!plan) {
        const known = withSnapshot.has(row.id) ? await this.snapshots.get(row.id) : null;
        plans.set(row.id, (plan = new WorkflowPlan(row, known)));
      }
      const superseded = await this.isSuperseded(row, item.update);
      const error = planUpdate(plan, planned, item.workerId, item.update, now, superseded, context);
      outcomes.set(item, error ? { kind: 'refused', error } : { kind: 'stored' });
    }
    // Before the batch commits: a `completed` status in this batch or a later one finds the push recorded.
    await this.repositoryReports(fresh, outcomes);
    if (planned.workerUpdates.length > 0) {
      const endTimer = ingestCommitDuration.startTimer();
      await this.deps.engine.applyWorkerUpdates({
        runs: [...plans.values()],
        tables: batchTables(this.deps.provider, planned),
        at: now,
        client,
      });
      endTimer();
    }
    this.afterCommit(plans);
    this.countStored(fresh, outcomes);
    this.llmCallsStored(fresh, outcomes);
    for (const item of batch) item.resolve(outcomes.get(item)!);
  }

  /**
   * The batch's rows, and its updates whose worker may write them (the others get their refusal). A
   * cached row that says no (not yours, or a status the table refuses) is checked against the database
   * before anything is refused.
   */
  private async owned(batch: Pending[], outcomes: Map<Pending, IngestOutcome>) {
    const byId = await this.workflows.load([...new Set(batch.map((p) => p.update.workflow_id))]);
    const doubtful = new Set(
      batch
        .filter((item) => {
          const row = byId.get(item.update.workflow_id);
          return !mayWrite(item, row) || refusesStatus(item.update, row!);
        })
        .map((item) => item.update.workflow_id),
    );
    if (doubtful.size > 0) for (const [id, row] of await this.workflows.load([...doubtful], true)) byId.set(id, row);
    const owned: Pending[] = [];
    for (const item of batch) {
      const { workflow_id: id, seq } = item.update;
      const row = byId.get(id);
      if (!row) outcomes.set(item, refused('not_found', `update ${seq}: no workflow ${id}`));
      else if (!mayWrite(item, row))
        outcomes.set(item, refused('forbidden', `update ${seq}: workflow ${id} is not assigned to this worker`));
      else owned.push(item);
    }
    return { byId, owned };
  }

  /**
   * Which of these (workflow, seq) pairs are stored already. A seq above the workflow's last_update_seq
   * (the highest stored) cannot be, so in the usual in-order stream there is nothing to look up.
   */
  private async storedKeys(items: Pending[], byId: Map<string, IngestWorkflow>): Promise<Set<string>> {
    const seqs = new Map<string, number[]>();
    for (const { update } of items) {
      if (update.seq > byId.get(update.workflow_id)!.last_update_seq) continue;
      seqs.set(update.workflow_id, [...(seqs.get(update.workflow_id) ?? []), update.seq]);
    }
    if (seqs.size === 0) return new Set();
    const found = await this.sql.storedUpdates(this.deps.db, seqs);
    return new Set(found.map((f) => key(f.workflow_id, Number(f.seq))));
  }

  /** Whether LLM call details are stored (`llm_detail_retention_days` 0 keeps none), read when a batch has one. */
  private async planContext(items: Pending[]): Promise<PlanContext> {
    const hasDetail = items.some((i) => i.update.kind === 'llm_call' && i.update.data.detail !== undefined);
    if (!hasDetail) return { storeDetails: true };
    const raw = await this.sql.setting(this.raw ?? this.deps.db, LLM_DETAIL_RETENTION_KEY);
    return { storeDetails: retentionDays(raw) > 0 };
  }

  /** An update that arrives after a later one of the same kind must not overwrite what that one set. */
  private async isSuperseded(row: IngestWorkflow, update: UpdateMessage): Promise<boolean> {
    if (
      update.seq >= row.last_update_seq ||
      (update.kind !== 'status' && update.kind !== 'title' && update.kind !== 'report')
    )
      return false;
    const later = await this.deps.db.workerUpdate.findFirst({
      where: { workflow_id: row.id, kind: update.kind, seq: { gt: update.seq } },
      select: { seq: true },
    });
    return later !== null;
  }

  /** The metrics of what this commit stored (metrics/registry.ts): updates by kind, LLM calls and tokens. */
  private countStored(fresh: Pending[], outcomes: Map<Pending, IngestOutcome>): void {
    const calls: StoredLlmCall[] = [];
    for (const item of fresh) {
      if (outcomes.get(item)?.kind !== 'stored') continue;
      ingestUpdates.inc({ kind: item.update.kind });
      if (item.update.kind === 'llm_call') calls.push(item.update.data);
    }
    if (calls.length === 0) return;
    countStoredLlmCalls(this.deps.db, calls).catch((err: unknown) =>
      this.deps.logger.warn({ err }, 'estimating the LLM cost metric failed'),
    );
  }

  /** Runs the budget check for the runs whose LLM calls were stored, after the commit (not awaited). */
  private llmCallsStored(fresh: Pending[], outcomes: Map<Pending, IngestOutcome>): void {
    const { onLlmCalls } = this.deps;
    if (!onLlmCalls) return;
    const ids = new Set<string>();
    for (const item of fresh)
      if (item.update.kind === 'llm_call' && outcomes.get(item)?.kind === 'stored') ids.add(item.update.workflow_id);
    if (ids.size === 0) return;
    onLlmCalls([...ids]).catch((err: unknown) =>
      this.deps.logger.error({ err, workflow_ids: [...ids] }, 'budget check after ingest failed'),
    );
  }

  /** Records the stored push reports (failures are logged: the report's event is stored already). */
  private async repositoryReports(fresh: Pending[], outcomes: Map<Pending, IngestOutcome>): Promise<void> {
    const { onRepository } = this.deps;
    if (!onRepository) return;
    const reports = fresh.flatMap((item) =>
      item.update.kind === 'repository' && outcomes.get(item)?.kind === 'stored'
        ? [{ workflowId: item.update.workflow_id, data: item.update.data }]
        : [],
    );
    if (reports.length === 0) return;
    await onRepository(reports).catch((err: unknown) =>
      this.deps.logger.error({ err, workflow_ids: reports.map((r) => r.workflowId) }, 'recording a push report failed'),
    );
  }

  /** The cache's highest stored seqs and snapshots (the engine announced the rest; stale rows are gone already). */
  private afterCommit(plans: Map<string, WorkflowPlan>): void {
    for (const plan of plans.values()) {
      this.workflows.stored(plan.row.id, plan.maxSeq, plan.patch.plan_revising === false);
      if (plan.released === 'finished') this.snapshots.delete(plan.row.id);
      else if (plan.snapshot) this.snapshots.set(plan.row.id, plan.snapshot);
    }
  }
}

/** The worker holds the workflow; or its title job may store its LLM calls and title for one it does not run. */
function mayWrite(item: Pending, row: IngestWorkflow | undefined): boolean {
  return (
    row !== undefined && (row.assigned_worker_id === item.workerId || mayStoreForTitle(row, item.workerId, item.update))
  );
}

/** A status report the table refuses from the row's status (the row may be stale: it is read again first). */
function refusesStatus(update: UpdateMessage, row: IngestWorkflow): boolean {
  return (
    update.kind === 'status' && decide(row.status as WorkflowStatus, workerReported(update.data)).kind === 'refuse'
  );
}

function refused(code: WsErrorInfo['code'], message: string): IngestOutcome {
  return { kind: 'refused', error: { code, message } };
}
