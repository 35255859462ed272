import { Prisma } from '../generated/sqlite';
import type { Selectable } from 'kysely';
import type { TableName, Tables } from './query';
import type { DbProvider } from './url';

/** How a column's value must be turned into its row type (the generated table types) after the driver. */
export type ColumnKind = 'date' | 'boolean' | 'json';

type Kinds = ReadonlyMap<string, ColumnKind>;

const KIND_OF_TYPE: Record<string, ColumnKind | undefined> = { DateTime: 'date', Boolean: 'boolean', Json: 'json' };

/** Each table's columns that need decoding, from the Prisma schema (one source with the table types). */
const TABLE_KINDS: ReadonlyMap<string, Kinds> = new Map(
  Prisma.dmmf.datamodel.models.map((model) => [
    model.dbName ?? model.name,
    new Map(
      model.fields.flatMap((field) => {
        const kind = field.kind === 'scalar' ? KIND_OF_TYPE[field.type] : undefined;
        return kind ? [[field.name, kind] as const] : [];
      }),
    ),
  ]),
);

/** A table's row as the builder types it (timestamps as Date, booleans, parsed JSON). */
export type Row<T extends TableName> = Selectable<Tables[T]>;

/**
 * Turns driver rows into the builder's row types. PostgreSQL's driver gives them already (timestamps as
 * Date through the reader's parser, jsonb parsed, booleans); SQLite gives timestamps as ISO text,
 * booleans as 0/1 and JSON as text. `extra` names computed columns (e.g. an EXISTS as `boolean`).
 */
export function rowDecoder(
  provider: DbProvider,
  table: TableName | null,
  extra: Readonly<Record<string, ColumnKind>> = {},
): <R>(row: unknown) => R {
  const kinds = new Map([...(table ? TABLE_KINDS.get(table)! : []), ...Object.entries(extra)]);
  if (provider === 'postgresql') return (row) => row as never;
  // Only the columns of the row that need it; the rest stay as the driver returned them.
  return <R>(raw: unknown) => {
    const row = raw as Record<string, unknown>;
    for (const [column, kind] of kinds) {
      const value = row[column];
      if (value !== null && value !== undefined) row[column] = decodeSqlite(kind, value);
    }
    return row as R;
  };
}

function decodeSqlite(kind: ColumnKind, value: unknown): unknown {
  if (kind === 'date') return new Date(value as string);
  if (kind === 'boolean') return value === 1 || value === true;
  return typeof value === 'string' ? JSON.parse(value) : value;
}

/** A column's type as PostgreSQL's jsonb_to_recordset declares it (query.ts `jsonRecords`). */
export type SqlType = 'text' | 'int' | 'jsonb' | 'boolean' | 'timestamp(3)';

const SQL_TYPE_OF: Record<string, SqlType> = {
  String: 'text',
  Int: 'int',
  Json: 'jsonb',
  Boolean: 'boolean',
  DateTime: 'timestamp(3)',
};

const SQL_TYPES: ReadonlyMap<string, ReadonlyMap<string, SqlType>> = new Map(
  Prisma.dmmf.datamodel.models.map((model) => [
    model.dbName ?? model.name,
    new Map(model.fields.flatMap((field) => (SQL_TYPE_OF[field.type] ? [[field.name, SQL_TYPE_OF[field.type]!]] : []))),
  ]),
);

/** These columns of a table with their types, from the Prisma schema. */
export function columnTypes<T extends TableName>(
  table: T,
  columns: readonly (keyof Tables[T] & string)[],
): Record<string, SqlType> {
  const types = SQL_TYPES.get(table)!;
  return Object.fromEntries(columns.map((column) => [column, types.get(column)!]));
}

/** The stored columns of an LLM call's log row: what the ingest writes and the hot reads select. */
export const LLM_CALL_LOG_COLUMNS = [
  'id',
  'workflow_id',
  'seq',
  'phase',
  'model',
  'prompt_tokens',
  'completion_tokens',
  'latency_ms',
  'step_index',
  'attempt',
  'error',
  'finish_reason',
  'created_at',
] as const satisfies readonly (keyof Tables['llm_call_logs'] & string)[];
