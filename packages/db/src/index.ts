export { createDb, Prisma, type Db, type DbHandle, type CreateDbOptions } from './client';
export { migrate, loadMigrations, type Migration, type MigrationResult } from './migrate';
export { classifyDbError, classifySqliteError, type DbErrorKind } from './errors';
export type { SqlReader } from './reader';
export {
  queryBuilder,
  compileFor,
  encodeParameter,
  selectRows,
  isAnyOf,
  jsonText,
  type Compilable,
  type CompiledQuery,
  type QueryBuilder,
  type RawClient,
  type TableName,
  type Tables,
} from './query';
export { rowDecoder, type ColumnKind, type Row } from './rows';
export type { SqliteStatements, SqliteWriter } from './sqlite-writer';
export { providerOf, type DbProvider } from './url';
export type * from '../generated/sqlite';
