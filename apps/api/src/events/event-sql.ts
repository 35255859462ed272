import {
  columnTypes,
  encodeParameter,
  executeQuery,
  jsonRecords,
  queryBuilder,
  selectRows,
  prepare,
  sql,
  type SqlBool,
  type Compilable,
  type Prepared,
  type DbProvider,
  type QueryBuilder,
  type RawClient,
  type SqliteWriter,
  type TableName,
  type Tables,
} from '@svc/db';

export type { RawClient };

/** Rows for one table, written in the same atomic step as the events (e.g. a batch's log entries). */
export interface TableRows<T extends TableName = TableName> {
  table: T;
  /** the columns each row gives (their types come from the schema) */
  columns: readonly (keyof Tables[T] & string)[];
  rows: object[];
  /**
   * The rows replace those with the same `key` (a small table of current values, e.g. plan step times):
   * every other column takes the new value, except that a null in `keepWhenNull` keeps the stored one.
   * At most one row per key in a batch.
   */
  upsert?: { key: readonly string[]; keepWhenNull: readonly string[] };
}

/** One workflow's share of an append: how many events it reserves, and the highest worker-update seq (0: none). */
export interface EventCounter {
  id: string;
  n: number;
  max_seq: number;
}

/** An event row before its seq is known: the `ord`-th (1-based) of the workflow's `n` events in this append. */
export interface EventRow {
  workflow_id: string;
  ord: number;
  n: number;
  type: string;
  data: unknown;
}

type Counted = { id: string; last_event_seq: number };
type EventRecord = EventRow & { created_at: string };

const COUNTER_COLUMNS = { id: 'text', n: 'int', max_seq: 'int' } as const;
const EVENT_COLUMNS = {
  workflow_id: 'text',
  ord: 'int',
  n: 'int',
  type: 'text',
  data: 'jsonb',
  created_at: 'timestamp(3)',
} as const;

/**
 * The query builder with `c`, the workflows' counters after the append (id, last_event_seq): on SQLite
 * the workflow rows the counter update already raised, on PostgreSQL that update itself.
 */
const withCounters = (builder: QueryBuilder) =>
  builder.with('c', (db) => db.selectFrom('workflows').select(['id', 'last_event_seq']));
type WithCounters = ReturnType<typeof withCounters>;

/** A statement's JSON parameters by name: `counters`, `events`, and `t0`… for the tables in order. */
type JsonArgs = Record<string, string>;

/**
 * The one writer of `events` rows and of the per-workflow seq counter. The counter UPDATE locks the
 * workflow rows, so concurrent appends to one workflow serialise and seqs stay gap-free. Each table's
 * rows travel as ONE JSON parameter that the database unpacks (`jsonRecords`), so an append costs a
 * few statements however many rows it holds; on PostgreSQL it is one statement (data-modifying CTEs),
 * on SQLite (which has none) the same statements one after another in a transaction. Each statement
 * is built once (`prepare`) per set of tables it writes.
 */
export class EventSql {
  private readonly builder: QueryBuilder;
  private readonly prepared = new Map<string, Prepared<JsonArgs>>();

  constructor(
    private readonly provider: DbProvider,
    /** SQLite: what a batch outside a caller's transaction is written through (see sqlite-writer.ts) */
    private readonly sqliteWriter: SqliteWriter | null,
  ) {
    this.builder = queryBuilder(provider);
  }

  /**
   * Reserves the seqs (last_event_seq += n, last_update_seq raised to max_seq), inserts `tables` and the
   * events with seq = reserved last - n + ord, atomically. `inTransaction`: the caller already runs a
   * transaction on `db`. Returns each workflow's new last_event_seq.
   */
  async write(
    db: RawClient,
    counters: EventCounter[],
    tables: TableRows[],
    events: EventRow[],
    at: Date,
    inTransaction: boolean,
  ): Promise<Map<string, number>> {
    const stamp = encodeParameter(this.provider, at) as string;
    const stamped = (list: object[]) => JSON.stringify(list.map((r) => ({ ...r, created_at: stamp })));
    const filled = tables.filter((t) => t.rows.length > 0);
    const args: JsonArgs = { counters: JSON.stringify(counters), events: stamped(events) };
    filled.forEach((t, i) => (args[`t${i}`] = stamped(t.rows)));
    const result =
      this.provider === 'postgresql'
        ? await selectRows<Counted>(db, this.provider, this.postgresAppend(filled, events.length > 0).bind(args))
        : await this.writeSqlite(db, filled, events.length > 0, args, inTransaction);
    return new Map(result.map((r) => [r.id, Number(r.last_event_seq)]));
  }

  /** The statement `key` names, built by `build` the first time. */
  private once(key: string, build: (arg: (name: string) => string) => Compilable<unknown>): Prepared<JsonArgs> {
    let statement = this.prepared.get(key);
    if (!statement) this.prepared.set(key, (statement = prepare<JsonArgs>(this.provider, build)));
    return statement;
  }

