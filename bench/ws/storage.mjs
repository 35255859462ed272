// What a bench run's rows take on disk: the SQLite file (after a WAL checkpoint) or the PostgreSQL
// tables with their indexes and TOAST, so the growth during a run divided by the payload the workers
// sent gives the bytes stored per byte of payload.
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { repoRoot } from '../lib/server-process.mjs';

const require = createRequire(join(repoRoot, 'apps/api/package.json'));

/** Bytes the database takes now, and per table (data + indexes) where the database can say. */
export async function storedBytes(databaseUrl) {
  const { createDb } = require('@svc/db');
  const { db, provider, close } = await createDb({ url: databaseUrl, poolSize: 1 });
  try {
    if (provider === 'sqlite') {
      await db.$queryRawUnsafe('PRAGMA wal_checkpoint(TRUNCATE)');
      const [{ page_count }] = await db.$queryRawUnsafe('PRAGMA page_count');
      const [{ page_size }] = await db.$queryRawUnsafe('PRAGMA page_size');
      return { total: Number(page_count) * Number(page_size), tables: await sqliteTables(db) };
    }
    const rows = await db.$queryRawUnsafe(
      `SELECT c.relname::text AS name, pg_total_relation_size(c.oid)::bigint AS bytes FROM pg_class c
       JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = 'public' AND c.relkind = 'r'`,
    );
    const tables = Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)]));
    return { total: Object.values(tables).reduce((a, b) => a + b, 0), tables };
  } finally {
    await close();
  }
}

/** Per table and its indexes, from the dbstat virtual table when the SQLite build has it. */
async function sqliteTables(db) {
  try {
    const rows = await db.$queryRawUnsafe(
      `SELECT COALESCE(m.tbl_name, s.name) AS name, SUM(s.pgsize) AS bytes FROM dbstat s
       LEFT JOIN sqlite_schema m ON m.name = s.name GROUP BY 1`,
    );
    return Object.fromEntries(rows.map((r) => [r.name, Number(r.bytes)]));
  } catch {
    return {};
  }
}

/** Growth per table between two `storedBytes` readings, biggest first, only tables that grew. */
export function growth(before, after) {
  return Object.entries(after.tables)
    .map(([name, bytes]) => [name, bytes - (before.tables[name] ?? 0)])
    .filter(([, bytes]) => bytes > 0)
    .sort((a, b) => b[1] - a[1]);
}
