import { classifyDbError, type Db } from '@svc/db';

/** How long a replica holds an action it claimed before another may take it over. */
export const ACTION_LEASE_MS = 60_000;
/** Attempts before an action is given up (`failed`, its last error kept). */
export const MAX_ACTION_ATTEMPTS = 8;

export type ActionOutcome = 'done' | 'failed' | 'busy' | 'retry';

/**
 * Once-only forge actions of a run (forge_actions): a row per (run, kind), claimed with a lease by one
 * replica at a time (a conditional update), marked done after the forge call returned. A replica that
 * dies mid-call leaves its lease to expire; the next attempt first looks on the forge for what the
 * call would have made (e.g. the branch's PR), so a retry does not make it twice.
 */
export class ForgeActions {
  constructor(
    private readonly db: Db,
    private readonly now: () => number = Date.now,
  ) {}

  async once(workflowId: string, kind: string, run: () => Promise<void>): Promise<ActionOutcome> {
    const row = await this.rowOf(workflowId, kind);
    if (!row) return 'busy';
    if (row.state !== 'pending') return row.state as ActionOutcome;
    if (!(await this.claim(row.id))) return 'busy';
    try {
      await run();
    } catch (error) {
      return this.failed(row.id, row.attempts + 1, error);
    }
    await this.db.forgeAction.update({
      where: { id: row.id },
      data: { state: 'done', lease_until: null, last_error: null },
    });
    return 'done';
  }

  /** The action's row, made now when it is new (a concurrent maker's row when both tried). */
  private async rowOf(workflowId: string, kind: string) {
    const where = { workflow_id_kind: { workflow_id: workflowId, kind } };
    const row = await this.db.forgeAction.findUnique({ where });
    if (row) return row;
    try {
      return await this.db.forgeAction.create({ data: { workflow_id: workflowId, kind } });
    } catch (error) {
      if (classifyDbError(error) !== 'conflict') throw error;
      return this.db.forgeAction.findUnique({ where });
    }
  }

  /** Takes the lease when nobody holds it (or it expired): one replica at a time. */
  private async claim(id: string): Promise<boolean> {
    const now = new Date(this.now());
    const claimed = await this.db.forgeAction.updateMany({
      where: { id, state: 'pending', OR: [{ lease_until: null }, { lease_until: { lt: now } }] },
      data: { lease_until: new Date(now.getTime() + ACTION_LEASE_MS), attempts: { increment: 1 } },
    });
    return claimed.count === 1;
  }

  /** Backs off (2^attempts s, at most 15 min) or, after MAX_ACTION_ATTEMPTS, gives up; keeps the error. */
  private async failed(id: string, attempts: number, error: unknown): Promise<ActionOutcome> {
    const gaveUp = attempts >= MAX_ACTION_ATTEMPTS;
    const backoff = Math.min(2 ** attempts * 1000, 15 * 60_000);
    await this.db.forgeAction.update({
      where: { id },
      data: {
        state: gaveUp ? 'failed' : 'pending',
        lease_until: gaveUp ? null : new Date(this.now() + backoff),
        last_error: error instanceof Error ? error.message.slice(0, 1000) : 'failed',
      },
    });
    return gaveUp ? 'failed' : 'retry';
  }

  /** Runs whose actions wait for a retry whose time has come (the sweep). */
  async due(limit: number): Promise<string[]> {
    const rows = await this.db.forgeAction.findMany({
      where: { state: 'pending', lease_until: { lt: new Date(this.now()) } },
      select: { workflow_id: true },
      take: limit,
    });
    return [...new Set(rows.map((row) => row.workflow_id))];
  }
}
