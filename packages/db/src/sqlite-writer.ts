import type Database from 'libsql';
import { openSqliteConnection, WRITER_PRAGMAS } from './sqlite-connection';
import { compileFor, type Runnable } from './query';

/** Runs query builder statements inside a writer transaction, synchronously. */
export interface SqliteStatements {
  /** a statement that returns rows (e.g. `… RETURNING`), as the driver returns them */
  all(query: Runnable): unknown[];
  run(query: Runnable): void;
}

/**
 * Raw write transactions for the hot write path (issue 11): through Prisma every statement of a batch
 * went through its query compiler with the batch's JSON parameters (about a third of a busy server's
 * CPU), and libSQL's client prepared each statement again on every call.
 */
export interface SqliteWriter {
  /**
   * Runs `work` in one transaction (BEGIN IMMEDIATE … COMMIT; ROLLBACK when it throws) and returns
   * what it returns. Errors are libSQL's (`code` `SQLITE_…`; see classifySqliteError).
   */
  transaction<T>(work: (statements: SqliteStatements) => T): Promise<T>;
  close(): void;
}

/** Prepared statements kept per text; the hot path has a handful, so this only bounds a surprise. */
const MAX_PREPARED = 64;

/**
 * A writer on a connection of its own beside Prisma's one connection, with its per-connection PRAGMAs.
 * SQLite has one writer at a time: a transaction here starts only while Prisma's connection has no
 * transaction open (one there could have read before this commit and then fail to write), and runs
 * to its end synchronously, so nothing on the event loop can begin one in between.
 */
export function sqliteWriter(url: string, prismaIdle: () => Promise<void>): SqliteWriter {
  const { db, prepared } = openSqliteConnection(url, WRITER_PRAGMAS, { maxPrepared: MAX_PREPARED });
  const statement = (query: Runnable) => {
    const { sql, values } = compileFor('sqlite', query);
    return { prepared: prepared(sql), values };
  };
  const statements: SqliteStatements = {
    all: (query) => {
      const { prepared, values } = statement(query);
      return prepared.all(values) as unknown[];
    },
    run: (query) => {
      const { prepared, values } = statement(query);
      prepared.run(values);
    },
  };
  return {
    async transaction<T>(work: (s: SqliteStatements) => T): Promise<T> {
      await prismaIdle();
      return inTransaction(db, () => work(statements));
    },
    close: () => db.close(),
  };
}

/**
 * BEGIN IMMEDIATE … COMMIT, and ROLLBACK when `work` (or the COMMIT) throws, unless SQLite has rolled
 * back itself: it does on SQLITE_FULL, and libSQL's own `transaction()` then fails its ROLLBACK with
 * "cannot rollback - no transaction is active" (plain SQLITE_ERROR), hiding the full disk behind it.
 */
function inTransaction<T>(db: Database.Database, work: () => T): T {
  db.exec('BEGIN IMMEDIATE');
  try {
    const result = work();
    db.exec('COMMIT');
    return result;
  } catch (err) {
    if (db.inTransaction) db.exec('ROLLBACK');
    throw err;
  }
}
