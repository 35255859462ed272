export { createDb, Prisma, type Db, type DbHandle, type CreateDbOptions } from './client';
export { migrate, loadMigrations, type Migration, type MigrationResult } from './migrate';
export {
  classifyDbError,
  classifyAnyDbError,
  classifySqliteError,
  classifyPgError,
  isTransientDbError,
  type DbErrorKind,
} from './errors';
export type { ReadOptions, SqlReader } from './reader';
export {
  queryBuilder,
  compileFor,
  prepare,
  encodeParameter,
  selectRows,
  executeQuery,
  sql,
  isAnyOf,
  jsonText,
  jsonRecords,
  type Compilable,
  type CompiledQuery,
  type Prepared,
  type Runnable,
  type Statement,
  type Expression,
  type ExpressionBuilder,
  type RawBuilder,
  type JoinBuilder,
  type SelectQueryBuilder,
  type SqlBool,
  type QueryBuilder,
  type RawClient,
  type TableName,
  type Tables,
} from './query';
export { rowDecoder, columnTypes, LLM_CALL_LOG_COLUMNS, type ColumnKind, type Row, type SqlType } from './rows';
export type { SqliteStatements, SqliteWriter } from './sqlite-writer';
export { providerOf, sqliteFilePath, type DbProvider } from './url';
export { autocommitClient, rawTransaction } from './transaction';
export { appliedMigrations, databaseContents, snapshotSqlite, type DatabaseContents } from './backup';
export type * from '../generated/sqlite';
