import type { LRUCache } from 'lru-cache';
import type { IngestWorkflow } from './plan';
import type { RawClient } from '../events';
import type { IngestSql } from './sql';

/**
 * The workflow columns the ingest needs, kept between batches so a batch of an active workflow reads
 * nothing before it writes. Every change the engine announces stale (who holds a workflow, its status,
 * its plan revision, its title grant) forgets its entry, on every replica (see engine/effects.ts); a worker that
 * connects here has its entries forgotten (it may have gone on through another replica), and a cached
 * "not yours" is always checked against the database before an update is refused. Bounded (the cache is
 * made at start-up, `ingestRowCache`); the least recently used go first and are read again when needed.
 */
export class IngestWorkflows {
  constructor(
    private readonly db: RawClient,
    private readonly sql: IngestSql,
    private readonly rows: LRUCache<string, IngestWorkflow>,
  ) {}

  /** Copies (a batch may change them) of the rows of `ids` that exist; `fresh` skips the cache. */
  async load(ids: readonly string[], fresh = false): Promise<Map<string, IngestWorkflow>> {
    const known = new Map<string, IngestWorkflow>();
    const missing: string[] = [];
    for (const id of ids) {
      const row = fresh ? undefined : this.rows.get(id);
      if (row) known.set(id, row);
      else missing.push(id);
    }
    if (missing.length > 0) {
      for (const id of missing) this.rows.delete(id);
      for (const read of await this.sql.workflows(this.db, missing)) {
        const row = {
          ...read,
          last_update_seq: Number(read.last_update_seq),
          plan_revision: Number(read.plan_revision),
          plan_revising: Boolean(read.plan_revising), // SQLite: 0/1
        };
        this.rows.set(row.id, row);
        known.set(row.id, row); // even if the bound evicted it again at once
      }
    }
    const found = new Map<string, IngestWorkflow>();
    for (const id of ids) {
      const row = known.get(id);
      if (row) found.set(id, { ...row });
    }
    return found;
  }

  /** After a commit: the new highest stored seq, and whether it answered the feedback awaiting a revised plan. */
  stored(id: string, maxSeq: number, revised: boolean): void {
    const row = this.rows.peek(id);
    if (row) row.last_update_seq = Math.max(row.last_update_seq, maxSeq);
    if (row && revised) row.plan_revising = false;
  }

  forgetHere(ids: Iterable<string>): void {
    for (const id of ids) this.rows.delete(id);
  }

  /** The cached workflows the worker holds. */
  heldBy(workerId: string): string[] {
    return [...this.rows.values()].filter((row) => row.assigned_worker_id === workerId).map((row) => row.id);
  }
}
