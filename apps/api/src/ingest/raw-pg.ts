import type pg from 'pg';
import type { RawClient } from '../events';

/**
 * Raw statements straight through `pg`, for the ingest's batch statement on PostgreSQL: the same SQL
 * and parameters as through Prisma, without its per-statement query compilation and result mapping
 * (about 1 ms of CPU a statement; see docs/decisions/0028-websocket-ingest-performance.md).
 */
export class PgRawClient implements RawClient {
  /** `pool` is the database handle's (Prisma's) pool: it stays open as long as that handle. */
  constructor(private readonly pool: pg.Pool) {}

  async $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T> {
    return (await this.pool.query(query, values)).rows as T;
  }

  async $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number> {
    return (await this.pool.query(query, values)).rowCount ?? 0;
  }
}
