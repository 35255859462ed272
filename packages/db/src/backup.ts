import { createClient } from '@libsql/client';
import { Client as PgClient } from 'pg';
import { providerOf, sqlText } from './url';

/**
 * The database side of backup and restore (apps/api/src/backup): a SQLite snapshot, the migration level,
 * and what a target database already holds. PostgreSQL dumps are taken by `pg_dump` (a process), not here.
 */

/**
 * A transactionally consistent copy of a live SQLite database in `target` (which must not exist):
 * `VACUUM INTO` reads in one read transaction, so writers go on (WAL) and the copy is one point in time.
 */
export async function snapshotSqlite(url: string, target: string): Promise<void> {
  const client = createClient({ url, concurrency: 1 });
  try {
    await client.execute('PRAGMA busy_timeout = 30000');
    await client.execute(`VACUUM INTO ${sqlText(target)}`);
  } finally {
    client.close();
  }
}

/** The ids of the applied migrations, in order (empty when the database was never migrated). */
export async function appliedMigrations(url: string): Promise<string[]> {
  const sql = 'SELECT "id" FROM "_svc_migrations" ORDER BY "id"';
  try {
    if (providerOf(url) === 'sqlite') {
      const client = createClient({ url, concurrency: 1 });
      try {
        return (await client.execute(sql)).rows.map((row) => String(row.id));
      } finally {
        client.close();
      }
    }
    return (await withPg(url, (client) => client.query<{ id: string }>(sql))).rows.map((row) => row.id);
  } catch (error) {
    if (/no such table|does not exist/i.test(String(error))) return [];
    throw error;
  }
}

export interface DatabaseContents {
  /** tables of the schema (0: a fresh database) */
  tables: number;
  users: number;
  projects: number;
}

/** What a database holds: an installation is empty when it has no users and no projects. */
export async function databaseContents(url: string): Promise<DatabaseContents> {
  if (providerOf(url) === 'sqlite') {
    const client = createClient({ url, concurrency: 1 });
    try {
      const names = (await client.execute("SELECT name FROM sqlite_master WHERE type = 'table'")).rows.map((row) =>
        String(row.name),
      );
      const count = async (table: string) =>
        names.includes(table) ? Number((await client.execute(`SELECT COUNT(*) AS n FROM "${table}"`)).rows[0]?.n) : 0;
      return { tables: names.length, users: await count('users'), projects: await count('projects') };
    } finally {
      client.close();
    }
  }
  return withPg(url, async (client) => {
    const tables = (
      await client.query<{ name: string }>(
        "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE'",
      )
    ).rows.map((row) => row.name);
    const count = async (table: string) =>
      tables.includes(table)
        ? Number((await client.query<{ n: string }>(`SELECT COUNT(*) AS n FROM "${table}"`)).rows[0]?.n)
        : 0;
    return { tables: tables.length, users: await count('users'), projects: await count('projects') };
  });
}

async function withPg<T>(url: string, use: (client: PgClient) => Promise<T>): Promise<T> {
  const client = new PgClient({ connectionString: url });
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
