import { setImmediate as yieldToIo } from 'node:timers/promises';
import pg from 'pg';
import { openSqliteConnection } from './sqlite-connection';

/**
 * Reads on the database driver itself, beside Prisma, for the hot read paths (issue 11): Prisma spends
 * about a millisecond of CPU per statement, the driver a small fraction of that. Statements use `$1`
 * placeholders for both databases; rows come back as the driver gives them (see `SqlReader.query`).
 */
export interface SqlReader {
  /**
   * Runs one read statement. `name` makes it a prepared statement on PostgreSQL (one name, one text).
   * Values as the driver returns them: PostgreSQL timestamps as Date, jsonb parsed, COUNT/SUM as
   * strings; SQLite timestamps as ISO text, JSON as text, booleans as 0/1.
   */
  query<T>(name: string, text: string, values: readonly unknown[]): Promise<T[]>;
  close(): Promise<void>;
}

// timestamp(3) columns hold UTC (Prisma writes them so): read them as UTC whatever the local zone.
const TIMESTAMP = 1114;
const pgTypes = {
  getTypeParser: ((oid: number, format?: 'text' | 'binary') =>
    oid === TIMESTAMP && format !== 'binary'
      ? (value: string) => new Date(`${value}Z`)
      : pg.types.getTypeParser(oid, format)) as typeof pg.types.getTypeParser,
};

/** Reads on Prisma's own pool (queries from both share its connections and its size). */
export function postgresReader(pool: pg.Pool): SqlReader {
  return {
    async query<T>(name: string, text: string, values: readonly unknown[]) {
      const result = await pool.query({ name, text, values: values as unknown[], types: pgTypes });
      return result.rows as T[];
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
  // `$1` becomes SQLite's numbered `?1`, so a statement may use a parameter twice.
  const { db, prepared } = openSqliteConnection(url, ['busy_timeout = 30000'], {
    translate: (text) => text.replace(/\$(\d+)/g, '?$1'),
  });
  return {
    query: async <T>(_name: string, text: string, values: readonly unknown[]) => {
      // The statement runs on the event loop. Yielding first lets the sockets that are ready be read
      // in between, so many connections are served in turn, not in bursts (p99 800 → 300 ms, issue 11).
      await yieldToIo();
      return prepared(text).all([...values]) as T[];
    },
    close: async () => {
      db.close();
    },
  };
}
