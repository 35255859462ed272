import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
  sql,
  SqliteAdapter,
  SqliteIntrospector,
  SqliteQueryCompiler,
  type Compilable,
  type CompiledQuery,
  type Expression,
  type ExpressionBuilder,
  type JoinBuilder,
  type RawBuilder,
  type SelectQueryBuilder,
  type SqlBool,
} from 'kysely';

export { sql };
import type { DB } from '../generated/kysely/types';
import type { SqlType } from './rows';
import type { DbProvider } from './url';

/** The tables as the query builder sees them, generated from the Prisma schema (prisma-kysely). */
export type Tables = DB;
export type TableName = keyof DB & string;
/** The typed query builder of hand-written statements (the statements Prisma's model API cannot say). */
export type QueryBuilder = Kysely<DB>;
export type {
  Compilable,
  CompiledQuery,
  Expression,
  ExpressionBuilder,
  JoinBuilder,
  RawBuilder,
  SelectQueryBuilder,
  SqlBool,
};

/**
 * Builds statements for one database. It only compiles (SQL text + parameters): they run on the
 * connections tuned for their path (SqlReader, SqliteWriter, the ingest's write lane, a Prisma
 * transaction through `RawClient`), so the builder adds no connection handling of its own.
 */
export function queryBuilder(provider: DbProvider): QueryBuilder {
  return builders[provider];
}

function compileOnly(provider: DbProvider): QueryBuilder {
  const postgres = provider === 'postgresql';
  return new Kysely<DB>({
    dialect: {
      createAdapter: () => (postgres ? new PostgresAdapter() : new SqliteAdapter()),
      createDriver: () => new DummyDriver(),
      createIntrospector: (db) => (postgres ? new PostgresIntrospector(db) : new SqliteIntrospector(db)),
      createQueryCompiler: () => (postgres ? new PostgresQueryCompiler() : new SqliteQueryCompiler()),
    },
  });
}

const builders: Record<DbProvider, QueryBuilder> = {
  postgresql: compileOnly('postgresql'),
  sqlite: compileOnly('sqlite'),
};

/**
 * A parameter as the database's driver takes it. Timestamps as ISO text in UTC (`+00:00` on SQLite,
 * as Prisma stores them there); on SQLite booleans as 0/1 and JSON values as text.
 */
export function encodeParameter(provider: DbProvider, value: unknown): unknown {
  if (value instanceof Date)
    return provider === 'sqlite' ? value.toISOString().replace('Z', '+00:00') : value.toISOString();
  if (provider === 'postgresql') return value;
  if (typeof value === 'boolean') return value ? 1 : 0;
  if (value !== null && typeof value === 'object' && !Buffer.isBuffer(value)) return JSON.stringify(value);
  return value;
}

/** A statement's text and its parameters as the driver takes them (see `encodeParameter`). */
export interface Statement {
  readonly sql: string;
  readonly values: unknown[];
}

/** What the executors run: a builder statement (compiled at the call) or a bound prepared one. */
export type Runnable = Compilable<unknown> | Statement;

/** A statement's text and its parameters encoded for the driver. */
export function compileFor(provider: DbProvider, query: Runnable): Statement {
  if (!('compile' in query)) return query;
  const compiled = query.compile();
  return { sql: compiled.sql, values: compiled.parameters.map((value) => encodeParameter(provider, value)) };
}

/** Stands for a value given at each run of a prepared statement. */
class Slot {
  constructor(readonly name: string) {}
}

/** A statement built and compiled once; `bind` gives it with the values of one run. */
export interface Prepared<A> {
  readonly sql: string;
  bind(args: A): Statement;
}

/**
 * Builds and compiles a statement once: `build` gets `arg(name)`, a stand-in for a value given at each
 * run. A hot path then pays for the builder once, not per call (about 30 µs a statement).
 */
export function prepare<A extends Record<string, unknown>>(
  provider: DbProvider,
  build: (arg: <K extends keyof A & string>(name: K) => A[K]) => Compilable<unknown>,
): Prepared<A> {
  const compiled = build((name) => new Slot(name) as never).compile();
  const parts = compiled.parameters.map((value) =>
    value instanceof Slot ? value : { constant: encodeParameter(provider, value) },
  );
  return {
    sql: compiled.sql,
    bind: (args) => ({
      sql: compiled.sql,
      values: parts.map((part) => (part instanceof Slot ? encodeParameter(provider, args[part.name]) : part.constant)),
    }),
  };
}

/** What a Prisma client, its interactive transaction and the ingest's raw `pg` connections offer for raw statements. */
export interface RawClient {
  $queryRawUnsafe<T = unknown>(query: string, ...values: unknown[]): Promise<T>;
  $executeRawUnsafe(query: string, ...values: unknown[]): Promise<number>;
}

/** Runs a builder statement on a raw client; rows as the driver returns them. */
export function selectRows<R>(client: RawClient, provider: DbProvider, query: Compilable<R> | Statement): Promise<R[]> {
  const { sql: text, values } = compileFor(provider, query);
  return client.$queryRawUnsafe<R[]>(text, ...values);
}

/** Runs a builder statement that returns no rows on a raw client; how many rows it changed. */
export function executeQuery(client: RawClient, provider: DbProvider, query: Runnable): Promise<number> {
  const { sql: text, values } = compileFor(provider, query);
  return client.$executeRawUnsafe(text, ...values);
}

/**
 * `column` is one of the texts in `values`, with ONE parameter for the whole list so the statement's
 * text is the same for any number of them (a prepared statement per text): a text array on
 * PostgreSQL, a JSON array unpacked by json_each on SQLite (`encodeParameter` writes it).
 */
export function isAnyOf(
  provider: DbProvider,
  column: Expression<unknown>,
  values: readonly string[],
): RawBuilder<SqlBool> {
  return provider === 'sqlite'
    ? sql<SqlBool>`${column} IN (SELECT value FROM json_each(${sql.val(values)}))`
    : sql<SqlBool>`${column} = ANY(${sql.val(values)}::text[])`;
}

/** A JSON document's top-level field as text (`->>` on PostgreSQL, json_extract on SQLite). */
export function jsonText(provider: DbProvider, column: Expression<unknown>, field: string): RawBuilder<string | null> {
  return provider === 'sqlite'
    ? sql<string | null>`json_extract(${column}, ${sql.lit(`$.${field}`)})`
    : sql<string | null>`${column}->>${sql.lit(field)}`;
}

/**
 * Rows passed as ONE JSON parameter and unpacked by the database into a table with `columns` (a
 * derived table to alias with `.as`): jsonb_to_recordset on PostgreSQL, json_each on SQLite. A batch
 * of any size is one statement with one parameter, and its text does not change with the size.
 * Timestamps must be given as `encodeParameter` text (a Date would be written in JSON's own form).
 */
export function jsonRecords<R>(
  provider: DbProvider,
  columns: Readonly<Record<string, SqlType>>,
  /** the rows as one JSON array (a string, or a prepared statement's `arg`) */
  json: string,
): RawBuilder<R> {
  const names = Object.keys(columns);
  if (provider === 'postgresql') {
    const record = names.map((name) => sql`${sql.id(name)} ${sql.raw(columns[name]!)}`);
    return sql<R>`(SELECT * FROM jsonb_to_recordset(${sql.val(json)}::jsonb) AS x(${sql.join(record)}))`;
  }
  const fields = names.map((name) => sql`json_extract(value, ${sql.lit(`$.${name}`)}) AS ${sql.id(name)}`);
  return sql<R>`(SELECT ${sql.join(fields)} FROM json_each(${sql.val(json)}))`;
}
