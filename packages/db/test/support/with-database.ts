import { createClient } from '@libsql/client';
import { Client as PgClient } from 'pg';
import type { TestDatabase } from '../../src/testing';

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
