import type { IngestWorkflow } from './plan';
import type { RawClient } from '../events';
import type { IngestSql } from './sql';

/**
 * The workflow columns the ingest needs, kept between batches so a batch of an active workflow reads
 * nothing before it writes. Only this process changes who holds a workflow and its last_update_seq;
 * the dispatcher forgets an entry whenever it takes a workflow back, and a cached "not yours" is
 * always checked against the database before an update is refused. Bounded; oldest entries go first.
 */
export class IngestWorkflows {
  private readonly rows = new Map<string, IngestWorkflow>();

  constructor(
    private readonly db: RawClient,
    private readonly sql: IngestSql,
    private readonly limit = 10_000,
  ) {}

  /** Copies (a batch may change them) of the rows of `ids` that exist; `fresh` skips the cache. */
  async load(ids: readonly string[], fresh = false): Promise<Map<string, IngestWorkflow>> {
    const missing = fresh ? ids : ids.filter((id) => !this.rows.has(id));
    if (missing.length > 0) {
      for (const id of missing) this.rows.delete(id);
      for (const row of await this.sql.workflows(this.db, missing))
        this.remember({ ...row, last_update_seq: Number(row.last_update_seq) });
    }
    const found = new Map<string, IngestWorkflow>();
    for (const id of ids) {
      const row = this.rows.get(id);
      if (row) found.set(id, { ...row });
    }
    return found;
  }

  /** After a commit: the new highest stored seq. */
  stored(id: string, maxSeq: number): void {
    const row = this.rows.get(id);
    if (row) row.last_update_seq = Math.max(row.last_update_seq, maxSeq);
  }

  forget(ids: Iterable<string>): void {
    for (const id of ids) this.rows.delete(id);
  }

  private remember(row: IngestWorkflow): void {
    this.rows.set(row.id, row);
    if (this.rows.size > this.limit) this.rows.delete(this.rows.keys().next().value!);
  }
}
