import type pg from 'pg';
import type { Db } from './client';
import type { RawClient } from './query';
import { utcTimestamps } from './reader';

/**
 * Runs `work` in one transaction of raw statements: on PostgreSQL on a connection of the pool itself
 * (BEGIN … COMMIT, ROLLBACK when `work` throws), on SQLite in a Prisma transaction. A hot path's
 * statements cost a tenth of their CPU this way: Prisma's interactive transaction sends each one
 * through its query engine (decision 0085).
 */
export async function rawTransaction<T>(
  handle: { db: Db; pgPool: pg.Pool | null },
  work: (client: RawClient) => Promise<T>,
): Promise<T> {
  if (!handle.pgPool) return handle.db.$transaction((tx) => work(tx as unknown as RawClient));
  const connection = await handle.pgPool.connect();
  let broken = false;
  try {
    await connection.query('BEGIN');
    const result = await work({
      // Timestamps read back as UTC, as the reader reads them (and Prisma).
      $queryRawUnsafe: async <R>(text: string, ...values: unknown[]) =>
        (await connection.query({ ...named(text), values, types: utcTimestamps })).rows as R,
      $executeRawUnsafe: async (text: string, ...values: unknown[]) =>
        (await connection.query({ ...named(text), values })).rowCount ?? 0,
    });
    await connection.query('COMMIT');
    return result;
  } catch (err) {
    // A connection that cannot even roll back is closed rather than reused (it may be in any state).
    await connection.query('ROLLBACK').catch(() => (broken = true));
    throw err;
  } finally {
    connection.release(broken);
  }
}

/** Prepared once per connection and text, as the reader's are: PostgreSQL parses and plans the hot path's statements once. */
const statementNames = new Map<string, string>();
/** Beyond this many texts (statements built with a varying shape), a statement is sent unnamed. */
const MAX_NAMED_STATEMENTS = 500;

function named(text: string): { text: string; name?: string } {
  let name = statementNames.get(text);
  if (!name && statementNames.size < MAX_NAMED_STATEMENTS)
    statementNames.set(text, (name = `svc_tx_${statementNames.size + 1}`));
  return name ? { text, name } : { text };
}
