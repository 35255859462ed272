import pg from 'pg';
import type { Client as LibsqlClient } from '@libsql/client';
import { createSqliteClient } from './libsql';

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
 */
export async function sqliteReader(url: string): Promise<SqlReader> {
  const client: LibsqlClient = createSqliteClient({ url });
  await client.execute('PRAGMA busy_timeout = 30000');
  const texts = new Map<string, string>();
  return {
    async query<T>(_name: string, text: string, values: readonly unknown[]) {
      // `$1` becomes SQLite's numbered `?1`, so a statement may use a parameter twice.
      let sql = texts.get(text);
      if (sql === undefined) texts.set(text, (sql = text.replace(/\$(\d+)/g, '?$1')));
      const result = await client.execute({ sql, args: values as never });
      return result.rows as unknown as T[];
    },
    close: async () => client.close(),
  };
}
