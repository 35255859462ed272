import { fromSnapshot } from '@svc/agent-core';
import type { Db } from '@svc/db';
import { snapshotData } from '../wire/workflow';
import type { KnownSnapshot } from './plan';

/**
 * The latest snapshot of each active workflow, kept so a new snapshot is diffed without a query.
 * Bounded: the oldest entries are dropped and re-read from the database when needed.
 */
export class SnapshotCache {
  private readonly known = new Map<string, KnownSnapshot | null>();

  constructor(
    private readonly db: Db,
    private readonly limit = 10_000,
  ) {}

  async get(workflowId: string): Promise<KnownSnapshot | null> {
    const cached = this.known.get(workflowId);
    if (cached !== undefined) return cached;
    const row = await this.db.agentStateSnapshot.findFirst({
      where: { workflow_id: workflowId },
      orderBy: { seq: 'desc' },
    });
    let snapshot: KnownSnapshot | null = null;
    if (row) {
      try {
        snapshot = { seq: row.seq, steps: fromSnapshot(snapshotData(row)).steps };
      } catch {
        snapshot = null; // a stored snapshot that no longer parses: diff the next one against nothing
      }
    }
    this.set(workflowId, snapshot);
    return snapshot;
  }

  set(workflowId: string, snapshot: KnownSnapshot | null): void {
    this.known.delete(workflowId);
    this.known.set(workflowId, snapshot);
    if (this.known.size > this.limit) this.known.delete(this.known.keys().next().value!);
  }

  delete(workflowId: string): void {
    this.known.delete(workflowId);
  }
}
