import { PrismaPg } from '@prisma/adapter-pg';
import { setTimeout as delay } from 'node:timers/promises';
import pg from 'pg';
import { Prisma as SqlitePrisma, PrismaClient as SqliteClient } from '../generated/sqlite';
import { PrismaClient as PostgresClient } from '../generated/postgres';
import { SingleConnectionPrismaLibSQL } from './libsql';
import { providerOf, type DbProvider } from './url';
import { postgresReader, sqliteReader, type SqlReader } from './reader';
import { sqliteWriter, type SqliteWriter } from './sqlite-writer';
import { WRITER_PRAGMAS } from './sqlite-connection';

/**
 * The database client. Both generated clients expose the same model API (one schema source), so the
 * SQLite client's type stands for both.
 */
export type Db = SqliteClient;
export { SqlitePrisma as Prisma };

export interface DbHandle {
  db: Db;
  provider: DbProvider;
  /** Plain reads on the driver beside Prisma, for hot paths (see reader.ts). */
  reader: SqlReader;
  /** PostgreSQL: the pool Prisma runs on, shared with raw statements beside it; null on SQLite. */
  pgPool: pg.Pool | null;
  /** SQLite: raw write transactions beside Prisma, for hot paths (see sqlite-writer.ts); null on PostgreSQL. */
  sqliteWriter: SqliteWriter | null;
  close(): Promise<void>;
}

export interface CreateDbOptions {
  url: string;
  /** PostgreSQL pool size; SQLite uses one connection. */
  poolSize?: number;
  /**
   * PostgreSQL: how long `close` waits for connections still checked out before it closes them. Prisma
   * can leave one checked out for good when it disconnects during a write (its transaction is never
   * ended); waiting for it would hang shutdown.
   */
  closeGraceMs?: number;
  /**
   * PostgreSQL: how long a query waits for a connection (a free one in the pool, or a new one to open)
   * before it fails as unavailable (503), instead of waiting for good on a server that does not answer.
   */
  connectTimeoutMs?: number;
}

const CLOSE_GRACE_MS = 10_000;
const CONNECT_TIMEOUT_MS = 10_000;

export async function createDb({
  url,
  poolSize = 10,
  closeGraceMs = CLOSE_GRACE_MS,
  connectTimeoutMs = CONNECT_TIMEOUT_MS,
}: CreateDbOptions): Promise<DbHandle> {
  const provider = providerOf(url);
  if (provider === 'sqlite') {
    // One connection for the client's life (see libsql.ts), so the per-connection PRAGMAs below hold
    // for every statement.
    const adapter = new SingleConnectionPrismaLibSQL({ url });
    const db = new SqliteClient({ adapter });
    // WAL lets readers run beside the writer; the busy timeout makes writers wait instead of failing.
    await db.$queryRawUnsafe('PRAGMA journal_mode = WAL');
    for (const pragma of WRITER_PRAGMAS) await db.$queryRawUnsafe(`PRAGMA ${pragma}`);
    const reader = sqliteReader(url);
    const writer = sqliteWriter(url, () => adapter.whenIdle());
    return {
      db,
      provider,
      reader,
      pgPool: null,
      sqliteWriter: writer,
      close: async () => {
        await reader.close();
        writer.close();
        await db.$disconnect();
      },
    };
  }
  // One pool for Prisma, the reader and the ingest's raw statements.
  const pool = new pg.Pool({ connectionString: url, max: poolSize, connectionTimeoutMillis: connectTimeoutMs });
  // An idle connection that breaks is dropped by the pool; the next query opens a new one.
  pool.on('error', () => undefined);
  const connections = new Set<pg.PoolClient>();
  pool.on('connect', (connection) => {
    connections.add(connection);
    // A connection checked out when the server ends it (57P01 on a shutdown, "unexpected postmaster
    // exit" on a crash) emits 'error' with no pool listener attached: unhandled, it would crash the
    // process. Its query in flight, or its next one, fails instead, and its user releases it broken.
    connection.on('error', () => undefined);
  });
  pool.on('remove', (connection) => connections.delete(connection));
  // The pool is ours to end (below), whether or not Prisma ever connected.
  const client = new PostgresClient({ adapter: new PrismaPg(pool) });
  const db = client as unknown as Db;
  const close = async () => {
    const settlesInTime = (work: Promise<unknown>) =>
      Promise.race([work.then(succeeded, succeeded), delay(closeGraceMs, false, { ref: false })]);
    const settled = (await settlesInTime(client.$disconnect())) && (await settlesInTime(pool.end()));
    // Still checked out: released as broken, the pool closes them and PostgreSQL rolls back what they left open.
    if (!settled)
      for (const connection of connections) {
        try {
          connection.release(true);
        } catch {
          // already released meanwhile
        }
      }
  };
  return { db, provider, reader: postgresReader(pool), pgPool: pool, sqliteWriter: null, close };
}

const succeeded = () => true;
