import { createClient } from '@libsql/client';
import { Client as PgClient } from 'pg';
import type { DbProvider } from '../../src/url';
import { loadMigrations } from '../../src/migrate';
import { createTestDatabase, type TestDatabase } from '../../src/testing';

/** Runs SQL on a test database; `query` returns the rows of its last statement. */
export async function withDatabase<T>(
  database: TestDatabase,
  use: (run: (sql: string) => Promise<void>, query: (sql: string) => Promise<Record<string, unknown>[]>) => Promise<T>,
): Promise<T> {
  if (database.provider === 'sqlite') {
    const client = createClient({ url: database.url });
    try {
      return await use(
        async (sql) => client.executeMultiple(sql),
        async (sql) => (await client.execute(sql)).rows.map((row) => ({ ...row })),
      );
    } finally {
      client.close();
    }
  }
  const client = new PgClient({ connectionString: database.url });
  await client.connect();
  try {
    return await use(
      async (sql) => {
        await client.query(sql);
      },
      async (sql) => (await client.query(sql)).rows as Record<string, unknown>[],
    );
  } finally {
    await client.end();
  }
}

type Run = (sql: string) => Promise<void>;
type Query = (sql: string) => Promise<Record<string, unknown>[]>;

/**
 * A fresh database migrated up to just before `migrationId`; `use` seeds it with `run`, applies the
 * migration with `migrate` and reads the outcome with `query`. The database is dropped afterwards.
 */
export async function beforeMigration(
  provider: DbProvider,
  migrationId: string,
  use: (run: Run, query: Query, migrate: () => Promise<void>) => Promise<void>,
): Promise<void> {
  const database = await createTestDatabase(provider, { migrate: false });
  try {
    const migrations = loadMigrations(provider);
    const index = migrations.findIndex((m) => m.id === migrationId);
    if (index <= 0) throw new Error(`no migration ${migrationId} after the first`);
    await withDatabase(database, async (run, query) => {
      for (const migration of migrations.slice(0, index)) await run(migration.sql);
      await use(run, query, () => run(migrations[index]!.sql));
    });
  } finally {
    await database.drop();
  }
}
