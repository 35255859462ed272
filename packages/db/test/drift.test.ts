import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createClient } from '@libsql/client';
import { Client as PgClient } from 'pg';
import { createTestDatabase, TEST_PROVIDERS, type TestDatabase } from '../src/testing';
import { TEST_POSTGRES_URL } from '../src/testing/env';

const root = join(__dirname, '..');
const prisma = join(root, 'node_modules/.bin/prisma');
const dirOf = (provider: string) => (provider === 'postgresql' ? 'postgres' : 'sqlite');
// The CLI's SQLite adapter needs a file it can create; the diff itself does not touch it.
const cliUrl = (provider: string) =>
  provider === 'postgresql' ? TEST_POSTGRES_URL : `file:${join(tmpdir(), `svc-drift-${process.pid}.db`)}`;

function migrateDiff(provider: string, fromArgs: string[]): string {
  return execFileSync(
    prisma,
    [
      'migrate',
      'diff',
      '--config',
      `prisma.${dirOf(provider)}.config.ts`,
      ...fromArgs,
      '--to-schema-datamodel',
      `prisma/${dirOf(provider)}/schema.prisma`,
      '--script',
    ],
    {
      cwd: root,
      env: { ...process.env, DATABASE_URL: cliUrl(provider) },
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
}

// Objects Prisma cannot describe, written by hand: search (migrations 0023 and 0034, decisions 0063 and
// 0087) and the routing notices' partial index (migration 0033, decision 0086).
const HAND_WRITTEN = /^(column|index|constraint) (workflow_search|workflows_waiting_reason_idx)/;

/** Tables, columns (type, nullability, default), keys and indexes, as the database itself reports them. */
async function structureOf(database: TestDatabase): Promise<string[]> {
  return (await everythingIn(database)).filter((line) => !HAND_WRITTEN.test(line));
}

async function everythingIn(database: TestDatabase): Promise<string[]> {
  if (database.provider === 'sqlite') {
    const client = createClient({ url: database.url });
    try {
      // Columns by name, as on PostgreSQL: ALTER TABLE ADD COLUMN appends, so their order (and the
      // stored CREATE TABLE text) differs from a fresh database without any difference that matters.
      const columns = await client.execute(
        `SELECT m.name AS tbl, c.name, c.type, c."notnull", c.dflt_value, c.pk
           FROM sqlite_master m JOIN pragma_table_info(m.name) c
          WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name <> '_svc_migrations'
          ORDER BY m.name, c.name`,
      );
      const foreignKeys = await client.execute(
        `SELECT m.name AS tbl, f."from", f."table", f."to", f.on_update, f.on_delete
           FROM sqlite_master m JOIN pragma_foreign_key_list(m.name) f
          WHERE m.type = 'table' AND m.name NOT LIKE 'sqlite_%' AND m.name <> '_svc_migrations'
          ORDER BY m.name, f."from"`,
      );
      const indexes = await client.execute(
        `SELECT name, sql FROM sqlite_master WHERE type = 'index' AND name NOT LIKE 'sqlite_%' ORDER BY name`,
      );
      return [
        ...columns.rows.map((r) => `column ${r.tbl}.${r.name} ${r.type} ${r.notnull} ${r.dflt_value} ${r.pk}`),
        ...foreignKeys.rows.map((r) => `fk ${r.tbl}.${r.from} ${r.table}.${r.to} ${r.on_update} ${r.on_delete}`),
        ...indexes.rows.map((r) => `index ${r.name} ${String(r.sql ?? '').replace(/\s+/g, ' ')}`),
      ];
    } finally {
      client.close();
    }
  }
  const client = new PgClient({ connectionString: database.url });
  await client.connect();
  try {
    const columns = await client.query(
      `SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns
       WHERE table_schema = 'public' AND table_name <> '_svc_migrations' ORDER BY table_name, column_name`,
    );
    const indexes = await client.query(
      `SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' AND tablename <> '_svc_migrations' ORDER BY indexname`,
    );
    const constraints = await client.query(
      `SELECT conname, pg_get_constraintdef(oid) AS def FROM pg_constraint WHERE connamespace = 'public'::regnamespace ORDER BY conname`,
    );
    return [
      ...columns.rows.map(
        (r) => `column ${r.table_name}.${r.column_name} ${r.data_type} ${r.is_nullable} ${r.column_default}`,
      ),
      ...indexes.rows.map((r) => `index ${r.indexname} ${r.indexdef}`),
      ...constraints.rows
        .filter((r) => !String(r.conname).startsWith('_svc'))
        .map((r) => `constraint ${r.conname} ${r.def}`),
    ];
  } finally {
    await client.end();
  }
}

async function applyScript(database: TestDatabase, sql: string): Promise<void> {
  if (database.provider === 'sqlite') {
    const client = createClient({ url: database.url });
    await client.executeMultiple(sql);
    client.close();
    return;
  }
  const client = new PgClient({ connectionString: database.url });
  await client.connect();
  await client.query(sql);
  await client.end();
}

// The Prisma CLI takes several seconds per diff on a busy machine.
jest.setTimeout(120_000);

describe('schema and migrations stay in sync', () => {
  it('has provider schemas generated from schema.source.prisma', () => {
    expect(() =>
      execFileSync(process.execPath, ['scripts/schemas.mjs', '--check'], { cwd: root, stdio: 'pipe' }),
    ).not.toThrow();
  });

  describe.each(TEST_PROVIDERS)('on %s', (provider) => {
    it('has no schema change since the last migration', () => {
      const sql = migrateDiff(provider, [
        '--from-schema-datamodel',
        `migrations/${dirOf(provider)}/schema.snapshot.prisma`,
      ]);
      expect(sql).toMatch(/empty migration/);
    });

    it('builds the same database from the migrations as from the schema itself', async () => {
      const migrated = await createTestDatabase(provider);
      const direct = await createTestDatabase(provider, { migrate: false });
      try {
        await applyScript(direct, migrateDiff(provider, ['--from-empty']));
        const [fromMigrations, fromSchema] = await Promise.all([structureOf(migrated), structureOf(direct)]);
        expect(fromMigrations.length).toBeGreaterThan(20);
        expect(fromMigrations).toEqual(fromSchema);
      } finally {
        await Promise.all([migrated.drop(), direct.drop()]);
      }
    });
  });
});
