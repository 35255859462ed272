import { setImmediate as yieldToIo } from 'node:timers/promises';
import pg from 'pg';
import { openSqliteConnection } from './sqlite-connection';
import { compileFor, type Runnable } from './query';

/**
 * Reads on the database driver itself, beside Prisma, for the hot read paths (issue 11): Prisma spends
 * about a millisecond of CPU per statement, the driver a small fraction of that. Statements come from
 * the query builder (query.ts); rows come back as the driver gives them (see `SqlReader.rows`).
 */
export interface ReadOptions {
  /**
   * PostgreSQL: plan the statement with this run's values (an unnamed statement), never with a cached
   * generic plan, for a statement whose best plan depends on a value (how rare a search text is).
   */
  planWithValues?: boolean;
}

export interface SqlReader {
  /**
   * Runs one read statement (a builder statement, or a bound `prepare`d one), prepared once per text. Values as the driver returns them: PostgreSQL
   * timestamps as Date, jsonb parsed, COUNT/SUM as strings; SQLite timestamps as ISO text, JSON as
   * text, booleans as 0/1 (`rowDecoder` turns both into the row types).
   */
  rows(query: Runnable, options?: ReadOptions): Promise<unknown[]>;
  /** The first row of a statement that returns one at most (`rows` without the list); undefined for none. */
  row(query: Runnable): Promise<unknown>;
  close(): Promise<void>;
}

// timestamp(3) columns hold UTC (Prisma writes them so): read them as UTC whatever the local zone.
const TIMESTAMP = 1114;
export const utcTimestamps = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMP && format !== 'binary'
      ? (value: string) => new Date(`${value}Z`)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Reads on Prisma's own pool (queries from both share its connections and its size). */
export function postgresReader(pool: pg.Pool): SqlReader {
  // A prepared statement's name on PostgreSQL stands for one text: one name per text seen.
  const names = new Map<string, string>();
  const nameOf = (text: string) => {
    let name = names.get(text);
    if (!name) names.set(text, (name = `svc_read_${names.size + 1}`));
    return name;
  };
  return {
    async rows(query, options) {
      const { sql: text, values } = compileFor('postgresql', query);
      const name = options?.planWithValues ? undefined : nameOf(text);
      const result = await pool.query({ ...(name ? { name } : {}), text, values, types: utcTimestamps });
      return result.rows;
    },
    async row(query) {
      return (await this.rows(query))[0];
    },
    close: async () => undefined, // the pool belongs to the Prisma client
  };
}

/**
 * Reads on a second SQLite connection: Prisma's one connection may hold an open write transaction,
 * which a statement on it would join; in WAL mode this one reads the last committed state beside it.
 * It uses `libsql` (the driver under `@libsql/client`) itself, to keep each statement prepared: the
 * client prepares every statement again on every call, which cost more than running it.
 */
export function sqliteReader(url: string): SqlReader {
  const { db, prepared } = openSqliteConnection(url, ['busy_timeout = 30000']);
  return {
    rows: async (query) => {
      const { sql: text, values } = compileFor('sqlite', query);
      // The statement runs on the event loop. Yielding first lets the sockets that are ready be read
      // in between, so many connections are served in turn, not in bursts (p99 800 → 300 ms, issue 11).
      await yieldToIo();
      return prepared(text).all(values) as unknown[];
    },
    row: async (query) => {
      const { sql: text, values } = compileFor('sqlite', query);
      await yieldToIo(); // as in `rows`
      return prepared(text).get(values) ?? undefined;
    },
    close: async () => {
      db.close();
    },
  };
}
