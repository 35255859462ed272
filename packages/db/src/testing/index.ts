import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client as PgClient } from 'pg';
import { createDb, type CreateDbOptions, type DbHandle } from '../client';
import { migrate } from '../migrate';
import type { DbProvider } from '../url';
import { TEST_POSTGRES_URL } from './env';

export interface TestDatabase {
  provider: DbProvider;
  url: string;
  drop(): Promise<void>;
}

export const TEST_PROVIDERS: DbProvider[] = ['sqlite', 'postgresql'];

/** A fresh, empty, migrated database for one test file: a temp SQLite file or a new PostgreSQL database. */
export async function createTestDatabase(
  provider: DbProvider,
  options: { migrate?: boolean } = {},
): Promise<TestDatabase> {
  const database = provider === 'sqlite' ? createSqliteDatabase() : await createPostgresDatabase();
  if (options.migrate !== false) await migrate(database.url);
  return database;
}

/** A fresh migrated test database and a handle on it; `close` closes the handle, then drops the database. */
export interface TestDb {
  handle: DbHandle;
  url: string;
  close(): Promise<void>;
}

export async function openTestDb(provider: DbProvider, options: Omit<CreateDbOptions, 'url'> = {}): Promise<TestDb> {
  const database = await createTestDatabase(provider);
  const handle = await createDb({ ...options, url: database.url });
  return {
    handle,
    url: database.url,
    close: async () => {
      await handle.close();
      await database.drop();
    },
  };
}

function createSqliteDatabase(): TestDatabase {
  const dir = mkdtempSync(join(tmpdir(), 'svc-test-db-'));
  return {
    provider: 'sqlite',
    url: `file:${join(dir, 'svc.db')}`,
    drop: async () => rmSync(dir, { recursive: true, force: true }),
  };
}

async function createPostgresDatabase(): Promise<TestDatabase> {
  const name = `svc_test_${randomBytes(6).toString('hex')}`;
  const admin = new PgClient({ connectionString: TEST_POSTGRES_URL });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(TEST_POSTGRES_URL);
  url.pathname = `/${name}`;
  return {
    provider: 'postgresql',
    url: url.toString(),
    drop: async () => {
      const client = new PgClient({ connectionString: TEST_POSTGRES_URL });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}
