import Database from 'libsql';
import { sqliteFilePath } from './url';

/**
 * The PRAGMAs every connection that writes must have (they are per connection): writers wait instead
 * of failing, foreign keys are enforced, and a commit in WAL mode does not wait for the disk.
 */
export const WRITER_PRAGMAS = ['busy_timeout = 30000', 'foreign_keys = ON', 'synchronous = NORMAL'] as const;

/** A connection of its own on a SQLite file, beside Prisma's, that keeps its statements prepared. */
export interface SqliteConnection {
  db: Database.Database;
  /** The statement for `text`, prepared once (libSQL's client prepares again on every call). */
  prepared(text: string): Database.Statement;
}

/**
 * Opens the file a `file:` URL names with `pragmas` set. Statements are prepared once per text; at most
 * `maxPrepared` are kept (all are dropped when it is reached).
 */
export function openSqliteConnection(
  url: string,
  pragmas: readonly string[],
  { maxPrepared = Number.POSITIVE_INFINITY } = {},
): SqliteConnection {
  const db = new Database(sqliteFilePath(url));
  for (const pragma of pragmas) db.prepare(`PRAGMA ${pragma}`).all();
  const statements = new Map<string, Database.Statement>();
  return {
    db,
    prepared(text) {
      let statement = statements.get(text);
      if (!statement) {
        if (statements.size >= maxPrepared) statements.clear();
        statements.set(text, (statement = db.prepare(text)));
      }
      return statement;
    },
  };
}
