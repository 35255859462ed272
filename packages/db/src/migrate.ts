import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, existsSync } from 'node:fs';
import { join } from 'node:path';
import { createClient, type Client } from '@libsql/client';
import { Client as PgClient } from 'pg';
import { providerOf, sqlText } from './url';

export interface Migration {
  id: string;
  sql: string;
  checksum: string;
}

export interface MigrationResult {
  applied: string[];
  skipped: string[];
}

const MIGRATIONS_ROOT = join(__dirname, '..', 'migrations');
// Any constant works; it only has to be the same for every replica of this service.
const PG_ADVISORY_LOCK_KEY = 7_305_881_001;

export function loadMigrations(provider: 'sqlite' | 'postgresql'): Migration[] {
  const folder = join(MIGRATIONS_ROOT, provider === 'postgresql' ? 'postgres' : 'sqlite');
  if (!existsSync(folder)) return [];
  return readdirSync(folder)
    .filter((entry) => /^\d{4}_[a-z0-9_]+$/.test(entry))
    .sort()
    .map((id) => {
      const sql = readFileSync(join(folder, id, 'migration.sql'), 'utf8');
      return { id, sql, checksum: createHash('sha256').update(sql).digest('hex') };
    });
}

/**
 * Applies pending migrations. Safe when several replicas start together: PostgreSQL serialises them
 * with an advisory lock, SQLite with an immediate (write-locking) transaction; whoever comes second
 * finds the migrations recorded and skips them. A changed, already applied migration is an error.
 */
export async function migrate(url: string): Promise<MigrationResult> {
  const provider = providerOf(url);
  const migrations = loadMigrations(provider);
  return provider === 'sqlite' ? migrateSqlite(url, migrations) : migratePostgres(url, migrations);
}

function checkRecorded(recorded: Map<string, string>, migration: Migration): boolean {
  const checksum = recorded.get(migration.id);
  if (checksum === undefined) return false;
  if (checksum !== migration.checksum) {
    throw new Error(`migration ${migration.id} was changed after it was applied (checksum mismatch)`);
  }
  return true;
}

async function migrateSqlite(url: string, migrations: Migration[]): Promise<MigrationResult> {
  // One connection (the PRAGMAs are per connection): a transaction borrows it and gives it back.
  const client = createClient({ url, concurrency: 1 });
  const result: MigrationResult = { applied: [], skipped: [] };
  try {
    await client.execute('PRAGMA busy_timeout = 30000');
    await client.execute('PRAGMA journal_mode = WAL');
    await client.execute(
      'CREATE TABLE IF NOT EXISTS "_svc_migrations" ("id" TEXT PRIMARY KEY, "checksum" TEXT NOT NULL, "applied_at" TEXT NOT NULL)',
    );
    for (const migration of migrations) {
      if (await applySqlite(client, migration)) result.applied.push(migration.id);
      else result.skipped.push(migration.id);
    }
  } finally {
    client.close();
  }
  return result;
}

/**
 * Applies a migration unless it is recorded already (false then). A write transaction (BEGIN
 * IMMEDIATE) takes the lock up front; a second replica waits for it and then finds the migration
 * recorded. The migration and its record are one script in that transaction: applied whole or not at all.
 */
async function applySqlite(client: Client, migration: Migration): Promise<boolean> {
  const tx = await client.transaction('write');
  try {
    const rows = await tx.execute('SELECT "id", "checksum" FROM "_svc_migrations"');
    const recorded = new Map(rows.rows.map((row) => [String(row.id), String(row.checksum)]));
    if (checkRecorded(recorded, migration)) {
      await tx.rollback();
      return false;
    }
    await tx.executeMultiple(
      `${migration.sql}\n;\nINSERT INTO "_svc_migrations" ("id", "checksum", "applied_at") VALUES (${sqlText(migration.id)}, ${sqlText(migration.checksum)}, ${sqlText(new Date().toISOString())});`,
    );
    await tx.commit();
    return true;
  } catch (err) {
    await tx.rollback();
    throw err;
  }
}

async function migratePostgres(url: string, migrations: Migration[]): Promise<MigrationResult> {
  const client = new PgClient({ connectionString: url });
  const result: MigrationResult = { applied: [], skipped: [] };
  await client.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [PG_ADVISORY_LOCK_KEY]);
    await client.query(
      'CREATE TABLE IF NOT EXISTS "_svc_migrations" ("id" TEXT PRIMARY KEY, "checksum" TEXT NOT NULL, "applied_at" TIMESTAMPTZ NOT NULL DEFAULT now())',
    );
    const rows = await client.query<{ id: string; checksum: string }>('SELECT "id", "checksum" FROM "_svc_migrations"');
    const recorded = new Map(rows.rows.map((row) => [row.id, row.checksum]));
    for (const migration of migrations) {
      if (checkRecorded(recorded, migration)) {
        result.skipped.push(migration.id);
        continue;
      }
      await client.query('BEGIN');
      try {
        await client.query(migration.sql);
        await client.query('INSERT INTO "_svc_migrations" ("id", "checksum") VALUES ($1, $2)', [
          migration.id,
          migration.checksum,
        ]);
        await client.query('COMMIT');
      } catch (error) {
        await client.query('ROLLBACK');
        throw error;
      }
      result.applied.push(migration.id);
    }
  } finally {
    await client.query('SELECT pg_advisory_unlock($1)', [PG_ADVISORY_LOCK_KEY]).catch(() => undefined);
    await client.end();
  }
  return result;
}
