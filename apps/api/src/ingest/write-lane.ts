import type pg from 'pg';
import type { RawClient } from '../events';

/** One batch's use of a lane: its statements go through `client`; `end` when the batch is done. */
export interface LaneTurn {
  client: RawClient;
  end(): void;
}

/**
 * A PostgreSQL connection that a batch of worker updates and the batches following it write through
 * (pipelined commits, issue 11). One connection runs its statements in the order they were sent, so a
 * follower's write, prepared while its leader commits, is stored after the leader's. Each batch's first
 * statement is sent only after the previous batch sent its first (or ended without one). The
 * connection is taken from the pool at the first statement and given back when no batch uses the lane.
 */
export class WriteLane {
  private connection: Promise<pg.PoolClient> | null = null;
  private broken = false;
  private users = 0;
  private previousSent: Promise<void> = Promise.resolve();

  constructor(private readonly pool: pg.Pool) {}

  join(): LaneTurn {
    this.users++;
    const after = this.previousSent;
    let sent!: () => void;
    this.previousSent = new Promise<void>((resolve) => (sent = resolve));
    const query = async (text: string, values: unknown[]) => {
      await after;
      const connection = await (this.connection ??= this.pool.connect());
      const result = connection.query(text, values);
      sent();
      try {
        return await result;
      } catch (err) {
        this.broken = true;
        throw err;
      }
    };
    let ended = false;
    return {
      client: {
        $queryRawUnsafe: async <T>(text: string, ...values: unknown[]) => (await query(text, values)).rows as T,
        $executeRawUnsafe: async (text: string, ...values: unknown[]) => (await query(text, values)).rowCount ?? 0,
      },
      end: () => {
        if (ended) return;
        ended = true;
        sent();
        if (--this.users > 0) return;
        const connection = this.connection;
        const broken = this.broken;
        this.connection = null;
        this.broken = false;
        // A connection whose statement failed is closed rather than reused (it may be in any state).
        connection?.then(
          (c) => c.release(broken),
          () => undefined, // a connection that never opened has nothing to release
        );
      },
    };
  }
}
