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
    const result = await work(preparedOn(connection));
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

/**
 * A raw client for single statements, each committed on its own: on PostgreSQL the pool itself (no
 * BEGIN/COMMIT around it, unlike Prisma's `updateMany`), on SQLite Prisma's connection (the one writer).
 */
export function autocommitClient(handle: { db: Db; pgPool: pg.Pool | null }): RawClient {
  return handle.pgPool ? preparedOn(handle.pgPool) : (handle.db as unknown as RawClient);
}

/** Raw statements on a pool or one of its connections, prepared by text; timestamps read back as UTC (as the reader and Prisma read them). */
function preparedOn(target: pg.Pool | pg.PoolClient): RawClient {
  return {
    $queryRawUnsafe: async <R>(text: string, ...values: unknown[]) =>
      (await target.query({ ...named(text), values, types: utcTimestamps })).rows as R,
    $executeRawUnsafe: async (text: string, ...values: unknown[]) =>
      (await target.query({ ...named(text), values })).rowCount ?? 0,
  };
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
