import { fromSnapshot } from '@svc/agent-core';
import type { Db } from '@svc/db';
import type { LRUCache } from 'lru-cache';
import type { LatestSnapshot } from '../caches';
import { snapshotData } from '../wire/workflow';
import type { KnownSnapshot } from './plan';

/**
 * The latest snapshot of each active workflow, kept so a new snapshot is diffed without a query. The
 * ingest is the only writer of snapshots and tells this cache each one it stores; the rest is read from
 * the database. Bounded (the cache is made at start-up, `snapshotCache`): the least recently used
 * entries are dropped and read again when needed.
 */
export class SnapshotCache {
  constructor(
    private readonly db: Db,
    private readonly known: LRUCache<string, LatestSnapshot>,
  ) {}

  async get(workflowId: string): Promise<KnownSnapshot | null> {
    const cached = this.known.get(workflowId);
    if (cached) return cached.latest;
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
    this.known.set(workflowId, { latest: snapshot });
  }

  delete(workflowId: string): void {
    this.known.delete(workflowId);
  }
}