  /** last_event_seq += n and last_update_seq raised to max_seq for each counter; returns the new last_event_seq. */
  private counterUpdate(counters: string) {
    const greatest = this.provider === 'sqlite' ? 'max' : 'greatest';
    return this.builder
      .updateTable('workflows')
      .from(jsonRecords<EventCounter>(this.provider, COUNTER_COLUMNS, counters).as('c'))
      .set((eb) => ({
        last_event_seq: eb('workflows.last_event_seq', '+', eb.ref('c.n')),
        last_update_seq: eb.fn<number>(greatest, ['workflows.last_update_seq', 'c.max_seq']),
      }))
      .whereRef('workflows.id', '=', 'c.id')
      .returning(['workflows.id as id', 'workflows.last_event_seq as last_event_seq']);
  }

  private tableInsert(db: QueryBuilder, { table, columns, upsert }: TableRows, json: string) {
    const source = jsonRecords<Record<string, unknown>>(this.provider, columnTypes(table, columns), json).as('x');
    // The table is one of several: its columns were checked against it where the rows were declared.
    const insert = db
      .insertInto(table as 'events')
      .columns(columns as unknown as 'seq'[])
      .expression((eb) => {
        const select = eb.selectFrom(source).select(columns as unknown as 'seq'[]);
        // SQLite would read the upsert's `ON CONFLICT` after a bare `FROM x` as a join's ON: a WHERE ends the SELECT.
        return upsert ? select.where(sql<SqlBool>`${sql.lit(1)} = ${sql.lit(1)}`) : select;
      });
    if (!upsert) return insert;
    const updated = columns.filter((column) => !upsert.key.includes(column));
    return insert.onConflict((oc) =>
      oc
        .columns(upsert.key as unknown as 'seq'[])
        .doUpdateSet(
          Object.fromEntries(
            updated.map((column) => [
              column,
              upsert.keepWhenNull.includes(column)
                ? sql`COALESCE(excluded.${sql.ref(column)}, ${sql.ref(`${table}.${column}`)})`
                : sql`excluded.${sql.ref(column)}`,
            ]),
          ),
        ),
    );
  }

  /** The events, each with seq = its workflow's counter after the append - n + ord (`c`: the counters). */
  private eventInsert(db: WithCounters, json: string) {
    const source = jsonRecords<EventRecord>(this.provider, EVENT_COLUMNS, json).as('e');
    return db
      .insertInto('events')
      .columns(['workflow_id', 'seq', 'type', 'data', 'created_at'])
      .expression((eb) =>
        eb
          .selectFrom(source)
          .innerJoin('c', 'c.id', 'e.workflow_id')
          .select((e) => [
            'e.workflow_id',
            e(e('c.last_event_seq', '-', e.ref('e.n')), '+', e.ref('e.ord')).as('seq'),
            'e.type',
            'e.data',
            'e.created_at',
          ]),
      );
  }

  /** PostgreSQL: one statement (its own transaction, or part of the caller's). */
  private postgresAppend(tables: TableRows[], withEvents: boolean): Prepared<JsonArgs> {
    const key = [...tables.map((t) => t.table), withEvents ? 'events' : ''].join(' ');
    return this.once(key, (arg) => {
      let query = this.builder.with('c', () => this.counterUpdate(arg('counters'))) as unknown as WithCounters;
      tables.forEach((rows, i) => {
        query = query.with(`t${i}`, (db) =>
          this.tableInsert(db as unknown as QueryBuilder, rows, arg(`t${i}`)),
        ) as unknown as WithCounters;
      });
      if (withEvents) query = query.with('ev', (db) => this.eventInsert(db, arg('events'))) as unknown as WithCounters;
      return query.selectFrom('c').select(['c.id', 'c.last_event_seq']);
    });
  }

  /** SQLite: one statement per table; in one transaction unless the caller runs one already. */
  private async writeSqlite(
    db: RawClient,
    tables: TableRows[],
    withEvents: boolean,
    args: JsonArgs,
    inTransaction: boolean,
  ): Promise<Counted[]> {
    const first = this.once('counters', (arg) => this.counterUpdate(arg('counters'))).bind(args);
    const rest = tables.map((rows, i) =>
      this.once(rows.table, (arg) => this.tableInsert(this.builder, rows, arg('json'))).bind({ json: args[`t${i}`]! }),
    );
    // Runs after the counter update in the same transaction, so last_event_seq is already raised.
    if (withEvents)
      rest.push(this.once('events', (arg) => this.eventInsert(withCounters(this.builder), arg('events'))).bind(args));
    if (inTransaction) {
      const result = await selectRows<Counted>(db, this.provider, first);
      for (const statement of rest) await executeQuery(db, this.provider, statement);
      return result;
    }
    if (!this.sqliteWriter) throw new Error('an append outside a transaction on SQLite needs the raw writer');
    return this.sqliteWriter.transaction((tx) => {
      const result = tx.all(first) as Counted[];
      for (const statement of rest) tx.run(statement);
      return result;
    });
  }
}
